"""A scripted host: the page's host side, step by step, with expectations that fail loudly.

Each step sends frames and waits for what the page says the device must answer;
a wrong or missing answer raises `Failed` naming the rule, and the runner prints the
frames exchanged since the check began.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.conformance.wire import Wire, describe_frame
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import Message, from_frame, to_frame
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import SEQ_MOD, Frame, seq_diff

# docs/protocol.md §3.9 "Conformance tolerance": late by 10 % + 30 ms, early by 10 % + 5 ms.
LATE_FRACTION, LATE_SLACK = 0.10, 0.030
EARLY_FRACTION, EARLY_SLACK = 0.10, 0.005
AT_ONCE = 0.010  # "at once" and the ACK delay: 10 ms (§3.3)
ANSWER = 1.0  # a STATE answers REQUEST_STATE within 1 s (§6.12)


class Failed(AssertionError):
    """A rule of the page was broken; the message names it and what was seen."""


def late_limit(nominal: float) -> float:
    return nominal * (1 + LATE_FRACTION) + LATE_SLACK


def early_limit(nominal: float) -> float:
    return nominal * (1 - EARLY_FRACTION) - EARLY_SLACK


def check_interval(what: str, measured: float, nominal: float) -> None:
    """Fail unless `measured` is `nominal` within the page's tolerance."""
    if not early_limit(nominal) <= measured <= late_limit(nominal):
        raise Failed(
            f"{what}: {measured * 1000:.0f} ms, the page says {nominal * 1000:.0f} ms "
            f"(accepted {early_limit(nominal) * 1000:.0f}..{late_limit(nominal) * 1000:.0f} ms)"
        )


def seq_add(a: int, n: int) -> int:
    return (a + n) % SEQ_MOD


@dataclass(frozen=True, slots=True)
class Received:
    """A frame from the device and when it arrived."""

    t: float
    frame: Frame

    @property
    def type(self) -> int:
        return self.frame.type

    def message(self) -> Message:
        try:
            return from_frame(self.frame)
        except PayloadError as exc:
            raise Failed(f"device sent a frame the catalogue refuses: {exc}") from None


