"""The scripted host's end of the cable: raw frames over pyserial, every one kept in a transcript.

Two threads use it: the host's reader (`ScriptedHost`, always on: it reads, acknowledges
and answers HELLO) and the check that sends its frames. Writes and the transcript are
guarded by one lock, so every exchange is kept whole and in order.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Literal

import serial  # type: ignore[import-untyped]

from firmware_bridge.protocol.catalogue import from_frame, plain
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import Frame, FrameDecoder, encode_frame, split_frames

Direction = Literal["host→dev", "dev→host"]
READ_TIMEOUT = 0.001  # one read waits at most this long for a first byte


@dataclass(frozen=True, slots=True)
class Exchange:
    """One run of bytes on the wire at `t` (monotonic seconds), decoded for a reader."""

    t: float
    direction: Direction
    raw: bytes
    frame: Frame | None
    error: str | None = None

    def describe(self) -> str:
        """`KIND seq=.. ack=.. {fields}`, or the reason the bytes are not a frame."""
        if self.frame is None:
            return self.error or "raw bytes"
        return describe_frame(self.frame)


def describe_frame(frame: Frame) -> str:
    head = f"seq={frame.seq} ack={frame.ack}"
    if frame.version != 1:
        head += f" version={frame.version}"
    try:
        message = from_frame(frame)
    except PayloadError as exc:
        return f"type 0x{frame.type:02X} {head} refused: {exc} payload={frame.payload.hex(' ')}"
    return f"{message.KIND.upper()} {head} {plain(message)}"


class PortError(RuntimeError):
    """The port could not be opened (exit 2 in the command)."""


Run = tuple[float, bytes, Frame | FrameError]


def _no_delay(port: object) -> None:
    """A socket:// port sends each frame at once: with Nagle's algorithm a frame written
    while an earlier one waits for its TCP ack is held back up to the peer's delayed ack
    (40 ms on Linux), four times the page's "at once"."""
    sock = getattr(port, "_socket", None)
    if isinstance(sock, socket.socket) and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Wire:
    """Frames to and from the device; `transcript` holds every exchange in order."""

    def __init__(self, url: str, baudrate: int = 115200) -> None:
        try:
            self._port = serial.serial_for_url(url, baudrate=baudrate, timeout=READ_TIMEOUT)
        except (OSError, ValueError, serial.SerialException) as exc:
            raise PortError(f"port: cannot open {url!r}: {exc}") from None
        _no_delay(self._port)
        self.url = url
        self._decoder = FrameDecoder()
        self._lock = threading.Lock()
        self.transcript: list[Exchange] = []
        self._rx_raw = bytearray()
        self.last_tx = time.monotonic()

    def close(self) -> None:
        self._port.close()

    def send(self, frame: Frame) -> float:
        """Write one frame; returns the time it was written."""
        return self.send_raw(encode_frame(frame), frame)

    def send_raw(self, data: bytes, frame: Frame | None = None, note: str | None = None) -> float:
        """Write bytes as they are (malformed frames, bare delimiters)."""
        with self._lock:
            # stamped before the write: a quick answer, stamped by the reader thread when it
            # arrives, can never seem older than what it answers
            now = time.monotonic()
            self._port.write(data)  # written whole; no tcdrain: it would hold the lock
            self.transcript.append(Exchange(now, "host→dev", data, frame, note))
            self.last_tx = now
        return now

    def read(self) -> list[Run]:
        """What arrived since the last call, decoded (waits at most READ_TIMEOUT for a byte)."""
        data = self._port.read(self._port.in_waiting or 1)
        if not data:
            return []
        now = time.monotonic()
        out: list[Run] = []
        with self._lock:
            for chunk in split_frames(data):
                self._rx_raw += chunk
                if not chunk.endswith(b"\x00"):
                    continue
                raw = bytes(self._rx_raw)
                self._rx_raw.clear()
                for item in self._decoder.feed(raw):
                    if isinstance(item, FrameError):
                        self.transcript.append(Exchange(now, "dev→host", raw, None, str(item)))
                    else:
                        self.transcript.append(Exchange(now, "dev→host", raw, item))
                    out.append((now, raw, item))
        return out
