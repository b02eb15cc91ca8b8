"""A scripted host: the page's host side, with expectations that fail loudly.

Two parts. The *link* runs on its own thread for the whole suite, as a host must
(§3.3, §3.8): it reads the wire, acknowledges every in-order event the moment it
arrives, re-acknowledges duplicates, NAKs a gap, answers HELLO with WELCOME at once
and resends its unacknowledged commands after it, and sends HEARTBEAT after 1 s of
silence. A device that keeps producing events (a table in play) is therefore never
left with a full window or queue because a check is busy waiting for something else.

The *checks* only send and wait: every valid frame from the device is also put on a
queue, and `expect`, `collect` and `quiet` take from it. A check that needs the host
to misbehave says so for a while: `hold()` withholds acks (the retransmission, window
and NAK checks), `silence()` makes the host send nothing at all (link loss),
`answering = False` leaves HELLOs to the check (the handshake, reset and version checks).
A wrong or missing answer raises `Failed` naming the rule.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from firmware_bridge.conformance.wire import Wire, describe_frame
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import Message, from_frame, to_frame
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import SEQ_MOD, Frame, seq_diff

# docs/protocol.md §3.9 "Tolerance": late by 10 % + 30 ms, early by 10 % + 5 ms.
LATE_FRACTION, LATE_SLACK = 0.10, 0.030
EARLY_FRACTION, EARLY_SLACK = 0.10, 0.005
AT_ONCE = 0.010  # "at once" and the ACK delay: 10 ms (§3.3)
ANSWER = 1.0  # a STATE answers REQUEST_STATE within 1 s (§6.12)
HEARTBEAT = 1.0  # §3.7: a side that sent nothing for 1 s sends HEARTBEAT
HELLO_REPEAT = 0.5  # §3.8: HELLO every 500 ms until WELCOME; a full queue's at most as often
NAK_INTERVAL = 0.05  # §3.4: one NAK per expected value per 50 ms
SEQUENCED = range(0x10, 0x80)  # events and commands, known or not (§3.6)
LINK_TYPES = (c.Ack.TYPE, c.Nak.TYPE, c.Heartbeat.TYPE)  # their ack counts (§3.3)


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
    n: int = 0  # arrival order: the link numbers every valid frame it reads

    @property
    def type(self) -> int:
        return self.frame.type

    @property
    def sequenced(self) -> bool:
        return self.frame.type in SEQUENCED

    def message(self) -> Message:
        try:
            return from_frame(self.frame)
        except PayloadError as exc:
            raise Failed(f"device sent a frame the catalogue refuses: {exc}") from None


@dataclass(frozen=True, slots=True)
class Loss:
    """Events a HELLO announced discarded (§3.8): `count` numbers from `first`."""

    first: int
    count: int


@dataclass
class ScriptedHost:
    """The host's numbers and its always-on link; one for a whole run of the suite."""

    wire: Wire
    next_command: int = 1
    expected_event: int = 1
    acked: int = 0  # the `ack` this host sends: what it chose to acknowledge
    boot_id: int | None = None  # None: no session (the next HELLO starts one)
    events: list[Received] = field(default_factory=list)  # delivered in order
    seen: list[Received] = field(default_factory=list)  # every sequenced frame, resends too
    errors: list[str] = field(default_factory=list)  # runs that are not frames
    lost: list[Loss] = field(default_factory=list)  # announced by HELLO (§3.8)
    hellos: list[Received] = field(default_factory=list)  # the HELLOs the link answered
    notes: list[str] = field(default_factory=list)  # the check's remarks on a pass
    last_rx: float = 0.0
    last_ack_at: float = 0.0  # when the host last sent a frame whose ack released events
    held_from: int = 0  # `Received.n` of the first frame after the last `hold()`
    # what the link does on its own (a check changes it for a while)
    acking: bool = True
    answering: bool = True
    silent: bool = False
    # measured: how long events waited for their ack, HELLOs for their WELCOME
    ack_delays: list[float] = field(default_factory=list)
    welcome_delays: list[float] = field(default_factory=list)
    _outstanding: dict[int, Message] = field(default_factory=dict)  # commands, oldest first
    _inbox: queue.Queue[Received] = field(default_factory=queue.Queue)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _nak_at: tuple[int, float] = (-1, float("-inf"))
    _started: float = field(default_factory=time.monotonic)
    _count: int = 0

    # --- the always-on link ---------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="link-test host", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2.0)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                runs = self.wire.read()
            except Exception as exc:  # the port went away: nothing more to read
                self.errors.append(f"port: {exc}")
                return
            with self._lock:
                self._take(runs)
                self._beat()

    def _take(self, runs: list[tuple[float, bytes, Frame | FrameError]]) -> None:
        ack_due: float | None = None  # arrival of the oldest frame waiting for an ack
        nak_due = False
        for t, _, item in runs:
            if isinstance(item, FrameError):
                self.errors.append(str(item))
                continue
            self._count += 1
            got = Received(t, item, self._count)
            self.last_rx = t
            if got.sequenced:
                self.seen.append(got)
                if self.boot_id is not None:
                    if item.type < 0x40:  # an event: its ack counts (§3.3)
                        self._release_commands(item.ack)
                    d = seq_diff(item.seq, self.expected_event)
                    if d == 0:  # §3.4: deliver in order, never twice
                        self.events.append(got)
                        self.expected_event = seq_add(self.expected_event, 1)
                    if d <= 0 and ack_due is None:
                        ack_due = t
                    nak_due = nak_due or d > 0
            elif item.type == c.Hello.TYPE:
                if self.answering and not self.silent:
                    self._answer(got)
            elif item.type in LINK_TYPES and self.boot_id is not None:
                self._release_commands(item.ack)
            self._inbox.put(got)
        if not self.acking or self.silent:
            return
        if ack_due is not None:
            self.acked = seq_add(self.expected_event, -1)
            self.ack_delays.append(self._send(c.Ack()) - ack_due)
            self.last_ack_at = self.wire.last_tx
        if nak_due:
            expected, at = self._nak_at
            now = time.monotonic()
            if expected != self.expected_event or now - at >= NAK_INTERVAL:
                self._nak_at = (self.expected_event, now)
                self.acked = seq_add(self.expected_event, -1)
                self._send(c.Nak(self.expected_event))

    def _beat(self) -> None:
        """§3.7: HEARTBEAT when the host sent nothing for 1 s (not while silent)."""
        if self.silent or self.boot_id is None:
            return
        now = time.monotonic()
        if now - self.wire.last_tx >= HEARTBEAT:
            self._send(c.Heartbeat(int((now - self._started) * 1000) % 2**32))

    def _answer(self, got: Received) -> None:
        """§3.8, the host on HELLO: WELCOME at once, then its unacknowledged commands."""
        try:
            hello = from_frame(got.frame)
        except PayloadError:
            return
        if not isinstance(hello, c.Hello) or hello.protocol_version != 1:
            return
        if hello.boot_id == self.boot_id:
            self._release_commands(got.frame.ack)  # they ran; the rest did not (§3.3)
            gap = seq_diff(hello.next_seq, self.expected_event)
            if gap > 0:  # the device discarded events the host never got (§3.8)
                self.lost.append(Loss(self.expected_event, gap))
                self.expected_event = hello.next_seq
            first = next(iter(self._outstanding), self.next_command)
        else:  # a new session (or a reset): numbering from HELLO's next_seq
            self.boot_id = hello.boot_id
            self.expected_event = hello.next_seq
            self._outstanding.clear()
            first = self.next_command
        self.acked = seq_add(self.expected_event, -1)
        sent = self._send(c.Welcome(1, c.HelloResult.ACCEPTED, first), seq=0)
        self.welcome_delays.append(sent - got.t)
        self.hellos.append(got)
        self.last_ack_at = sent
        for seq, message in self._outstanding.items():
            self.wire.send(to_frame(message, seq, self.acked))

    def _release_commands(self, ack: int) -> None:
        if seq_diff(ack, seq_add(self.next_command, -1)) > 0:
            return  # beyond what was sent: stale or forged (§3.5)
        for seq in [s for s in self._outstanding if seq_diff(s, ack) <= 0]:
            del self._outstanding[seq]

    def _send(self, message: Message, *, seq: int | None = None, ack: int | None = None) -> float:
        seq = seq_add(self.next_command, -1) if seq is None else seq
        return self.wire.send(to_frame(message, seq, self.acked if ack is None else ack))

    # --- what a check changes for a while -------------------------------------------

    def begin(self) -> None:
        """A new check: the link as a host runs it, the check's queue empty."""
        with self._lock:
            self.acking, self.answering, self.silent = True, True, False
            self.errors.clear()
            self.notes.clear()
            self.drain()
            self._ack_now()

    def hold(self) -> int:
        """Withhold acks from now on; returns the last event acknowledged (all received so far)."""
        with self._lock:
            self._ack_now()
            self.acking = False
            self.held_from = self._count + 1
            return self.acked

    def release(self) -> None:
        """Acknowledge again, at once everything delivered meanwhile."""
        with self._lock:
            self.acking, self.silent = True, False
            self._ack_now()

    def silence(self) -> None:
        """Send nothing at all, answer nothing (the link is down for the device)."""
        with self._lock:
            self.acking, self.answering, self.silent = False, False, True

    def _ack_now(self) -> None:
        if self.boot_id is not None and self.acked != seq_add(self.expected_event, -1):
            self.acked = seq_add(self.expected_event, -1)
            self._send(c.Ack())
            self.last_ack_at = self.wire.last_tx

    def note(self, text: str) -> None:
        """A remark printed with a pass: what the check could not see on this device."""
        self.notes.append(text)

    def new_session(self, next_command: int = 1) -> None:
        """Forget the session: the next HELLO starts one with commands from `next_command`."""
        with self._lock:
            self.boot_id = None
            self.next_command = next_command % SEQ_MOD
            self._outstanding.clear()

    # --- sending ----------------------------------------------------------------------

    def send(self, message: Message, *, seq: int | None = None, ack: int | None = None) -> float:
        """A link-control frame; `seq` defaults to the last command number sent (§3.2)."""
        with self._lock:
            return self._send(message, seq=seq, ack=ack)

    def command(self, message: Message, *, seq: int | None = None) -> tuple[int, float]:
        """A command with the next number (or `seq`, for duplicates and gaps: not resent)."""
        with self._lock:
            if seq is None:
                seq = self.next_command
                self.next_command = seq_add(seq, 1)
                self._outstanding[seq] = message
            return seq, self.wire.send(to_frame(message, seq, self.acked))

    def send_frame(self, frame: Frame) -> float:
        with self._lock:
            return self.wire.send(frame)

    def send_raw(self, data: bytes, note: str) -> float:
        with self._lock:
            return self.wire.send_raw(data, note=note)

    def ack_events(self, upto: int) -> float:
        """ACK up to `upto` (while holding acks: a partial acknowledgement)."""
        with self._lock:
            self.acked = upto
            sent = self._send(c.Ack())
            self.last_ack_at = sent
            return sent

    # --- receiving --------------------------------------------------------------------

    def drain(self) -> None:
        """Forget the frames the check has not taken (the link has handled them)."""
        while True:
            try:
                self._inbox.get_nowait()
            except queue.Empty:
                return

    def recv(self, deadline: float) -> Received | None:
        """The next valid frame before `deadline`."""
        left = deadline - time.monotonic()
        try:
            return self._inbox.get(timeout=left) if left > 0 else self._inbox.get_nowait()
        except queue.Empty:
            return None

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

    def collect(
        self, duration: float, *, until: Callable[[Received], bool] | None = None
    ) -> list[Received]:
        """Every valid frame arriving in the next `duration` s (up to the first `until` matches)."""
        deadline = time.monotonic() + duration
        out: list[Received] = []
        while (got := self.recv(deadline)) is not None:
            out.append(got)
            if until is not None and until(got):
                break
        return out

    def quiet(self, duration: float, what: str, bad: Callable[[Received], bool]) -> None:
        """Fail if a frame that `bad` matches arrives within `duration`."""
        for got in self.collect(duration):
            if bad(got):
                raise Failed(f"{what}: got {describe_frame(got.frame)}")

    # --- steps ------------------------------------------------------------------------

    def sync(self) -> Received:
        """Flush, SYNC, and the HELLO the device must answer at once (§3.8)."""
        self.drain()
        with self._lock:
            self.wire.send_raw(b"\x00")
            sent = self._send(c.Sync())
        return self.expect("HELLO after SYNC", is_type(c.Hello), AT_ONCE, since=sent)

    def handshake(self, *, next_command: int = 1) -> Received:
        """A new session: SYNC → HELLO → WELCOME (the link answers), the resends taken in."""
        self.new_session(next_command)
        self.answering = True
        hello = self.sync()
        self.collect(0.05)
        return hello

    def welcome(self, hello: Received, *, next_command: int = 1, ack: int | None = None) -> float:
        """WELCOME(accepted) by the check: as a host that stored this boot up to `ack`
        (default: nothing yet, `next_seq − 1`); returns when it was sent."""
        message = hello.message()
        assert isinstance(message, c.Hello)
        with self._lock:
            self.boot_id = message.boot_id
            stored = seq_add(message.next_seq, -1) if ack is None else ack
            self.expected_event = seq_add(stored, 1)
            self.acked = stored
            self.next_command = next_command % SEQ_MOD
            self._outstanding.clear()
            sent = self._send(c.Welcome(1, c.HelloResult.ACCEPTED, self.next_command), seq=0)
            self.last_ack_at = sent
            return sent

    def request_state(self) -> tuple[int, Received]:
        """REQUEST_STATE acknowledged at once; returns its number and the STATE event."""
        seq, sent = self.command(c.RequestState())
        self.expect_ack(seq, sent)
        return seq, self.expect_state(sent)

    def expect_state(self, since: float) -> Received:
        """The STATE answering a REQUEST_STATE sent at `since`, delivered in order (it may
        have come already, carrying the command's ack: §3.3 lets any frame acknowledge)."""
        return self.expect_event("STATE answering REQUEST_STATE", is_type(c.State), since)

    def expect_event(
        self, what: str, match: Callable[[Received], bool], since: float, within: float = ANSWER
    ) -> Received:
        """The first event delivered in order after `since` that matches, within `within`."""
        deadline = since + late_limit(within)
        while True:
            for got in list(self.events):
                if got.t >= since and match(got):
                    return got
            if self.recv(deadline) is None:
                raise Failed(f"expected {what} within {within * 1000:.0f} ms: nothing came")

    def expect_ack(self, seq: int, sent: float, within: float = AT_ONCE) -> Received:
        """Any frame whose `ack` covers command `seq`, within the ACK delay (§3.3).

        A device whose queue filled meanwhile ended its session (§3.8): it delivers no
        command until welcomed again, and its HELLO may wait out the 500 ms repeat. Then
        the link's WELCOME and resend come first, and the ack is due at once after them."""

        def covers(r: Received) -> bool:
            return r.type != c.Hello.TYPE and seq_diff(r.frame.ack, seq) >= 0

        what = f"ack of command {seq} (ACK or any frame with ack ≥ {seq})"
        try:
            return self.expect(what, covers, within, since=sent)
        except Failed:
            if not self.answering:
                raise
            hello = self.hello_since(sent)
            if hello is None:
                raise
        return self.expect(f"{what} after the full queue's HELLO", covers, AT_ONCE, since=hello.t)

    def hello_since(self, since: float) -> Received | None:
        """A HELLO of this session's boot after `since`, come or due within the HELLO repeat
        (a full queue's, §3.8), or None."""
        boot = self.boot_id

        def ours(r: Received) -> bool:
            if r.type != c.Hello.TYPE or r.t < since:
                return False
            try:
                message = from_frame(r.frame)
            except PayloadError:
                return False
            return isinstance(message, c.Hello) and message.boot_id == boot

        for got in list(self.hellos):
            if ours(got):
                return got
        try:
            return self.expect("HELLO", ours, HELLO_REPEAT, since=since)
        except Failed:
            return None

    def first_sending(self, seq: int) -> Received:
        """The first frame numbered `seq` since the last `hold()` (waiting for it if need be)."""

        def match(r: Received) -> bool:
            return r.sequenced and r.frame.seq == seq and r.n >= self.held_from

        for got in list(self.seen):
            if match(got):
                return got
        return self.expect(f"event {seq}", match, ANSWER)

    def since_hold(self) -> list[Received]:
        """Every sequenced frame since the last `hold()`, in order."""
        return [r for r in list(self.seen) if r.n >= self.held_from]


def is_type(cls: type[Message]) -> Callable[[Received], bool]:
    return lambda r: r.type == cls.TYPE


def nak_for(expected: int) -> Callable[[Received], bool]:
    def match(r: Received) -> bool:
        if r.type != c.Nak.TYPE:
            return False
        message = r.message()
        return isinstance(message, c.Nak) and message.expected == expected

    return match
