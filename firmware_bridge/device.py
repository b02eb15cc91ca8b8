"""A controller stand-in on a pseudo-terminal: the device side of the link for tests and bench.

The bridge opens the pty's slave path exactly as it opens /dev/ttyUSB0; this object
drives the master with `DeviceSession` and can unplug, replug, reboot and add line
noise. The production bridge never imports it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
import tty
from pathlib import Path

from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.stopping import cancel_and_wait


class PtyController:
    """`port` is a symlink that follows the current pty, like /dev/serial/by-id/… does."""

    def __init__(
        self,
        port: Path,
        boot_id: int = 0x1000,
        *,
        table_id: int = 1,
        noise: float = 0.0,
        seed: int = 0,
        timing: Timing | None = None,
        protocol_version: int = 1,
        tick: float = 0.005,
    ) -> None:
        self.port = port
        self.timing = timing or Timing()
        self.table_id = table_id
        self.protocol_version = protocol_version
        self.noise = noise
        self.tick = tick
        self._rnd = random.Random(seed)
        self.session = self._new_session(boot_id)
        self.received: list[Message] = []
        self.dropped_bytes = 0
        self._fds: tuple[int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def plugged(self) -> bool:
        return self._fds is not None

    def _new_session(self, boot_id: int) -> DeviceSession:
        return DeviceSession(
            boot_id,
            self.table_id,
            (1, 2, 3),
            self.timing,
            time.monotonic(),
            self.protocol_version,
        )

    async def start(self) -> None:
        """Plug in: create the pty and point `port` at it."""
        master, slave = os.openpty()
        tty.setraw(master)
        tty.setraw(slave)
        os.set_blocking(master, False)
        tmp = self.port.with_name(self.port.name + ".new")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        tmp.symlink_to(os.ttyname(slave))
        tmp.replace(self.port)
        self._fds = (master, slave)
        asyncio.get_running_loop().add_reader(master, self._on_readable)
        self._task = asyncio.create_task(self._ticker())

    async def unplug(self) -> None:
        """Pull the cable: the pty disappears and the bridge's reads fail."""
        if self._task is not None:
            await cancel_and_wait([self._task])
            self._task = None
        if self._fds is not None:
            master, slave = self._fds
            asyncio.get_running_loop().remove_reader(master)
            os.close(master)
            os.close(slave)
            self._fds = None
        with contextlib.suppress(FileNotFoundError):
            self.port.unlink()

    stop = unplug

    async def freeze(self) -> None:
        """The controller hangs: it neither reads nor writes, the pty stays."""
        if self._task is not None:
            await cancel_and_wait([self._task])
            self._task = None
        if self._fds is not None:
            asyncio.get_running_loop().remove_reader(self._fds[0])

    def thaw(self) -> None:
        """The controller runs again (same boot, its queue intact)."""
        if self._fds is not None and self._task is None:
            asyncio.get_running_loop().add_reader(self._fds[0], self._on_readable)
            self._task = asyncio.create_task(self._ticker())

    def reboot(self, boot_id: int) -> None:
        """A controller reset: unacknowledged events in its RAM are gone, numbering restarts."""
        self.session = self._new_session(boot_id)

    def emit(self, message: Message) -> None:
        self.session.emit(message)
        self._pump()

    @property
    def idle(self) -> bool:
        return self.session.welcomed and self.session.idle

    async def wait_idle(self, timeout: float = 10.0) -> None:
        """Until the bridge has acknowledged every emitted event."""
        async with asyncio.timeout(timeout):
            while not self.idle:
                await asyncio.sleep(0.005)

    async def wait_welcomed(self, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not self.session.welcomed:
                await asyncio.sleep(0.005)

    def _on_readable(self) -> None:
        assert self._fds is not None
        try:
            data = os.read(self._fds[0], 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            return
        self.session.receive(self._garble(data), time.monotonic())
        self._pump()
        while self.session.commands:
            self.received.append(self.session.commands.popleft())

    async def _ticker(self) -> None:
        while True:
            self._pump()
            await asyncio.sleep(self.tick)

    def _pump(self) -> None:
        data = self.session.poll(time.monotonic())
        if not data or self._fds is None:
            return
        data = self._garble(data)
        try:
            written = os.write(self._fds[0], data)
        except (BlockingIOError, OSError):
            written = 0
        self.dropped_bytes += len(data) - written

    def _garble(self, data: bytes) -> bytes:
        if not self.noise:
            return data
        out = bytearray(data)
        for i in range(len(out)):
            if self._rnd.random() < self.noise:
                out[i] = self._rnd.randrange(256)
        return bytes(out)
