"""Simulated boards for the conformance tests: the reference one and deliberately broken ones."""

from __future__ import annotations

from pathlib import Path

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.frame import SEQ_MOD
from hil_tests.simulator.controller import FIRMWARE, PtyController


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


SESSIONS: dict[str, type[DeviceSession]] = {
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


def make(name: str | None, rto: float | None = None):  # type: ignore[no-untyped-def]
    """A SimBoard factory: the reference board, or the broken one called `name`."""

    def factory(port: Path, timing: Timing) -> PtyController:
        if rto is not None:
            timing = Timing(rto_initial=rto)
        cls = PtyController if name is None else broken(name)
        return cls(port, 0x5100, timing=timing, tick=0.002)

    return factory
