"""Go-back-N reliability for one direction of the link (docs/protocol.md §3.2-§3.5).

Pure: the caller passes the clock in and writes the frames out, so the host bridge
and a device simulator run the very same rules.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from enum import Enum

from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.frame import SEQ_MOD, seq_diff

WINDOW = 8
RTO_INITIAL = 0.1
RTO_MAX = 2.0
NAK_INTERVAL = 0.05


@dataclass(frozen=True, slots=True)
class Timing:
    """The link's timing constants (§3.9); tests may shorten them, the wire does not care."""

    window: int = WINDOW
    rto_initial: float = RTO_INITIAL
    rto_max: float = RTO_MAX
    nak_interval: float = NAK_INTERVAL
    heartbeat: float = 1.0
    silence: float = 3.5
    hello_repeat: float = 0.5
    sync_repeat: float = 1.0
    time_sync: float = 3600.0  # host → device TIME_SYNC after WELCOME and this often


class Verdict(Enum):
    DELIVER = "deliver"
    DUPLICATE = "duplicate"
    GAP = "gap"


class Sender:
    """Numbers, windows and retransmits the sequenced messages of one side."""

    def __init__(self, next_seq: int = 1, timing: Timing | None = None) -> None:
        self.timing = timing or Timing()
        self.next_seq = next_seq % SEQ_MOD
        self.waiting: deque[Message] = deque()
        self.outstanding: deque[tuple[int, Message]] = deque()
        self.rto = self.timing.rto_initial
        self.timer = 0.0
        self.retransmits = 0
        self._last_sent = (self.next_seq - 1) % SEQ_MOD

    @property
    def last_sent(self) -> int:
        """The highest number actually transmitted (§3.2: `seq` of link frames; §3.5: the bound
        of a valid `ack`). A number taken by a message discarded unsent is not in it, so it
        can trail `next_seq - 1`."""
        return self._last_sent

    @property
    def oldest_unacked(self) -> int:
        """HELLO's `next_seq`: the first number the peer has not acknowledged."""
        return self.outstanding[0][0] if self.outstanding else self.next_seq

    def push(self, message: Message) -> None:
        """Queue a sequenced message; `poll` numbers and sends it when the window allows."""
        self.waiting.append(message)

    def reset(self, next_seq: int) -> list[Message]:
        """Start numbering afresh; returns the messages dropped unacknowledged."""
        dropped = [m for _, m in self.outstanding] + list(self.waiting)
        self.outstanding.clear()
        self.waiting.clear()
        self.next_seq = next_seq % SEQ_MOD
        self._last_sent = (self.next_seq - 1) % SEQ_MOD
        self.rto = self.timing.rto_initial
        return dropped

    def on_ack(self, ack: int, now: float) -> list[tuple[int, Message]]:
        """Release everything up to `ack`; returns what was released (oldest first)."""
        released: list[tuple[int, Message]] = []
        if self.outstanding and seq_diff(ack, self.last_sent) > 0:
            return released  # acks a number never sent: stale or corrupt, ignore
        while self.outstanding and seq_diff(self.outstanding[0][0], ack) <= 0:
            released.append(self.outstanding.popleft())
        if released:
            self.rto = self.timing.rto_initial
            self.timer = now
        return released

    def on_nak(self, expected: int, now: float) -> list[tuple[int, Message]]:
        """Release before `expected`, then resend the rest at once, every time (§3.5).

        The resend restarts the timer and leaves RTO alone: only a timeout doubles it.
        The receiver's one NAK per `expected` per 50 ms is the only brake (bench/nak_guard.py).
        """
        self.on_ack((expected - 1) % SEQ_MOD, now)
        return self.resend_all(now)

    def resend_all(self, now: float) -> list[tuple[int, Message]]:
        """Everything outstanding, oldest first (after a WELCOME)."""
        return self._resend_all(now) if self.outstanding else []

    def poll(self, now: float) -> list[tuple[int, Message]]:
        """Frames due now: a go-back-N resend on timeout, then new ones the window admits."""
        out: list[tuple[int, Message]] = []
        if self.outstanding and now - self.timer >= self.rto:
            out = self._resend_all(now)
            self.rto = min(self.rto * 2, self.timing.rto_max)
        while self.waiting and len(self.outstanding) < self.timing.window:
            item = (self.next_seq, self.waiting.popleft())
            if not self.outstanding:
                self.timer = now
            self.outstanding.append(item)
            self._last_sent = self.next_seq
            self.next_seq = (self.next_seq + 1) % SEQ_MOD
            out.append(item)
        return out

    def _resend_all(self, now: float) -> list[tuple[int, Message]]:
        self.timer = now
        self.retransmits += len(self.outstanding)
        return list(self.outstanding)


class Receiver:
    """In-order delivery of the peer's sequenced messages; knows duplicates and gaps."""

    def __init__(self, expected: int = 1, timing: Timing | None = None) -> None:
        self.timing = timing or Timing()
        self.expected = expected % SEQ_MOD
        self._nak_for = -1
        self._nak_at = float("-inf")

    @property
    def last(self) -> int:
        """The `ack` to send: the last number delivered in order."""
        return (self.expected - 1) % SEQ_MOD

    def classify(self, seq: int) -> Verdict:
        d = seq_diff(seq, self.expected)
        if d == 0:
            return Verdict.DELIVER
        return Verdict.DUPLICATE if d < 0 else Verdict.GAP

    def advance(self) -> None:
        self.expected = (self.expected + 1) % SEQ_MOD

    def behind(self, peer_last_sent: int) -> bool:
        """True when the peer says it sent more than we delivered (a lost tail)."""
        return seq_diff(peer_last_sent, self.last) > 0

    def nak_due(self, now: float) -> bool:
        """At most one NAK per `expected` value per nak_interval (§3.4)."""
        if self._nak_for == self.expected and now - self._nak_at < self.timing.nak_interval:
            return False
        self._nak_for, self._nak_at = self.expected, now
        return True
