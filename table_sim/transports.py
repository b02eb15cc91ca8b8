"""Where the simulated controller plugs in: a pseudo-terminal or a TCP port.

The bridge opens a pty's path exactly as it opens /dev/ttyUSB0, or connects to
`socket://host:port`. Unplugging closes the pty (or the connection) so the bridge
sees the cable go; replugging makes a new one at the same address.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

OnData = Callable[[bytes], None]


class Transport(Protocol):
    @property
    def url(self) -> str: ...

    @property
    def plugged(self) -> bool: ...

    async def plug(self, on_data: OnData) -> None: ...

    def write(self, data: bytes) -> int: ...

    async def unplug(self) -> None: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...


class PtyTransport:
    """`path` is a symlink that follows the current pty, like /dev/serial/by-id/… does."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fds: tuple[int, int] | None = None
        self._readable: Callable[[], None] | None = None

    @property
    def url(self) -> str:
        return str(self.path)

    @property
    def plugged(self) -> bool:
        return self._fds is not None

    async def plug(self, on_data: OnData) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        tmp = self.path.with_name(self.path.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.path)
        self._fds = (master, slave)

        def readable() -> None:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if data:
                on_data(data)

        self._readable = readable
        asyncio.get_running_loop().add_reader(master, readable)

    def pause(self) -> None:
        """Stop reading: bytes wait in the pty, as in a hung controller's UART."""
        if self._fds is not None:
            asyncio.get_running_loop().remove_reader(self._fds[0])

    def resume(self) -> None:
        if self._fds is not None and self._readable is not None:
            asyncio.get_running_loop().add_reader(self._fds[0], self._readable)

    def write(self, data: bytes) -> int:
        if self._fds is None:
            return 0
        try:
            return os.write(self._fds[0], data)
        except (BlockingIOError, OSError):
            return 0  # a full pty buffer drops bytes, as a UART overrun would

    async def unplug(self) -> None:
        if self._fds is not None:
            master, slave = self._fds
            asyncio.get_running_loop().remove_reader(master)
            os.close(master)
            os.close(slave)
            self._fds = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


class TcpTransport:
    """Listens on host:port for one bridge at a time (`socket://host:port`)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None

    @property
    def url(self) -> str:
        return f"socket://{self.host}:{self.port}"

    @property
    def plugged(self) -> bool:
        return self._server is not None

    async def plug(self, on_data: OnData) -> None:
        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if self._writer is not None:
                self._writer.close()
            self._writer = writer
            try:
                while data := await reader.read(4096):
                    on_data(data)
            except (ConnectionError, asyncio.CancelledError):
                pass
            finally:
                if self._writer is writer:
                    self._writer = None
                writer.close()

        self._server = await asyncio.start_server(serve, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    def pause(self) -> None:
        if self._writer is not None:
            self._writer.transport.pause_reading()  # type: ignore[attr-defined]

    def resume(self) -> None:
        if self._writer is not None:
            self._writer.transport.resume_reading()  # type: ignore[attr-defined]

    def write(self, data: bytes) -> int:
        if self._writer is None or self._writer.is_closing():
            return 0
        self._writer.write(data)
        return len(data)

    async def unplug(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)
            self._server = None
