"""The bridges' event streams, consumed: every table's events in order, exactly once.

The bridge publishes each controller event on `<base>/<table>/event` at QoS 1, which
is at least once, and a broker restart or a full queue can lose events it had
already acknowledged. So a consumer must drop redeliveries on the event key
(table, boot_id, seq), notice holes in seq, and ask the bridge to publish again
(`bridge/request/replay`) from the last event it holds without a hole.

Two layers:

- `StreamOrder`: the bookkeeping, sans-I/O (no asyncio, no MQTT; the caller passes
  the time). It takes events (or raw payloads) and returns what is now deliverable:
  per table, boot by boot in arrival order, each boot in seq order from 1, an event
  after a hole held back until the hole is filled, or given up after `gap_timeout`
  and reported as a `Gap` (the mirror records a `gap` fault).
- `Consumer`: a thin aiomqtt client around it: a persistent session, reconnects
  through broker restarts, replay requests, and the callbacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import aiomqtt
from pydantic import ValidationError

from firmware_bridge.messages import Event, EventKey, ReplayRequest
from firmware_bridge.stopping import cancel_and_wait

log = logging.getLogger(__name__)

GAP_TIMEOUT = 10.0  # seconds a hole may block delivery before it is given up as a gap
REORDER_WINDOW = 1.0  # seconds a hole may stay open before a replay is asked
REPLAY_BACKOFF_MAX = 8.0  # longest wait between replay requests from the same point
RECONNECT_DELAY = 0.2


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
class Hole:
    """Seqs `first`..`last` of a boot, missing, that hold back the table's delivery."""

    table: str
    boot_id: int
    first: int
    last: int
    since: float  # when it last blocked delivery without progress (the caller's clock)


Delivery = Event | Gap
Status = Literal["new", "duplicate", "late", "invalid"]


@dataclass(frozen=True)
class Step:
    """What one arrival did: its status, and what became deliverable, in order.

    `new`: first time seen (held or delivered); `duplicate`: a redelivery, dropped;
    `late`: first seen after its place was given up, dropped; `invalid`: refused.
    """

    status: Status
    event: Event | None = None
    out: tuple[Delivery, ...] = ()
    error: str | None = None


@dataclass
class StreamCounts:
    received: int = 0  # valid events, redeliveries included
    delivered: int = 0
    duplicates: int = 0
    late: int = 0
    invalid: int = 0
    gaps: int = 0


@dataclass
class _Boot:
    boot_id: int
    passed: int = 0  # the highest seq delivered or given up
    pending: dict[int, Event] = field(default_factory=dict)  # held behind a hole
    skipped: list[tuple[int, int]] = field(default_factory=list)  # ranges given up
    closed: bool = False  # a later boot has taken over the table's delivery

    def was_skipped(self, seq: int) -> bool:
        return any(first <= seq <= last for first, last in self.skipped)

    def skip_to(self, last: int) -> tuple[int, int]:
        gone = (self.passed + 1, last)
        self.skipped.append(gone)
        self.passed = last
        return gone


@dataclass
class TableStream:
    """One table's boots in arrival order and how far delivery has come."""

    name: str
    boots: dict[int, _Boot] = field(default_factory=dict)
    order: list[_Boot] = field(default_factory=list)  # the boots in arrival order
    at: int = 0  # the index in `order` of the boot being delivered
    last: tuple[int, int] | None = None  # the last event delivered (boot_id, seq)
    hole_since: float | None = None
    hold_boots_until: float = float("-inf")
    asked: tuple[int, int] | None = None  # the point of the last replay asked
    asked_at: float = float("-inf")
    ask_every: float = REORDER_WINDOW

    def boot(self, boot_id: int) -> _Boot:
        """The boot of that id, a new one (after all others) if first seen."""
        found = self.boots.get(boot_id)
        if found is None:
            found = self.boots[boot_id] = _Boot(boot_id)
            self.order.append(found)
        return found

    def current(self) -> _Boot | None:
        """The boot being delivered: the first one not taken over."""
        return self.order[self.at] if self.at < len(self.order) else None

    def release(self, now: float) -> list[Event]:
        """Deliver what follows the delivery point with no hole before it, boot by boot."""
        out: list[Event] = []
        while (boot := self.current()) is not None:
            while (event := boot.pending.pop(boot.passed + 1, None)) is not None:
                boot.passed += 1
                self.last = (boot.boot_id, boot.passed)
                out.append(event)
            if boot.pending or self.at + 1 >= len(self.order) or now < self.hold_boots_until:
                break
            boot.closed = True  # whole as far as we can know, and a later boot has begun
            self.at += 1
        boot = self.current()
        if boot is None or not boot.pending:
            self.hole_since = None
        elif self.hole_since is None or out:
            self.hole_since = now  # a hole, new or left after progress: its clock starts
        return out

    def hole(self) -> Hole | None:
        boot = self.current()
        if boot is None or not boot.pending or self.hole_since is None:
            return None
        first = boot.passed + 1
        return Hole(self.name, boot.boot_id, first, min(boot.pending) - 1, self.hole_since)


