"""The event stream's MQTT socket, read a buffer at a time and written a burst at a time.

paho reads each packet with a `recv` per byte of its header and one for its body, and
writes each PUBACK with a `send` of its own; aiomqtt wakes for one packet per turn of
the event loop. At thousands of events a second that is ten system calls and a turn of
the loop per event, a fifth of the service's time draining a backlog. `BufferedSocket`
sits between paho and the socket: one `recv` fills a buffer that paho's small reads are
served from (aiomqtt reads on while `pending()` says bytes wait, as it does for TLS),
and paho's sends are gathered and written by `flush` once the burst is over.

`BufferedClient` is aiomqtt's client with that socket (paho's socket factory wrapped)
and a writer that flushes at the end of the loop's turn, watching the socket for room
only while it is full. Nothing else changes: the same packets, in the same order, QoS 1
acknowledged as before (a PUBACK leaves within the same turn of the loop as the
messages it acknowledges, after they were handled). The service's outgoing client (its
pictures, records and commands) is one too.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from typing import Any, Final

import aiomqtt
import paho.mqtt.client as mqtt

READ_SIZE: Final = 8192  # bytes a read asks for: ~25 events, ~1.5 ms of handling at most
FLUSH_AT: Final = 65536  # unsent bytes that are written at once, without waiting for the burst


class BufferedSocket:
    """A connected non-blocking socket (plain or TLS) as paho uses it, buffered."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock
        self._in = b""
        self._at = 0
        self._out = bytearray()

    def recv(self, size: int) -> bytes:
        """Up to `size` bytes: from the buffer, or after one read that fills it. Raises as
        the socket does when nothing is there (BlockingIOError, ssl.SSLWantReadError);
        b"" at the end of the stream."""
        if self._at >= len(self._in):
            data = self._sock.recv(max(size, READ_SIZE))
            if not data:
                return b""
            self._in, self._at = data, 0
        chunk = self._in[self._at : self._at + size]
        self._at += len(chunk)
        return chunk

    def pending(self) -> int:
        """Bytes that can be read without waiting for the socket (aiomqtt reads on)."""
        buffered = len(self._in) - self._at
        more = self._sock.pending() if isinstance(self._sock, ssl.SSLSocket) else 0
        return buffered + more

    def send(self, data: bytes | bytearray | memoryview) -> int:
        """Taken whole, written by `flush` (at once past FLUSH_AT)."""
        self._out += data
        if len(self._out) >= FLUSH_AT:
            self.flush()
        return len(data)

    @property
    def unsent(self) -> int:
        return len(self._out)

    def flush(self) -> bool:
        """Write what the socket takes now; True once nothing is left unsent."""
        while self._out:
            try:
                sent = self._sock.send(self._out)
            except (BlockingIOError, ssl.SSLWantWriteError, ssl.SSLWantReadError):
                return False
            del self._out[:sent]
        return True

    def close(self) -> None:
        """Closed after writing what the socket takes at once (a DISCONNECT, say)."""
        with contextlib.suppress(OSError):
            self.flush()
        self._out.clear()
        self._sock.close()

    def fileno(self) -> int:
        return int(self._sock.fileno())

    def setblocking(self, flag: bool) -> None:
        self._sock.setblocking(flag)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class BufferedClient(aiomqtt.Client):
    """aiomqtt's client over a `BufferedSocket`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        paho = self._client
        create = paho._create_socket
        paho._create_socket = lambda: BufferedSocket(create())  # type: ignore[method-assign]

    def _on_socket_register_write(self, client: mqtt.Client, userdata: Any, sock: Any) -> None:
        """paho has bytes to write: they are written once the loop's current callbacks are
        done, with whatever else those send, and the socket is watched for room only while
        it is full. aiomqtt watches it for every burst (a hand-over by
        `call_soon_threadsafe`, then a turn of the loop for the socket's readiness and two
        `epoll_ctl` calls, for each PUBACK and each publish): 5 % of the loop's CPU at 100
        events/s. (paho calls this from the executor thread while it connects: from
        there the write is handed over.) After each write this alone decides whether the
        socket stays watched: aiomqtt's unwatching when paho's queue empties is undone
        here while the buffer still holds bytes."""
        fileno, buffered = sock.fileno(), sock  # (`buffered`: mypy narrows `sock` below)

        def write() -> None:
            if client.socket() is not buffered:
                return  # closed (or replaced) since
            try:
                client.loop_write()  # into the buffer
                if sock.flush() and not client.want_write():
                    self._loop.remove_writer(fileno)
                else:  # the socket is full: on when it takes more
                    self._loop.add_writer(fileno, write)
            except Exception as exc:  # a broken connection: as aiomqtt does
                if not self._disconnected.done():
                    self._disconnected.set_exception(exc)

        try:
            on_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._loop.call_soon(write)
        else:
            self._loop.call_soon_threadsafe(write)
