"""Simulated boards for the conformance tests: the reference one and deliberately broken ones."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from pathlib import Path

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.frame import SEQ_MOD
from table_sim.controller import FIRMWARE, Controller, PtyController
from table_sim.transports import TcpTransport


class NeverNaks(DeviceSession):
    """Drops every NAK it would send: gaps are closed only by the host's timer."""

    def _send(self, message: Message, seq: int, now: float) -> None:
        if not isinstance(message, c.Nak):
            super()._send(message, seq, now)


class RunsDuplicates(DeviceSession):
    """Delivers a duplicate command again instead of only re-acknowledging it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.receiver = _GullibleReceiver(1, self.timing)


class _GullibleReceiver(Receiver):
    def classify(self, seq: int) -> Verdict:
        verdict = super().classify(seq)
        if verdict is Verdict.DUPLICATE:
            self.expected = seq  # "delivers" it once more
            return Verdict.DELIVER
        return verdict


class MiscountsAcks(DeviceSession):
    """Releases one event more than the host acknowledged (an off-by-one in `seq ≤ a`)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sender = _OffByOneSender(1, self.timing)


class _OffByOneSender(Sender):
    def on_ack(self, ack: int, now: float) -> list[tuple[int, Message]]:
        return super().on_ack((ack + 1) % SEQ_MOD, now)


class BadCrc(DeviceSession):
    """Sends its events with the CRC's low byte wrong."""

    def _send(self, message: Message, seq: int, now: float) -> None:
        start = len(self._out)
        super()._send(message, seq, now)
        if message.DIRECTION is c.Direction.EVENT:
            frame = self._out[start:]
            # the byte before the delimiter is the CRC's low byte (COBS leaves it as is)
            frame[-2] ^= 0x01 if frame[-2] != 0x01 else 0x03
            self._out[start:] = frame


class NeverBeats(DeviceSession):
    """Sends no HEARTBEAT, however long it has nothing to send."""

    def _beats(self) -> bool:
        return False


class NoTimeout(DeviceSession):
    """Never resends on its timer (NAKs and WELCOMEs still get their resends)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.sender = _TimelessSender(1, self.timing)


class _TimelessSender(Sender):
    def poll(self, now: float) -> list[tuple[int, Message]]:
        self.timer = now  # the RTO never runs out
        return super().poll(now)


SESSIONS: dict[str, type[DeviceSession]] = {
    "never_beats": NeverBeats,
    "no_timeout": NoTimeout,
    "never_naks": NeverNaks,
    "runs_duplicates": RunsDuplicates,
    "miscounts_acks": MiscountsAcks,
    "bad_crc": BadCrc,
}


def broken(name: str) -> type[PtyController]:
    session_class = SESSIONS[name]

    class Broken(PtyController):
        def _session(self, boot_id: int) -> DeviceSession:
            import time

            return session_class(
                boot_id, self.table_id, FIRMWARE, self.timing, time.monotonic(),
                self.protocol_version,
            )  # fmt: skip

    return Broken


class Playing(PtyController):
    """The reference board at a table in play: a TILE_DRAWN every 1/`rate` s for as long as
    it runs (handshakes, held acks and resets included), into a queue of `queue_limit`
    events (None: unbounded; 64 as a real board: full, it drops the oldest and HELLOs)."""

    def __init__(
        self, port: Path, boot_id: int, *, rate: float, queue_limit: int | None = None,
        session_class: type[DeviceSession] = DeviceSession, **kwargs: object,
    ) -> None:  # fmt: skip
        self.rate = rate
        self.queue_limit = queue_limit
        self.session_class = session_class
        super().__init__(port, boot_id, **kwargs)  # type: ignore[arg-type]
        self.emitted = 0
        self._play: asyncio.Task[None] | None = None

    def _session(self, boot_id: int) -> DeviceSession:
        return self.session_class(
            boot_id, self.table_id, FIRMWARE, self.timing, time.monotonic(),
            self.protocol_version, queue_limit=self.queue_limit,
        )  # fmt: skip

    async def start(self) -> None:
        await super().start()
        if self._play is None:
            self._play = asyncio.create_task(self._playing())

    async def stop(self) -> None:
        if self._play is not None:
            self._play.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._play
            self._play = None
        await super().stop()

    async def _playing(self) -> None:
        await play(self, self.rate)


async def play(controller: Controller, rate: float) -> None:
    """A TILE_DRAWN every 1/`rate` s into `controller`, for ever (cancel to stop)."""
    loop = asyncio.get_running_loop()
    period = 1.0 / rate
    due = loop.time()
    n = 0
    while True:
        due += period
        await asyncio.sleep(max(0.0, due - loop.time()))
        controller.emit(c.TileDrawn(n % 4, n % 136, c.End.FRONT))
        n += 1
        if isinstance(controller, Playing):
            controller.emitted = n


class TcpPlaying:
    """The reference board at a table in play behind `socket://` (as `mjtable sim --tcp`),
    run by its own event loop in a thread."""

    def __init__(self, rate: float) -> None:
        self.controller = Controller(TcpTransport("127.0.0.1", 0), boot_id=0x5300, tick=0.002)
        self.rate = rate
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._play: asyncio.Future[None] | None = None

    @property
    def url(self) -> str:
        return self.controller.transport.url

    def __enter__(self) -> TcpPlaying:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.controller.start(), self._loop).result(5)
        self._play = asyncio.run_coroutine_threadsafe(play(self.controller, self.rate), self._loop)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._play is not None:
            self._play.cancel()
        asyncio.run_coroutine_threadsafe(self.controller.stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()


def make(  # type: ignore[no-untyped-def]
    name: str | None,
    rto: float | None = None,
    *,
    rate: float | None = None,
    queue_limit: int | None = None,
):
    """A SimBoard factory: the reference board or the broken one called `name`; with
    `rate`, that board at a table that keeps emitting events."""

    def factory(port: Path, timing: Timing) -> PtyController:
        if rto is not None:
            timing = Timing(rto_initial=rto)
        if rate is not None:
            session_class = DeviceSession if name is None else SESSIONS[name]
            return Playing(
                port, 0x5100, rate=rate, queue_limit=queue_limit,
                session_class=session_class, timing=timing, tick=0.002,
            )  # fmt: skip
        cls = PtyController if name is None else broken(name)
        return cls(port, 0x5100, timing=timing, tick=0.002)

    return factory