@dataclass
class ScriptedHost:
    """The host's numbers: the next command number and the next event number expected."""

    wire: Wire
    next_command: int = 1
    expected_event: int = 1
    acked: int = 0
    boot_id: int | None = None
    events: list[Received] = field(default_factory=list)  # delivered in order
    seen: list[Received] = field(default_factory=list)  # every event frame, resends too
    errors: list[str] = field(default_factory=list)
    last_rx: float = 0.0

    # --- sending ------------------------------------------------------------------

    @property
    def event_ack(self) -> int:
        """The `ack` this host sends: what it chose to acknowledge, not what it received."""
        return self.acked

    def send(self, message: Message, *, seq: int | None = None, ack: int | None = None) -> float:
        """A link-control frame; `seq` defaults to the last command number sent (§3.2)."""
        seq = (self.next_command - 1) % SEQ_MOD if seq is None else seq
        return self.wire.send(to_frame(message, seq, self.event_ack if ack is None else ack))

    def command(self, message: Message, *, seq: int | None = None) -> tuple[int, float]:
        """A command with the next number (or `seq`, for duplicates and gaps)."""
        if seq is None:
            seq = self.next_command
            self.next_command = seq_add(seq, 1)
        return seq, self.wire.send(to_frame(message, seq, self.event_ack))

    def ack_events(self, upto: int | None = None) -> None:
        """ACK everything delivered so far (or up to `upto`)."""
        self.acked = (self.expected_event - 1) % SEQ_MOD if upto is None else upto
        self.send(c.Ack())

    # --- receiving ----------------------------------------------------------------

    def recv(self, deadline: float) -> Received | None:
        """The next valid frame before `deadline`; refused runs are noted in `errors`."""
        while True:
            item = self.wire.next(deadline)
            if item is None:
                return None
            t, got = item
            if isinstance(got, FrameError):
                self.errors.append(str(got))
                continue
            received = Received(t, got)
            self.last_rx = t
            if 0x10 <= got.type <= 0x3F:
                self.seen.append(received)
                if got.seq == self.expected_event:  # §3.4: deliver in order, never twice
                    self.events.append(received)
                    self.expected_event = seq_add(self.expected_event, 1)
            return received

    def expect(
        self, what: str, match: Callable[[Received], bool], within: float, *, since: float = 0.0
    ) -> Received:
        """The first frame that matches within `within` s (late by the page's tolerance)."""
        start = since or time.monotonic()
        deadline = start + late_limit(within)
        while True:
            got = self.recv(deadline)
            if got is None:
                raise Failed(f"expected {what} within {within * 1000:.0f} ms: nothing came")
            if match(got):
                return got

    def collect(self, duration: float) -> list[Received]:
        """Every valid frame that arrives in the next `duration` seconds."""
        deadline = time.monotonic() + duration
        out: list[Received] = []
        while (got := self.recv(deadline)) is not None:
            out.append(got)
        return out

    def quiet(self, duration: float, what: str, bad: Callable[[Received], bool]) -> None:
        """Fail if a frame that `bad` matches arrives within `duration`."""
        for got in self.collect(duration):
            if bad(got):
                raise Failed(f"{what}: got {describe_frame(got.frame)}")

    # --- steps --------------------------------------------------------------------

    def sync(self) -> Received:
        """Flush, SYNC, and the HELLO the device must answer at once."""
        self.wire.drain()
        self.wire.send_raw(b"\x00")
        sent = self.send(c.Sync())
        return self.expect("HELLO after SYNC", is_type(c.Hello), AT_ONCE + 0.05, since=sent)

    def welcome(self, hello: Received, *, next_command: int = 1, ack: int | None = None) -> None:
        """WELCOME(accepted) as the host that stored nothing of this boot yet (or up to `ack`)."""
        message = hello.message()
        assert isinstance(message, c.Hello)
        self.boot_id = message.boot_id
        stored = (message.next_seq - 1) % SEQ_MOD if ack is None else ack
        self.expected_event = seq_add(stored, 1)
        self.acked = stored
        self.next_command = next_command % SEQ_MOD
        self.send(c.Welcome(1, c.HelloResult.ACCEPTED, self.next_command), seq=0, ack=stored)

    def handshake(self, *, next_command: int = 1) -> c.Hello:
        """SYNC → HELLO → WELCOME, then the device's resends drained and acknowledged."""
        hello = self.sync()
        self.welcome(hello, next_command=next_command)
        self.settle()
        message = hello.message()
        assert isinstance(message, c.Hello)
        return message

    def settle(self, duration: float = 0.05) -> None:
        """Take in-order events for `duration` (resends after WELCOME), then acknowledge them."""
        self.collect(duration)
        self.ack_events()

    def request_state(self) -> tuple[int, Received]:
        """REQUEST_STATE acknowledged at once; returns its number and the STATE event."""
        seq, sent = self.command(c.RequestState())
        self.expect_ack(seq, sent)
        return seq, self.expect_state(sent)

    def expect_state(self, since: float) -> Received:
        """The STATE answering a REQUEST_STATE sent at `since`, in order (it may have come
        already, carrying the command's ack: §3.3 lets any frame acknowledge)."""
        for got in self.events:
            if got.t >= since and got.type == c.State.TYPE:
                return got
        return self.expect("STATE answering REQUEST_STATE", is_type(c.State), ANSWER, since=since)

    def expect_ack(self, seq: int, sent: float) -> Received:
        """Any frame whose `ack` covers command `seq`, within the ACK delay (§3.3)."""
        return self.expect(
            f"ack of command {seq} (ACK or any frame with ack ≥ {seq})",
            lambda r: seq_diff(r.frame.ack, seq) >= 0,
            AT_ONCE,
            since=sent,
        )


def is_type(cls: type[Message]) -> Callable[[Received], bool]:
    return lambda r: r.type == cls.TYPE


def nak_for(expected: int) -> Callable[[Received], bool]:
    def match(r: Received) -> bool:
        if r.type != c.Nak.TYPE:
            return False
        message = r.message()
        return isinstance(message, c.Nak) and message.expected == expected

    return match