class StreamOrder:
    """Every table's events in order, exactly once: dedupe, holes, gaps. No I/O.

    Per table, boots are delivered in the order their first event arrived; each
    boot in seq order from 1 (a controller reboot starts a new boot at 1). A boot
    is taken over by the next one once it has no hole left: its tail, if lost, is
    not knowable from the stream alone (only a replay brings it; see `reconnected`).
    Memory per table is the events held behind holes, not the history.
    """

    def __init__(
        self, gap_timeout: float = GAP_TIMEOUT, reorder_window: float = REORDER_WINDOW
    ) -> None:
        self.gap_timeout = gap_timeout
        self.reorder_window = reorder_window
        self.tables: dict[str, TableStream] = {}
        self.counts = StreamCounts()

    def receive(self, payload: bytes | str, now: float, table: str | None = None) -> Step:
        """Parse one published payload and offer it; a bad one is counted, never raised.

        `table`, when given (from the topic), must be the event's own.
        """
        try:
            event = Event.model_validate_json(payload)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "payload"
            return self._refuse(f"{where}: {first['msg']}")
        if table is not None and event.table != table:
            return self._refuse(f"table: {event.table!r} published under {table!r}")
        return self.offer(event, now)

    def offer(self, event: Event, now: float) -> Step:
        """Take one event; return its status and the deliveries it made possible."""
        if event.seq < 1:
            return self._refuse(f"seq: {event.seq} (counts from 1)")
        self.counts.received += 1
        stream = self.tables.get(event.table)
        if stream is None:
            stream = self.tables[event.table] = TableStream(
                event.table, ask_every=self.reorder_window
            )
        boot = stream.boot(event.boot_id)
        seq = event.seq
        if seq <= boot.passed:
            if boot.was_skipped(seq):
                self.counts.late += 1
                return Step("late", event)
            self.counts.duplicates += 1
            return Step("duplicate", event)
        if seq in boot.pending:
            self.counts.duplicates += 1
            return Step("duplicate", event)
        if boot.closed:  # the table moved on to a later boot: this can't come in order
            first, last = boot.skip_to(seq)
            self.counts.late += 1
            self.counts.gaps += 1
            return Step("late", event, (Gap(stream.name, boot.boot_id, first, last, late=True),))
        boot.pending[seq] = event
        out = stream.release(now)
        self.counts.delivered += len(out)
        return Step("new", event, tuple(out))

    def expire(self, now: float) -> list[Delivery]:
        """Give up holes that blocked delivery for `gap_timeout`, and deliver past them.

        Each given-up hole comes out as a `Gap`, in its place in the order. Also ends
        a boot hold (see `reconnected`) whose time is up. Call it every so often.
        """
        out: list[Delivery] = []
        for stream in self.tables.values():
            out += self._expire(stream, now)
        return out

    def give_up(self, table: str, now: float) -> list[Delivery]:
        """Give up the table's holes now, whatever their age (e.g. the bridge answered
        that its history no longer holds them), and deliver past them."""
        stream = self.tables.get(table)
        return [] if stream is None else self._expire(stream, now, force=True)

    def _expire(self, stream: TableStream, now: float, force: bool = False) -> list[Delivery]:
        out: list[Delivery] = list(stream.release(now))
        while (hole := stream.hole()) is not None and (
            force or now - hole.since >= self.gap_timeout
        ):
            stream.boots[hole.boot_id].skip_to(hole.last)
            self.counts.gaps += 1
            out.append(Gap(stream.name, hole.boot_id, hole.first, hole.last))
            out += stream.release(now)
        self.counts.delivered += sum(isinstance(d, Event) for d in out)
        return out

    def holes(self) -> list[Hole]:
        """Each table's blocking hole, if it has one."""
        return [h for s in self.tables.values() if (h := s.hole()) is not None]

    def pointer(self, table: str) -> tuple[int, int] | None:
        """The last event of the table delivered, i.e. held with no hole before it."""
        stream = self.tables.get(table)
        return None if stream is None else stream.last

    def due_replays(self, now: float) -> list[tuple[str, tuple[int, int]]]:
        """The tables whose hole outlived the reorder window, and the point to replay from.

        Asks again from the same point with a doubling interval (a replay queued behind
        a long backlog is slow, not lost). A table with nothing delivered yet has no
        point to name: its leading hole is waited for, then given up (asking for all
        the bridge keeps would bring older boots in after newer ones).
        """
        due: list[tuple[str, tuple[int, int]]] = []
        for stream in self.tables.values():
            hole = stream.hole()
            point = stream.last
            if hole is None or point is None or now - hole.since < self.reorder_window:
                continue
            if point != stream.asked:
                stream.ask_every = self.reorder_window
            elif now - stream.asked_at < stream.ask_every:
                continue
            else:
                stream.ask_every = min(stream.ask_every * 2, REPLAY_BACKOFF_MAX)
            stream.asked, stream.asked_at = point, now
            due.append((stream.name, point))
        return due

    def reconnected(self, now: float) -> list[tuple[str, tuple[int, int]]]:
        """After a reconnect: what each table should replay from, and hold clocks reset.

        Whatever was lost while away is asked for again; open holes get a full
        `gap_timeout` for the replay to fill them; and for a reorder window no boot
        is taken over by a newer one, so a replayed tail of the old boot is not late.
        """
        due: list[tuple[str, tuple[int, int]]] = []
        for stream in self.tables.values():
            if stream.hole_since is not None:
                stream.hole_since = now
            stream.hold_boots_until = now + self.reorder_window
            if stream.last is not None:
                stream.asked, stream.asked_at = stream.last, now
                stream.ask_every = self.reorder_window
                due.append((stream.name, stream.last))
        return due

    def resume(self, table: str, boot_id: int, seq: int) -> None:
        """Start a table after an event already handled (a service restart's saved point)."""
        if table in self.tables:
            raise ValueError(f"table {table!r} already has a stream")
        stream = self.tables[table] = TableStream(table, ask_every=self.reorder_window)
        stream.boot(boot_id).passed = seq
        stream.last = (boot_id, seq) if seq > 0 else None

    def _refuse(self, error: str) -> Step:
        self.counts.invalid += 1
        return Step("invalid", error=error)


