"""The 20 ms NAK guard of docs/protocol.md §3.5, measured: events/s at 1 % byte noise per reading.

Both ends run back to back on a fake clock over a simulated 115200-baud line (86.8 µs
a byte, each byte replaced by a random one with probability `--noise`, both ways).
The device is the reference `DeviceSession` with its sender swapped for each reading;
the host is a minimal sans-I/O host that follows §3.3-§3.6 (it acks and NAKs at once).
The device always has events waiting, so the figure is the link's capacity.

Readings of "resend every outstanding message from e at once, unless those were
(re)sent less than 20 ms ago":
  last-resend   (the code today) ignore the NAK only if a go-back-N resend happened in
                the last 20 ms; a NAK resend restarts the timer at the current RTO
  first-send    (the page read literally) ignore it if message e was sent *or first
                sent* in the last 20 ms; timer restarted
  last-resend+double  as last-resend, but a NAK resend also doubles RTO like a timeout
  e-resent      ignore NAK(e) only if message e itself was *re*sent in the last 20 ms
                (a stale NAK that crossed the resend); timer restarted
  no-guard      answer every NAK (the receiver's 50 ms NAK limit is the only brake);
                timer restarted, RTO unchanged (the rule the page now states)
  no-guard+double  as no-guard, but a NAK resend also doubles RTO

    .venv/bin/python bench/nak_guard.py [--seconds 60] [--noise 0.01] [--seeds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Message, from_frame, to_frame
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import FrameDecoder, encode_frame

BYTE_TIME = 10 / 115200  # 8N1: ten bits a byte
GUARD = 0.02
STEP = 0.001  # both ends poll every millisecond


class FirstSendGuard(Sender):
    """The literal reading: "those" were sent (first time included) less than 20 ms ago."""

    def __init__(self, next_seq: int, timing: Timing) -> None:
        super().__init__(next_seq, timing)
        self.sent_at: dict[int, float] = {}

    def poll(self, now: float) -> list[tuple[int, Message]]:
        out = super().poll(now)
        for seq, _ in out:
            self.sent_at[seq] = now
        return out

    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        self.on_ack((expected - 1) % 65536, now)
        if not self.outstanding or now - self.sent_at.get(self.outstanding[0][0], -1.0) < GUARD:
            return []
        out = self._resend_all(now)
        for seq, _ in out:
            self.sent_at[seq] = now
        return out


class ResentGuard(Sender):
    """Ignore NAK(e) only if message e itself was *re*sent less than 20 ms ago."""

    def __init__(self, next_seq: int, timing: Timing) -> None:
        super().__init__(next_seq, timing)
        self.resent_at: dict[int, float] = {}

    def _resend_all(self, now: float) -> list[tuple[int, Message]]:
        out = super()._resend_all(now)
        for seq, _ in out:
            self.resent_at[seq] = now
        return out

    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        self.on_ack((expected - 1) % 65536, now)
        if not self.outstanding or now - self.resent_at.get(expected, -1.0) < GUARD:
            return []
        return self._resend_all(now)


class LastResendGuard(Sender):
    """The former guard (`last-resend` above): ignore a NAK if any go-back-N resend happened
    < 20 ms ago."""

    def __init__(self, next_seq: int, timing: Timing) -> None:
        super().__init__(next_seq, timing)
        self.last_resend = -1.0

    def _resend_all(self, now: float) -> list[tuple[int, Message]]:
        self.last_resend = now
        return super()._resend_all(now)

    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        self.on_ack((expected - 1) % 65536, now)
        if not self.outstanding or now - self.last_resend < GUARD:
            return []
        return self._resend_all(now)


class DoublingNak(LastResendGuard):
    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        out = super().on_nak(expected, now)
        if out:
            self.rto = min(self.rto * 2, self.timing.rto_max)
        return out


class NoGuard(Sender):
    """The rule chosen (§3.5), the shipped `Sender` itself: every NAK answered at once."""


class NoGuardDoubling(NoGuard):
    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        out = super().on_nak(expected, now)
        if out:
            self.rto = min(self.rto * 2, self.timing.rto_max)
        return out


READINGS: dict[str, Callable[[int, Timing], Sender]] = {
    "last-resend": LastResendGuard,
    "first-send": FirstSendGuard,
    "last-resend+double": DoublingNak,
    "e-resent": ResentGuard,
    "no-guard": NoGuard,
    "no-guard+double": NoGuardDoubling,
}


class Line:
    """One direction of the cable: bytes leave one by one and may arrive changed."""

    def __init__(self, rng: random.Random, noise: float) -> None:
        self.rng, self.noise = rng, noise
        self.free_at = 0.0
        self.in_flight: list[tuple[float, int]] = []

    def write(self, data: bytes, now: float) -> None:
        t = max(now, self.free_at)
        for b in data:
            t += BYTE_TIME
            if self.rng.random() < self.noise:
                b = self.rng.randrange(256)
            self.in_flight.append((t, b))
        self.free_at = t

    def read(self, now: float) -> bytes:
        i = 0
        while i < len(self.in_flight) and self.in_flight[i][0] <= now:
            i += 1
        out = bytes(b for _, b in self.in_flight[:i])
        del self.in_flight[:i]
        return out


class BenchHost:
    """The host side of §3.3-§3.6 without storage: deliver in order, ack, NAK."""

    def __init__(self, timing: Timing) -> None:
        self.timing = timing
        self.receiver = Receiver(1, timing)
        self.sender = Sender(1, timing)
        self.decoder = FrameDecoder()
        self.up = False
        self.delivered = 0
        self.ack_due = False
        self.out = bytearray()
        self.last_tx = 0.0

    def _send(self, message: Message, now: float, seq: int | None = None) -> None:
        seq = self.sender.last_sent if seq is None else seq
        self.out += encode_frame(to_frame(message, seq, self.receiver.last))
        self.last_tx = now
        self.ack_due = False

    def receive(self, data: bytes, now: float) -> None:
        for item in self.decoder.feed(data):
            if isinstance(item, FrameError):
                if self.up and self.receiver.nak_due(now):
                    self._send(c.Nak(self.receiver.expected), now)
                continue
            try:
                message: Message | None = from_frame(item)
            except PayloadError:
                message = None
            if isinstance(message, c.Hello):
                self.receiver.expected = message.next_seq
                self.up = True
                self._send(c.Welcome(1, c.HelloResult.ACCEPTED, 1), now, 0)
            elif 0x10 <= item.type <= 0x7F and self.up:
                verdict = self.receiver.classify(item.seq)
                if verdict is Verdict.DELIVER:
                    self.receiver.advance()
                    self.delivered += 1
                    self.ack_due = True
                elif verdict is Verdict.DUPLICATE:
                    self.ack_due = True
                elif self.receiver.nak_due(now):
                    self._send(c.Nak(self.receiver.expected), now)
            elif (
                self.up
                and message is not None
                and self.receiver.behind(item.seq)
                and self.receiver.nak_due(now)
            ):
                self._send(c.Nak(self.receiver.expected), now)

    def poll(self, now: float) -> bytes:
        if self.ack_due:
            self._send(c.Ack(), now)
        if now - self.last_tx >= self.timing.heartbeat:
            self._send(c.Heartbeat(int(now * 1000)), now)
        out = bytes(self.out)
        self.out.clear()
        return out


def run(reading: str, seconds: float, noise: float, seed: int) -> tuple[float, int]:
    """Events per second delivered in order, and the device's retransmissions."""
    timing = Timing()
    rng = random.Random(seed)
    device = DeviceSession(1, timing=timing, now=0.0)
    device.sender = READINGS[reading](1, timing)
    host = BenchHost(timing)
    up, down = Line(rng, noise), Line(rng, noise)
    event = c.TileDrawn(2, 37, c.End.FRONT)
    now = 0.0
    steps = int(seconds / STEP)
    for _ in range(steps):
        now += STEP
        while len(device.sender.waiting) < 64:
            device.emit(event)
        host.receive(up.read(now), now)
        device.receive(down.read(now), now)
        up.write(device.poll(now), now)
        down.write(host.poll(now), now)
    return host.delivered / seconds, device.sender.retransmits


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="simulated seconds per run")
    parser.add_argument("--noise", type=float, default=0.01, help="chance a byte is replaced")
    parser.add_argument("--seeds", type=int, default=3, help="runs per reading")
    args = parser.parse_args()
    print(f"115200 baud, {args.noise:.1%} byte noise both ways, {args.seconds:.0f} s x "
          f"{args.seeds} seeds, device always backlogged")  # fmt: skip
    print(f"{'reading':<20} {'events/s':>9} {'min':>7} {'max':>7} {'resent/s':>9}")
    for reading in READINGS:
        rates, resent = [], 0
        for seed in range(args.seeds):
            rate, retransmits = run(reading, args.seconds, args.noise, seed)
            rates.append(rate)
            resent += retransmits
        mean = sum(rates) / len(rates)
        per_s = resent / (args.seconds * args.seeds)
        print(f"{reading:<20} {mean:9.1f} {min(rates):7.1f} {max(rates):7.1f} {per_s:9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
