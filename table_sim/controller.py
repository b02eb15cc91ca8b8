"""The simulated controller board: the device side of docs/protocol.md on a transport.

It runs the protocol's pure `DeviceSession` (the reference the firmware follows)
and puts link faults between it and the wire: byte corruption both ways, dropped
and duplicated frames, held-back bursts, a pulled cable, a reset, a hang. The
bridge's own tests and benchmark use it too (`PtyController`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from pathlib import Path

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.frame import PROTOCOL_VERSION, split_frames
from table_sim.faults import FaultDice, LinkFaults
from table_sim.transports import PtyTransport, Transport

DEVICE_QUEUE = 64  # events a controller holds before the table must wait (protocol §3.5)
FIRMWARE = (1, 2, 3)  # the simulated board's firmware version


class Controller:
    def __init__(
        self,
        transport: Transport,
        *,
        table_id: int = 1,
        boot_id: int = 1,
        faults: LinkFaults | None = None,
        seed: int = 0,
        timing: Timing | None = None,
        tick: float = 0.005,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        self.transport = transport
        self.protocol_version = protocol_version
        self.table_id = table_id
        self.faults = faults or LinkFaults()
        self.dice = FaultDice(seed ^ 0x11D)
        self.timing = timing or Timing()
        self.tick = tick
        self.session = self._session(boot_id)
        self.boots = [boot_id]
        self.received: list[Message] = []  # commands from the host, in order
        # what STATE answers to REQUEST_STATE (§6.12); a table simulation may keep it current
        self.state = c.State(c.Phase.IDLE, 144, c.NO_SEAT, c.NO_SEAT)
        self._held: deque[bytes] = deque()
        self._release_at = 0.0
        self._task: asyncio.Task[None] | None = None

    @property
    def injected(self) -> Counter[str]:
        return Counter(self.dice.injected)

    def _session(self, boot_id: int) -> DeviceSession:
        return DeviceSession(
            boot_id,
            self.table_id,
            FIRMWARE,
            self.timing,
            time.monotonic(),
            self.protocol_version,
        )

    async def start(self) -> None:
        """Power on and plug in (again, after `unplug`)."""
        if not self.transport.plugged:
            await self.transport.plug(self._on_data)
        if self._task is None:
            self._task = asyncio.create_task(self._ticker())

    async def stop(self) -> None:
        await self._halt()
        await self.transport.unplug()

    async def unplug(self) -> None:
        """Pull the cable; the controller runs on and keeps its queue."""
        await self.transport.unplug()

    async def pull_cable(self, for_seconds: float) -> None:
        """Unplug, wait, plug back in (an injected fault, counted)."""
        self.dice.injected["unplug"] = self.dice.injected.get("unplug", 0) + 1
        await self.unplug()
        await asyncio.sleep(for_seconds)
        await self.transport.plug(self._on_data)

    async def freeze(self) -> None:
        """The controller hangs: it neither reads nor writes; the cable stays in."""
        await self._halt()
        self.transport.pause()

    def thaw(self) -> None:
        """It runs again, same boot, its queue intact."""
        self.transport.resume()
        if self._task is None:
            self._task = asyncio.create_task(self._ticker())

    def write_raw(self, data: bytes) -> int:
        """Bytes straight onto the wire, past the session (tests' malformed frames)."""
        return self.transport.write(data)

    async def wait_welcomed(self, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not self.session.welcomed:
                await asyncio.sleep(self.tick)

    async def _halt(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def reboot(self, boot_id: int) -> None:
        """A reset: a new boot id, numbering from 1; what was not acknowledged is gone."""
        self.dice.injected["reboot"] = self.dice.injected.get("reboot", 0) + 1
        self.session = self._session(boot_id)
        self.boots.append(boot_id)

    def emit(self, message: Message) -> None:
        self.session.emit(message)

    @property
    def backlog(self) -> int:
        """Events not yet acknowledged by the host."""
        sender = self.session.sender
        return len(sender.outstanding) + len(sender.waiting)

    @property
    def idle(self) -> bool:
        return self.session.welcomed and self.session.idle

    async def wait_idle(self, timeout: float = 30.0) -> None:
        """Until the host has acknowledged every event emitted so far."""
        async with asyncio.timeout(timeout):
            while not self.idle:
                await asyncio.sleep(self.tick)

    async def wait_room(self) -> None:
        """Back-pressure: the table waits while the controller's queue is full."""
        while len(self.session.sender.waiting) >= DEVICE_QUEUE:
            await asyncio.sleep(self.tick)

    def _on_data(self, data: bytes) -> None:
        self.session.receive(self._corrupt(data), time.monotonic())
        while self.session.commands:
            command = self.session.commands.popleft()
            self.received.append(command)
            if isinstance(command, c.RequestState):
                self.session.emit(self.state)
        self._pump()

    async def _ticker(self) -> None:
        while True:
            self._pump()
            await asyncio.sleep(self.tick)

    def _pump(self) -> None:
        now = time.monotonic()
        data = self.session.poll(now)
        if data:
            for frame in split_frames(data):
                if self.dice.roll(self.faults.drop, "drop"):
                    continue
                copies = 2 if self.dice.roll(self.faults.duplicate, "duplicate") else 1
                self._held.extend([self._corrupt(frame)] * copies)
            if self.dice.roll(self.faults.burst, "burst"):
                self._release_at = now + self.faults.delay
        if not self.transport.plugged:
            self._held.clear()  # into a pulled cable: gone, the session will resend
        elif self._held and now >= self._release_at:
            self.transport.write(b"".join(self._held))
            self._held.clear()

    def _corrupt(self, data: bytes) -> bytes:
        rate = self.faults.corruption
        if not rate:
            return data
        out = bytearray(data)
        rng = self.dice.rng
        for i in range(len(out)):
            if rng.random() < rate:
                out[i] = rng.randrange(256)
                self.dice.injected["corrupt_byte"] = self.dice.injected.get("corrupt_byte", 0) + 1
        return bytes(out)


class PtyController(Controller):
    """A controller on a pseudo-terminal whose path (a symlink) is `port`."""

    def __init__(
        self,
        port: Path,
        boot_id: int = 0x1000,
        *,
        table_id: int = 1,
        noise: float = 0.0,
        seed: int = 0,
        timing: Timing | None = None,
        protocol_version: int = PROTOCOL_VERSION,
        tick: float = 0.005,
    ) -> None:
        super().__init__(
            PtyTransport(port),
            table_id=table_id,
            boot_id=boot_id,
            faults=LinkFaults(corruption=noise),
            seed=seed,
            timing=timing,
            tick=tick,
            protocol_version=protocol_version,
        )
        self.port = port