def _payload_bytes(payload: Any) -> bytes:
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode()
    return b"" if payload is None else str(payload).encode()


class Consumer:
    """Subscribes to `<base>/+/event` at QoS 1 with a persistent session and hands each
    table's events to `on_event` in order, exactly once; `on_gap` gets each `Gap` in its
    place. Reconnects through broker restarts and asks the bridges for replays.

    Callbacks run in the client's on-message path (aiomqtt drops the messages still in
    its queue when a connection breaks, though their PUBACKs have gone): keep them
    quick and synchronous. One that raises is logged and counted, never propagated.
    `on_arrival` sees every valid event as it arrives, redeliveries included (for a
    recorder); `on_invalid(topic, payload, error)` each refused payload.
    """

    def __init__(
        self,
        hostname: str,
        port: int = 1883,
        *,
        base: str = "mjtable",
        client_id: str = "mjtable-service",
        on_event: Callable[[Event], None] | None = None,
        on_gap: Callable[[Gap], None] | None = None,
        on_arrival: Callable[[Event], None] | None = None,
        on_invalid: Callable[[str, bytes, str], None] | None = None,
        gap_timeout: float = GAP_TIMEOUT,
        reorder_window: float = REORDER_WINDOW,
        reconnect_delay: float = RECONNECT_DELAY,
        client_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.hostname = hostname
        self.port = port
        self.base = base
        self.client_id = client_id
        self.on_event = on_event
        self.on_gap = on_gap
        self.on_arrival = on_arrival
        self.on_invalid = on_invalid
        self.reconnect_delay = reconnect_delay
        self.client_options = dict(client_options or {})  # username, password, tls_params …
        self.order = StreamOrder(gap_timeout, reorder_window)
        self.subscribed = asyncio.Event()  # set once the first subscription is in place
        self.replays_asked = 0
        self.reconnects = 0
        self.callback_errors = 0
        self._client: aiomqtt.Client | None = None

    @property
    def connected(self) -> bool:
        return self._client is not None

    async def run(self) -> None:
        """Receive until cancelled, reconnecting through broker restarts."""
        consumer = self

        class HandleOnArrival(asyncio.Queue[aiomqtt.Message]):
            """Handles each message before its PUBACK goes out, instead of queueing it."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                consumer.handle(str(item.topic), _payload_bytes(item.payload))

        ever_connected = False
        while True:
            try:
                async with aiomqtt.Client(
                    self.hostname, self.port, identifier=self.client_id, clean_session=False,
                    queue_type=HandleOnArrival, **self.client_options,
                ) as client:  # fmt: skip
                    await client.subscribe(f"{self.base}/+/event", qos=1)
                    self._client = client
                    self.reconnects += ever_connected
                    ever_connected = True
                    self.subscribed.set()
                    for table, after in self.order.reconnected(time.monotonic()):
                        await self.request_replay(table, after)
                    watcher = asyncio.create_task(self._watch())
                    try:
                        async for _ in client.messages:  # never yields; raises on disconnect
                            pass
                    finally:
                        await cancel_and_wait([watcher])
            except aiomqtt.MqttError as exc:
                self._client = None
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError from exc  # stopping: do not reconnect
                log.info("event stream: %s; reconnecting", exc)
                await asyncio.sleep(self.reconnect_delay)
            finally:
                self._client = None

    async def forget(self) -> None:
        """End the persistent session, so the broker stops queueing for us."""
        with contextlib.suppress(aiomqtt.MqttError):
            async with aiomqtt.Client(
                self.hostname, self.port, identifier=self.client_id, clean_session=True,
                **self.client_options,
            ):  # fmt: skip
                pass

    async def request_replay(self, table: str, after: tuple[int, int] | None) -> bool:
        """Ask a table's bridge to publish again every event after `after` (None: all it
        keeps). False when not connected (a reconnect asks anyway)."""
        client = self._client
        if client is None:
            return False
        point = None if after is None else EventKey(boot_id=after[0], seq=after[1])
        self.replays_asked += 1
        try:
            await client.publish(
                f"{self.base}/{table}/bridge/request/replay",
                ReplayRequest(after=point).model_dump_json(),
                qos=1,
            )
        except aiomqtt.MqttError:
            return False
        return True

    def give_up(self, table: str) -> None:
        """Deliver past the table's holes now (the bridge cannot fill them)."""
        self._deliver(self.order.give_up(table, time.monotonic()))

    def handle(self, topic: str, payload: bytes, now: float | None = None) -> Step:
        """The on-message path: one published message in, its deliveries out. Never raises."""
        now = time.monotonic() if now is None else now
        try:
            step = self.order.receive(payload, now, self._table_of(topic))
        except Exception as exc:  # a bug must not break the MQTT client's read loop
            log.exception("event stream: handling a message on %s", topic)
            return Step("invalid", error=f"internal: {exc}")
        if step.status == "invalid":
            log.warning("event stream: refused on %s: %s (%r)", topic, step.error, payload[:200])
            self._call(self.on_invalid, topic, payload, step.error or "")
        elif step.event is not None:
            self._call(self.on_arrival, step.event)
        self._deliver(step.out)
        return step

    def _table_of(self, topic: str) -> str | None:
        prefix, suffix = f"{self.base}/", "/event"
        if topic.startswith(prefix) and topic.endswith(suffix):
            return topic[len(prefix) : -len(suffix)]
        return None

    def _deliver(self, out: Iterable[Delivery]) -> None:
        for item in out:
            if isinstance(item, Gap):
                log.warning(
                    "event stream: %s boot %d seq %d..%d never delivered%s", item.table,
                    item.boot_id, item.first, item.last, " (arrived late)" if item.late else "",
                )  # fmt: skip
                self._call(self.on_gap, item)
            else:
                self._call(self.on_event, item)

    def _call(self, callback: Callable[..., None] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            self.callback_errors += 1
            log.exception("event stream: callback %r failed", callback)

    async def _watch(self) -> None:
        """While connected: ask replays for holes past the reorder window, give up old ones."""
        tick = min(self.order.reorder_window, self.order.gap_timeout) / 4
        while True:
            await asyncio.sleep(tick)
            now = time.monotonic()
            self._deliver(self.order.expire(now))
            for table, after in self.order.due_replays(now):
                await self.request_replay(table, after)
