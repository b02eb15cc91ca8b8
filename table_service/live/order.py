"""Every table's events in order, exactly once: the bookkeeping, sans-I/O (no asyncio, no
MQTT; the caller passes the time). consumer.py wraps it in an MQTT client.

It takes events (or raw payloads) and returns what is now deliverable: per table, boot
by boot, each boot in seq order from 1, an event after a hole held back until the hole
is filled, or given up after `gap_timeout` and reported as a `Gap` (the mirror records a
`gap` fault). The stream is not trusted (the broker may have no ACL):

- one payload never raises, whatever it holds, and costs at most `MAX_PAYLOAD` to read;
- memory follows nothing but a hole's two ends and a bounded count of held events
  (`max_pending` per table behind a hole; beyond that an arrival is `deferred`, and
  the hole machinery asks the bridge, whose outbox is durable, to replay it);
- a table is followed only if `may_follow` says so (else `unfollowed`, remembered in
  a bounded map of tables waiting);
- a newer boot takes over a table only once its seq 1 is held and the current boot has
  been quiet for `reorder_window` since the newer one appeared (a reboot ends the old
  boot; a stream still advancing was not rebooted); one that never earns it within
  `gap_timeout` is dropped and reported once as a `SuspectBoot`;
- a redelivered key whose content differs from what was delivered is a `conflict`,
  reported once per key;
- replay requests are coalesced: one outstanding per table, none while its replay is
  making progress, at most one per `reorder_window`, backing off when nothing comes.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final, Literal

from pydantic import ValidationError

from firmware_bridge.messages import MAX_SEQ, Event

GAP_TIMEOUT = 10.0  # seconds a hole may block delivery before it is given up as a gap
REORDER_WINDOW = 1.0  # seconds a hole may stay open before a replay is asked
REPLAY_BACKOFF_MAX = 8.0  # longest wait between replay requests that bring nothing
MAX_PENDING: Final = 5_000  # events held per table behind a hole; beyond: deferred
MAX_CANDIDATE: Final = 256  # events held per newer boot not (yet) taking over
MAX_CANDIDATES: Final = 8  # newer boots waiting per table; more: refused as suspect
MAX_CLOSED: Final = 16  # boots taken over kept per table, to tell late from new
MAX_WAITING: Final = 256  # unfollowed tables remembered (the oldest heard forgotten)
MAX_DIGESTS: Final = 4_096  # delivered events per table whose content is kept to compare
MAX_SKIPPED: Final = 256  # given-up ranges kept per boot
MAX_SUSPECTS: Final = 64  # suspect boots per table remembered as reported
MAX_PAYLOAD: Final = 65_536  # bytes; an event is a few hundred
ERROR_MAX: Final = 200  # characters of a refusal's reason (it may quote the input)
_ABOVE_ANY: Final = 2**64  # sorts (seq, _ABOVE_ANY) after every range starting at seq

Point = tuple[int, int]  # (boot_id, seq): replay every event after it


@dataclass(frozen=True)
class Gap:
    """Seqs `first`..`last` of a boot that will never be delivered: record a `gap` fault.

    `late` is True when the gap was found only because its events arrived after the
    stream had moved on to a later boot (the old boot's tail came by replay too late).
    """

    table: str
    boot_id: int
    first: int
    last: int
    late: bool = False


@dataclass(frozen=True)
class SuspectBoot:
    """A newer boot that never earned the table within `gap_timeout`: its events were
    dropped (record a fault; a forged or stray stream, not a reboot). `first_seq` is the
    lowest seq heard of it, `count` how many of its events arrived."""

    table: str
    boot_id: int
    first_seq: int
    count: int
    reason: str


@dataclass(frozen=True)
class Conflict:
    """A key delivered (or held) once arrived again with other content: the first one
    stands (it may be the forgery); record a `conflict` fault with both."""

    table: str
    boot_id: int
    seq: int
    delivered: Event
    arrived: Event


@dataclass(frozen=True)
class Hole:
    """Seqs `first`..`last` of a boot, missing, that hold back the table's delivery."""

    table: str
    boot_id: int
    first: int
    last: int
    since: float  # when it last blocked delivery without progress (the caller's clock)


@dataclass
class WaitingTable:
    """A table heard but not followed (`may_follow` said no): for "tables waiting"."""

    table: str
    count: int  # its events refused
    boot_id: int  # of the latest one
    seq: int
    last_at: float


Delivery = Event | Gap | SuspectBoot
Status = Literal[
    "new", "duplicate", "late", "invalid", "deferred", "unfollowed", "conflict", "suspect"
]


@dataclass(frozen=True)
class Step:
    """What one arrival did: its status, and what became deliverable, in order.

    `new`: first time seen (held or delivered); `duplicate`: a redelivery, dropped;
    `late`: first seen after its place was given up, dropped; `invalid`: refused;
    `deferred`: new but not held (paused, or too many held): a replay brings it again;
    `unfollowed`: of a table not followed; `conflict`: a key seen with other content
    (`conflict` set the first time for the key); `suspect`: of a newer boot not held
    (too many waiting).
    """

    status: Status
    event: Event | None = None
    out: tuple[Delivery, ...] = ()
    error: str | None = None
    conflict: Conflict | None = None


@dataclass
class StreamCounts:
    received: int = 0  # valid events, redeliveries included
    delivered: int = 0
    duplicates: int = 0
    late: int = 0
    invalid: int = 0
    gaps: int = 0
    deferred: int = 0
    unfollowed: int = 0
    conflicts: int = 0
    suspect: int = 0  # events of newer boots refused or dropped
    suspect_boots: int = 0


def digest(event: Event) -> bytes:
    """What a redelivery must match: the body and ts, as canonical JSON."""
    return hashlib.blake2b(
        event.model_dump_json(include={"ts", "body"}).encode(), digest_size=16
    ).digest()


@dataclass
class _Boot:
    boot_id: int
    first_seen: float = float("-inf")
    passed: int = 0  # the highest seq delivered or given up
    pending: dict[int, Event] = field(default_factory=dict)  # held behind a hole
    beyond: int = 0  # the highest seq known to exist (arrived, perhaps deferred)
    skipped: list[tuple[int, int]] = field(default_factory=list)  # ranges given up
    last_new: float = float("-inf")  # when a new event of it last arrived
    clock: float = float("-inf")  # a newer boot's: since when it could have taken over
    count: int = 0  # its events arrived
    lowest: int = MAX_SEQ
    conflicted: set[int] = field(default_factory=set)  # held seqs already reported

    def blocked(self) -> bool:
        return bool(self.pending) or self.beyond > self.passed

    def was_skipped(self, seq: int) -> bool:
        at = bisect_right(self.skipped, (seq, _ABOVE_ANY)) - 1
        return at >= 0 and self.skipped[at][0] <= seq <= self.skipped[at][1]

    def skip_to(self, last: int) -> tuple[int, int]:
        gone = (self.passed + 1, last)
        if self.skipped and self.skipped[-1][1] == self.passed:
            self.skipped[-1] = (self.skipped[-1][0], last)  # adjacent: one range
        else:
            self.skipped.append(gone)
            del self.skipped[:-MAX_SKIPPED]
        self.passed = last
        return gone


# A delivered event as kept to compare a redelivery with: the event as JSON (its digest
# is taken only when a redelivery comes, rare beside the deliveries; it was a second
# serialization of every event), whether a conflict on it was reported. A plain tuple of
# bytes and a bool, which the garbage collector stops tracking: kept as an `Event`, 4,096
# a table made a million tracked objects at 50 tables, and every full collection walked
# them (up to 0.4 s, a pause of the whole service).
_Delivered = tuple[bytes, bool]


@dataclass
class TableStream:
    """One table's boots and how far delivery has come."""

    name: str
    cur: _Boot | None = None  # the boot being delivered
    candidates: dict[int, _Boot] = field(default_factory=dict)  # newer boots, arrival order
    closed: OrderedDict[int, _Boot] = field(default_factory=OrderedDict)  # taken over
    last: Point | None = None  # the last event delivered (boot_id, seq)
    hole_since: float | None = None
    hold_boots_until: float = float("-inf")
    delivered_at: float = float("-inf")  # when an event last came out
    asked: Point | None = None  # the point of the last replay asked
    asked_at: float = float("-inf")
    ask_every: float = REORDER_WINDOW
    owed: bool = False  # a replay is to be asked as soon as the limiter lets it
    deferred: bool = False  # something was deferred while paused
    digests: OrderedDict[Point, _Delivered] = field(default_factory=OrderedDict)
    suspects: OrderedDict[int, None] = field(default_factory=OrderedDict)  # reported
    max_digests: int = MAX_DIGESTS

    def release(self, now: float, reorder_window: float) -> list[Event]:
        """Deliver what follows the delivery point with no hole before it, boot by boot."""
        out: list[Event] = []
        while (boot := self.cur) is not None:
            while (event := boot.pending.pop(boot.passed + 1, None)) is not None:
                boot.passed += 1
                self.last = (boot.boot_id, boot.passed)
                self._remember(event, boot.passed in boot.conflicted)
                boot.conflicted.discard(boot.passed)
                out.append(event)
            if boot.blocked() or now < self.hold_boots_until:
                for waiting in self.candidates.values():
                    waiting.clock = max(waiting.clock, now)
                break
            successor = self._successor(boot, now, reorder_window)
            if successor is None:
                break
            del self.candidates[successor.boot_id]
            self.closed[boot.boot_id] = boot
            while len(self.closed) > MAX_CLOSED:
                self.closed.popitem(last=False)
            self.cur = successor
        if out:
            self.delivered_at = now
        boot = self.cur
        if boot is None or not boot.blocked():
            self.hole_since = None
        elif self.hole_since is None or out:
            self.hole_since = now  # a hole, new or left after progress: its clock starts
        return out

    def _successor(self, boot: _Boot, now: float, reorder_window: float) -> _Boot | None:
        """The first newer boot with its seq 1 held, once the current one is quiet."""
        for waiting in self.candidates.values():
            quiet_from = max(waiting.first_seen, boot.last_new)
            if 1 in waiting.pending and now - quiet_from >= reorder_window:
                return waiting
        return None

    def _remember(self, event: Event, reported: bool) -> None:
        self.digests[(event.boot_id, event.seq)] = (event.model_dump_json().encode(), reported)
        while len(self.digests) > self.max_digests:
            self.digests.popitem(last=False)

    def hole(self) -> Hole | None:
        """The current boot's blocking hole, if it has one."""
        boot = self.cur
        if boot is None or not boot.blocked() or self.hole_since is None:
            return None
        last = min(boot.pending) - 1 if boot.pending else boot.beyond
        return Hole(self.name, boot.boot_id, boot.passed + 1, last, self.hole_since)

    def lead_hole(self) -> Hole | None:
        """A newer boot's missing start (it cannot take over without its seq 1)."""
        if self.cur is not None and self.cur.blocked():
            return None
        for boot in self.candidates.values():
            if 1 not in boot.pending:
                last = min(boot.pending) - 1 if boot.pending else boot.beyond
                return Hole(self.name, boot.boot_id, 1, last, boot.first_seen)
        return None

    def replay_point(self) -> Point | None:
        """Where a replay starts: after the last delivered event, or, when nothing was
        delivered and this is the table's first boot, from that boot's start."""
        if self.last is not None:
            return self.last
        boot = self.cur
        if boot is not None and boot.passed == 0 and not self.closed:
            return (boot.boot_id, 0)
        return None


class StreamOrder:
    """Every table's events in order, exactly once: dedupe, holes, gaps. No I/O.

    Per table, boots are delivered one after another, each in seq order from 1 (a
    controller reboot starts a new boot at 1). A boot is taken over by a newer one once
    it has no hole left, the newer one's seq 1 is held, and it has been quiet for
    `reorder_window`: its tail, if lost, is not knowable from the stream alone (only a
    replay brings it; see `reconnected`).
    """

    def __init__(
        self,
        gap_timeout: float = GAP_TIMEOUT,
        reorder_window: float = REORDER_WINDOW,
        *,
        max_pending: int = MAX_PENDING,
        max_candidate: int = MAX_CANDIDATE,
        max_waiting: int = MAX_WAITING,
        max_digests: int = MAX_DIGESTS,
        may_follow: Callable[[str], bool] | None = None,
    ) -> None:
        self.gap_timeout = gap_timeout
        self.reorder_window = reorder_window
        self.max_pending = max_pending
        self.max_candidate = max_candidate
        self.max_waiting = max_waiting
        self.max_digests = max_digests
        self.may_follow = may_follow
        self.tables: dict[str, TableStream] = {}
        self.waiting: OrderedDict[str, WaitingTable] = OrderedDict()
        self.paused = False
        self.counts = StreamCounts()

    # --- arrivals ------------------------------------------------------------------

    def receive(self, payload: bytes | str, now: float, table: str | None = None) -> Step:
        """Parse one published payload and offer it; a bad one is counted, never raised.

        `table`, when given (from the topic), must be the event's own.
        """
        if len(payload) > MAX_PAYLOAD:
            return self._refuse(f"payload: {len(payload)} bytes, more than {MAX_PAYLOAD}")
        try:
            event = Event.model_validate_json(payload)
        except ValidationError as exc:
            first = exc.errors(include_url=False, include_input=False)[0]
            where = ".".join(str(p) for p in first["loc"]) or "payload"
            return self._refuse(f"{where}: {first['msg']}")
        except ValueError as exc:  # e.g. a str that cannot be encoded
            return self._refuse(f"payload: {exc}")
        if table is not None and event.table != table:
            return self._refuse(f"table: {event.table!r} published under {table!r}")
        return self.offer(event, now)

    def offer(self, event: Event, now: float) -> Step:
        """Take one event; return its status and the deliveries it made possible."""
        if not 1 <= event.seq <= MAX_SEQ:  # the model says so; one built unchecked may not
            return self._refuse(f"seq: {event.seq} (counts from 1 to {MAX_SEQ})")
        stream = self.tables.get(event.table)
        if stream is None:
            if self.may_follow is not None and not self.may_follow(event.table):
                return self._unfollowed(event, now)
            stream = self._stream(event.table)
        self.counts.received += 1
        boot = self._boot_of(stream, event.boot_id, now)
        if boot is None:
            self.counts.suspect += 1
            return Step("suspect", event)
        seq = event.seq
        boot.count += 1
        boot.lowest = min(boot.lowest, seq)
        if seq <= boot.passed:
            if boot.was_skipped(seq):
                self.counts.late += 1
                return Step("late", event)
            return self._redelivered(stream, event)
        held = boot.pending.get(seq)
        if held is not None:
            return self._redelivered_held(stream, boot, held, event)
        if boot.boot_id in stream.closed:  # the table moved on: this can't come in order
            first, last = boot.skip_to(seq)
            self.counts.late += 1
            self.counts.gaps += 1
            return Step("late", event, (Gap(stream.name, boot.boot_id, first, last, late=True),))
        boot.last_new = now
        boot.beyond = max(boot.beyond, seq)
        limit = self.max_pending if boot is stream.cur else self.max_candidate
        crowded = len(boot.pending) >= limit and seq != boot.passed + 1
        if self.paused or crowded:
            stream.deferred |= self.paused
            self.counts.deferred += 1
            return Step("deferred", event)
        boot.pending[seq] = event
        out = stream.release(now, self.reorder_window)
        self.counts.delivered += len(out)
        return Step("new", event, tuple(out))

    def _stream(self, table: str) -> TableStream:
        self.waiting.pop(table, None)
        stream = self.tables[table] = TableStream(
            table, ask_every=self.reorder_window, max_digests=self.max_digests
        )
        return stream

    def _boot_of(self, stream: TableStream, boot_id: int, now: float) -> _Boot | None:
        """The boot of that id; a new one (current, or a candidate) if first seen; None
        when too many candidates wait already."""
        if stream.cur is not None and stream.cur.boot_id == boot_id:
            return stream.cur
        found = stream.candidates.get(boot_id) or stream.closed.get(boot_id)
        if found is not None:
            return found
        boot = _Boot(boot_id, first_seen=now, clock=now)
        if stream.cur is None:
            stream.cur = boot
        elif len(stream.candidates) >= MAX_CANDIDATES:
            return None
        else:
            stream.candidates[boot_id] = boot
        return boot

    def _redelivered(self, stream: TableStream, event: Event) -> Step:
        """A key already delivered: a duplicate, or a conflict if its content differs."""
        key = (event.boot_id, event.seq)
        seen = stream.digests.get(key)
        first = None if seen is None else Event.model_validate_json(seen[0])
        if seen is None or first is None or digest(first) == digest(event):
            self.counts.duplicates += 1
            return Step("duplicate", event)
        delivered, reported = seen
        self.counts.conflicts += 1
        report = None
        if not reported:
            stream.digests[key] = (delivered, True)
            report = Conflict(stream.name, event.boot_id, event.seq, first, event)
        return Step("conflict", event, conflict=report)

    def _redelivered_held(
        self, stream: TableStream, boot: _Boot, held: Event, event: Event
    ) -> Step:
        if digest(held) == digest(event):
            self.counts.duplicates += 1
            return Step("duplicate", event)
        self.counts.conflicts += 1
        report = None
        if event.seq not in boot.conflicted:
            boot.conflicted.add(event.seq)
            report = Conflict(stream.name, event.boot_id, event.seq, held, event)
        return Step("conflict", event, conflict=report)

    def _unfollowed(self, event: Event, now: float) -> Step:
        """Refused, held nowhere: only the table's name and a count, in a bounded map."""
        self.counts.unfollowed += 1
        seen = self.waiting.pop(event.table, None)
        if seen is None:
            seen = WaitingTable(event.table, 0, event.boot_id, event.seq, now)
        seen.count += 1
        seen.boot_id, seen.seq, seen.last_at = event.boot_id, event.seq, now
        self.waiting[event.table] = seen
        while len(self.waiting) > self.max_waiting:
            self.waiting.popitem(last=False)
        return Step("unfollowed", event)

    def _refuse(self, error: str) -> Step:
        self.counts.invalid += 1
        if len(error) > ERROR_MAX:
            error = error[: ERROR_MAX - 1] + "…"
        return Step("invalid", error=error)

    # --- time passing ----------------------------------------------------------------

    def expire(self, now: float) -> list[Delivery]:
        """Give up holes that blocked delivery for `gap_timeout`, and deliver past them.

        Each given-up hole comes out as a `Gap`, in its place in the order; a newer boot
        that could not take over for `gap_timeout` is dropped, a `SuspectBoot`. Also ends
        a boot hold (see `reconnected`) whose time is up. Call it every so often. While
        paused, nothing is delivered.
        """
        out: list[Delivery] = []
        if self.paused:
            return out
        for stream in self.tables.values():
            out += self._expire(stream, now)
        return out

    def give_up(self, table: str, now: float) -> list[Delivery]:
        """Give up the table's holes now, whatever their age (e.g. the bridge answered
        that its history no longer holds them), and deliver past them."""
        stream = self.tables.get(table)
        return [] if stream is None else self._expire(stream, now, force=True)

    def _expire(self, stream: TableStream, now: float, force: bool = False) -> list[Delivery]:
        out: list[Delivery] = list(stream.release(now, self.reorder_window))
        while (hole := stream.hole()) is not None and (
            force or now - hole.since >= self.gap_timeout
        ):
            assert stream.cur is not None
            stream.cur.skip_to(hole.last)
            self.counts.gaps += 1
            out.append(Gap(stream.name, hole.boot_id, hole.first, hole.last))
            out += stream.release(now, self.reorder_window)
        self.counts.delivered += sum(isinstance(d, Event) for d in out)
        for boot in list(stream.candidates.values()):
            if now - boot.clock >= self.gap_timeout:
                suspect = self._drop(stream, boot)
                if suspect is not None:
                    out.append(suspect)
        return out

    def _drop(self, stream: TableStream, boot: _Boot) -> SuspectBoot | None:
        """Forget a newer boot that never earned the table; report it the first time."""
        del stream.candidates[boot.boot_id]
        self.counts.suspect += len(boot.pending)
        if boot.boot_id in stream.suspects:
            return None
        stream.suspects[boot.boot_id] = None
        while len(stream.suspects) > MAX_SUSPECTS:
            stream.suspects.popitem(last=False)
        self.counts.suspect_boots += 1
        if 1 not in boot.pending:
            reason = f"its seq 1 never came (it began at {boot.lowest})"
        else:
            current = stream.cur.boot_id if stream.cur is not None else None
            reason = f"boot {current} kept advancing: it was not rebooted"
        return SuspectBoot(stream.name, boot.boot_id, boot.lowest, boot.count, reason)

    # --- what to ask the bridges -------------------------------------------------------

    def holes(self) -> list[Hole]:
        """Each table's blocking hole (or a newer boot's missing start), if it has one."""
        found = []
        for stream in self.tables.values():
            hole = stream.hole() or stream.lead_hole()
            if hole is not None:
                found.append(hole)
        return found

    def pointer(self, table: str) -> Point | None:
        """The last event of the table delivered, i.e. held with no hole before it."""
        stream = self.tables.get(table)
        return None if stream is None else stream.last

    def due_replays(self, now: float) -> list[tuple[str, Point]]:
        """The tables whose hole outlived the reorder window (or that are owed a replay),
        and the point to replay from.

        One request outstanding per table: none again while its replay makes progress
        (events keep coming out); with no progress, asked again from the same point with
        a doubling interval (a replay queued behind a long backlog is slow, not lost).
        A table with nothing delivered asks for its first boot from the start: after
        (boot, 0).
        """
        due: list[tuple[str, Point]] = []
        for stream in self.tables.values():
            hole = stream.hole() or stream.lead_hole()
            wanted = hole is not None and now - hole.since >= self.reorder_window
            if not (wanted or stream.owed):
                continue
            point = stream.replay_point()
            if point is not None and self._may_ask(stream, point, now, patient=not stream.owed):
                due.append((stream.name, point))
        return due

    def _may_ask(self, stream: TableStream, point: Point, now: float, patient: bool) -> bool:
        """The one per-table limiter of replay requests; True (and noted) when one may go.

        Never two within a reorder window. `patient`: not again from the same or a later
        point while the last one's replay makes progress, or, with none, before its
        (doubling) interval.
        """
        if now - stream.asked_at < self.reorder_window:
            stream.owed |= not patient
            return False
        asked = stream.asked
        earlier = asked is not None and point[0] == asked[0] and point[1] < asked[1]
        if patient and asked is not None and not earlier:
            if stream.delivered_at > stream.asked_at:  # it brought something
                if now - stream.delivered_at < stream.ask_every:
                    return False
                stream.ask_every = self.reorder_window
            elif now - stream.asked_at < stream.ask_every:
                return False
            else:
                stream.ask_every = min(stream.ask_every * 2, REPLAY_BACKOFF_MAX)
        else:
            stream.ask_every = self.reorder_window
        stream.asked, stream.asked_at, stream.owed = point, now, False
        return True

    def reconnected(self, now: float) -> list[tuple[str, Point]]:
        """After a reconnect: what each table should replay from, and hold clocks reset.

        Whatever was lost while away is asked for again (a table asked within the reorder
        window is owed one, which `due_replays` sends); open holes get a full
        `gap_timeout` for the replay to fill them; and for a reorder window no boot is
        taken over by a newer one, so a replayed tail of the old boot is not late.
        """
        due: list[tuple[str, Point]] = []
        for stream in self.tables.values():
            if stream.hole_since is not None:
                stream.hole_since = now
            stream.hold_boots_until = now + self.reorder_window
            point = self._ask_again(stream, now)
            if point is not None:
                due.append((stream.name, point))
        return due

    def bridge_back(self, table: str, now: float) -> Point | None:
        """A table's bridge says it is online (again): the point to replay from, if one
        may be asked now (else it is owed, and `due_replays` sends it).

        A bridge hears replay requests only once connected, so one asked while it was
        away (our own reconnect can come first after a broker restart) was lost.
        """
        stream = self.tables.get(table)
        return None if stream is None else self._ask_again(stream, now)

    def _ask_again(self, stream: TableStream, now: float) -> Point | None:
        point = stream.replay_point()
        if point is not None and self._may_ask(stream, point, now, patient=False):
            return point
        return None

    # --- the service's hand on the intake ------------------------------------------------

    def resume(self, table: str, boot_id: int, seq: int) -> None:
        """Start a table after an event already handled (a service restart's saved point)."""
        if table in self.tables:
            raise ValueError(f"table {table!r} already has a stream")
        stream = self._stream(table)
        stream.cur = _Boot(boot_id, passed=seq, beyond=seq)
        stream.last = (boot_id, seq) if seq > 0 else None

    def follow(self, table: str, now: float) -> Point | None:
        """Follow a table from now on (an admin started a session there); the point to ask
        a replay from: the start of the boot last heard of it, if any. None also when it
        is followed already."""
        if table in self.tables:
            return None
        heard = self.waiting.get(table)
        stream = self._stream(table)
        if heard is None:
            return None
        point = (heard.boot_id, 0)
        self._may_ask(stream, point, now, patient=False)
        return point

    def waiting_tables(self) -> list[WaitingTable]:
        """The tables heard but not followed, the most recently heard last."""
        return list(self.waiting.values())

    def pause(self) -> None:
        """Hold nothing new (backpressure): arrivals of followed tables are `deferred`
        and nothing is delivered, until `unpause`."""
        self.paused = True

    def unpause(self, now: float) -> list[tuple[str, Point]]:
        """Take arrivals again; the replays to ask for what was deferred meanwhile (a
        table asked within the reorder window is owed one, which `due_replays` sends)."""
        self.paused = False
        due: list[tuple[str, Point]] = []
        for stream in self.tables.values():
            if stream.cur is not None and stream.cur.blocked():
                stream.hole_since = now  # what was deferred is a hole; the replay gets its time
            for boot in stream.candidates.values():
                boot.clock = max(boot.clock, now)
            if not stream.deferred:
                continue
            stream.deferred = False
            point = stream.replay_point()
            if point is not None and self._may_ask(stream, point, now, patient=False):
                due.append((stream.name, point))
        return due
