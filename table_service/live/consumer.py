"""The bridges' event streams, consumed: every table's events in order, exactly once.

The bridge publishes each controller event on `<base>/<table>/event` at QoS 1, which
is at least once, and a broker restart or a full queue can lose events it had
already acknowledged. So a consumer must drop redeliveries on the event key
(table, boot_id, seq), notice holes in seq, and ask the bridge to publish again
(`bridge/request/replay`) from the last event it holds without a hole.

Two layers:

- `StreamOrder` (order.py): the bookkeeping, sans-I/O (no asyncio, no MQTT; the caller
  passes the time). It takes events (or raw payloads) and returns what is now
  deliverable: per table, boot by boot, each boot in seq order from 1, an event after a
  hole held back until the hole is filled, or given up after `gap_timeout` and reported
  as a `Gap` (the mirror records a `gap` fault). It trusts nothing on the stream: see
  its docstring for the bounds (payloads, held events, tables, boots, conflicts).
- `Consumer`: a thin aiomqtt client around it: a persistent session, reconnects
  through broker restarts, replay requests, and the callbacks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import aiomqtt

from firmware_bridge.messages import Event, EventKey, ReplayRequest, Topics
from firmware_bridge.stopping import cancel_and_wait
from table_service.live.intake_socket import BufferedClient
from table_service.live.order import (
    GAP_TIMEOUT,
    MAX_CANDIDATE,
    MAX_PENDING,
    REORDER_WINDOW,
    Conflict,
    Delivery,
    Gap,
    Hole,
    Point,
    Status,
    Step,
    StreamCounts,
    StreamOrder,
    SuspectBoot,
    WaitingTable,
)

__all__ = [
    "GAP_TIMEOUT",
    "REORDER_WINDOW",
    "Conflict",
    "Consumer",
    "Delivery",
    "Gap",
    "Hole",
    "Point",
    "Status",
    "Step",
    "StreamCounts",
    "StreamOrder",
    "SuspectBoot",
    "WaitingTable",
]

log = logging.getLogger(__name__)

RECONNECT_DELAY = 0.2
SUBSCRIBE_AT_ONCE = 100  # topics in one SUBSCRIBE packet when following tables one by one


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

    The stream is not trusted: `on_suspect` gets each newer boot dropped for never
    earning the table (`SuspectBoot`: record a fault); `on_conflict(table, boot_id, seq,
    delivered, arrived)` each key that arrived again with other content (once per key:
    record a `conflict` fault with both); `may_follow(table)` is asked on the first event
    of a table not followed (False: refused, listed in `waiting_tables()`; `follow`
    starts it later). `pause()` / `resume()` are the service's backpressure.

    By default it receives every table's events (`<base>/+/event`). Given `tables` (or
    after `select(tables)`), only those tables' (`watch` / `unwatch` one by one): one
    process of several then pays for the tables it owns only. An event of another table
    (a persistent session's earlier subscription) is dropped and its topic unsubscribed.
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
        on_suspect: Callable[[SuspectBoot], None] | None = None,
        on_conflict: Callable[[str, int, int, Event, Event], None] | None = None,
        may_follow: Callable[[str], bool] | None = None,
        max_pending: int = MAX_PENDING,
        max_candidate: int = MAX_CANDIDATE,
        tables: Iterable[str] | None = None,
    ) -> None:
        self.hostname = hostname
        self.port = port
        self.base = base
        self.client_id = client_id
        self.on_event = on_event
        self.on_gap = on_gap
        self.on_arrival = on_arrival
        self.on_invalid = on_invalid
        self.on_suspect = on_suspect
        self.on_conflict = on_conflict
        self.reconnect_delay = reconnect_delay
        self.client_options = dict(client_options or {})  # username, password, tls_params …
        self.order = StreamOrder(
            gap_timeout,
            reorder_window,
            max_pending=max_pending,
            max_candidate=max_candidate,
            may_follow=may_follow,
        )
        self.subscribed = asyncio.Event()  # set once the first subscription is in place
        self.replays_asked = 0
        self.reconnects = 0
        self.callback_errors = 0
        self._client: aiomqtt.Client | None = None
        # replay requests on a bridge's return, stray subscriptions being undone
        self._asking: set[asyncio.Task[Any]] = set()
        self.watched: set[str] | None = None if tables is None else set(tables)
        self.unwatched = 0  # events dropped for a table not watched
        self._dropping: set[str] = set()  # tables whose stray subscription is being undone
        # every table's topics (the bridge's own map), and the ends that tell them apart
        self._all = Topics(base, "+")
        self._event_end = self._all.event[len(self._all.root) :]
        self._availability_end = self._all.availability[len(self._all.root) :]

    @property
    def connected(self) -> bool:
        return self._client is not None

    async def run(self) -> None:
        """Receive until cancelled, reconnecting through broker restarts."""
        consumer = self

        class HandleOnArrival(asyncio.Queue[aiomqtt.Message]):
            """Handles each message before its PUBACK goes out, instead of queueing it."""

            def put_nowait(self, item: aiomqtt.Message) -> None:
                topic, payload = str(item.topic), _payload_bytes(item.payload)
                if topic.endswith(consumer._availability_end):
                    consumer.hear_bridge(topic, payload)
                else:
                    consumer.handle(topic, payload)

        ever_connected = False
        while True:
            try:
                async with BufferedClient(  # aiomqtt's, read and written in bursts
                    self.hostname,
                    self.port,
                    identifier=self.client_id,
                    clean_session=False,
                    queue_type=HandleOnArrival,
                    **self.client_options,
                ) as client:
                    await self._subscribe_events(client)
                    await client.subscribe(self._all.availability, qos=1)  # `online`: it hears
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

    async def _subscribe_events(self, client: aiomqtt.Client) -> None:
        """The event topics of what is watched (a persistent session keeps subscriptions,
        but a broker restarted without its store does not: asked again on each connect)."""
        if self.watched is None:
            await client.subscribe(self._all.event, qos=1)
            return
        topics = [(Topics(self.base, table).event, 1) for table in sorted(self.watched)]
        for first in range(0, len(topics), SUBSCRIBE_AT_ONCE):
            await client.subscribe(topics[first : first + SUBSCRIBE_AT_ONCE])
        await client.unsubscribe(self._all.event)  # a session of the time it took every table

    async def select(self, tables: Iterable[str] | None) -> None:
        """Receive these tables' events from now on (None: every table's). The new
        subscriptions are in place before the old ones go, so nothing falls between."""
        before, self.watched = self.watched, None if tables is None else set(tables)
        client = self._client
        if client is None or before == self.watched:
            return  # the next connection subscribes to what is watched then
        gone = sorted((before or set()) - (self.watched or set()))
        with contextlib.suppress(aiomqtt.MqttError):  # lost: the reconnect subscribes
            await self._subscribe_events(client)
            if gone:
                await client.unsubscribe([Topics(self.base, table).event for table in gone])

    async def watch(self, table: str) -> None:
        """Receive `table`'s events too (returns once the broker has the subscription, so
        a replay asked after it is received)."""
        if self.watched is None or table in self.watched:
            return
        self.watched.add(table)
        self._dropping.discard(table)
        client = self._client
        if client is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await client.subscribe(Topics(self.base, table).event, qos=1)

    async def unwatch(self, table: str) -> None:
        """Stop receiving `table`'s events and forget its stream (it was handed on)."""
        self.order.tables.pop(table, None)
        if self.watched is None or table not in self.watched:
            return
        self.watched.discard(table)
        client = self._client
        if client is not None:
            with contextlib.suppress(aiomqtt.MqttError):
                await client.unsubscribe(Topics(self.base, table).event)

    def _stray(self, table: str) -> None:
        """An event of a table not watched: dropped, its subscription undone (once)."""
        self.unwatched += 1
        client = self._client
        if client is None or table in self._dropping:
            return
        self._dropping.add(table)
        task = asyncio.get_running_loop().create_task(
            client.unsubscribe(Topics(self.base, table).event)
        )
        self._asking.add(task)
        task.add_done_callback(self._asking.discard)
        task.add_done_callback(lambda done: done.cancelled() or done.exception())

    async def forget(self) -> None:
        """End the persistent session, so the broker stops queueing for us."""
        with contextlib.suppress(aiomqtt.MqttError):
            async with aiomqtt.Client(
                self.hostname,
                self.port,
                identifier=self.client_id,
                clean_session=True,
                **self.client_options,
            ):
                pass

    async def request_replay(self, table: str, after: Point | None) -> bool:
        """Ask a table's bridge to publish again every event after `after` (None: all it
        keeps; (boot, 0): that boot from its start). False when not connected (a
        reconnect asks anyway). Not rate-limited: `StreamOrder` limits its own asks."""
        client = self._client
        if client is None:
            return False
        point = None if after is None else EventKey(boot_id=after[0], seq=after[1])
        self.replays_asked += 1
        try:
            await client.publish(
                Topics(self.base, table).request("replay"),
                ReplayRequest(after=point).model_dump_json(),
                qos=1,
            )
        except aiomqtt.MqttError:
            return False
        return True

    async def follow(self, table: str) -> bool:
        """Follow a table not followed so far (`may_follow` said no); asks its bridge for
        the boot last heard of from its start. False when nothing was asked."""
        after = self.order.follow(table, time.monotonic())
        return after is not None and await self.request_replay(table, after)

    def waiting_tables(self) -> list[WaitingTable]:
        """Tables heard but not followed: name, events refused, the latest key."""
        return self.order.waiting_tables()

    def pause(self) -> None:
        """Backpressure: hold and deliver nothing new (arrivals are deferred) until `resume`."""
        self.order.pause()

    async def resume(self) -> int:
        """End a pause: ask the replays of what was deferred meanwhile; how many were asked."""
        asked = 0
        for table, after in self.order.unpause(time.monotonic()):
            asked += await self.request_replay(table, after)
        return asked

    def give_up(self, table: str) -> None:
        """Deliver past the table's holes now (the bridge cannot fill them)."""
        self._deliver(self.order.give_up(table, time.monotonic()))

    def handle(self, topic: str, payload: bytes, now: float | None = None) -> Step:
        """The on-message path: one published message in, its deliveries out. Never raises."""
        now = time.monotonic() if now is None else now
        table = self._table_of(topic)
        if self.watched is not None and table is not None and table not in self.watched:
            self._stray(table)
            return Step("unfollowed")
        try:
            step = self.order.receive(payload, now, table)
        except Exception as exc:  # a bug must not break the MQTT client's read loop
            log.exception("event stream: handling a message on %s", topic)
            return Step("invalid", error=f"internal: {exc}")
        if step.status == "invalid":
            log.warning(
                "event stream: refused on %.200s: %s (%r)", topic, step.error, payload[:200]
            )
            self._call(self.on_invalid, topic, payload, step.error or "")
        elif step.event is not None:
            self._call(self.on_arrival, step.event)
        if step.conflict is not None:
            self._conflict(step.conflict)
        self._deliver(step.out)
        return step

    def _conflict(self, found: Conflict) -> None:
        log.warning(
            "event stream: %s boot %d seq %d arrived again with other content (kept the first)",
            found.table,
            found.boot_id,
            found.seq,
        )
        self._call(
            self.on_conflict,
            found.table,
            found.boot_id,
            found.seq,
            found.delivered,
            found.arrived,
        )

    def hear_bridge(self, topic: str, payload: bytes, now: float | None = None) -> None:
        """A bridge's availability: once it is `online` (again), what it may have missed
        while away is asked again; it hears requests only while connected."""
        table = self._table_of(topic, self._availability_end)
        if payload != b"online" or table is None:
            return
        point = self.order.bridge_back(table, time.monotonic() if now is None else now)
        if point is not None:
            task = asyncio.get_running_loop().create_task(self.request_replay(table, point))
            self._asking.add(task)
            task.add_done_callback(self._asking.discard)

    def _table_of(self, topic: str, suffix: str | None = None) -> str | None:
        """The table a topic of ours names (an event's, or one ending in `suffix`)."""
        prefix, suffix = f"{self.base}/", suffix or self._event_end
        if topic.startswith(prefix) and topic.endswith(suffix):
            return topic[len(prefix) : -len(suffix)]
        return None

    def _deliver(self, out: Iterable[Delivery]) -> None:
        for item in out:
            if isinstance(item, Gap):
                log.warning(
                    "event stream: %s boot %d seq %d..%d never delivered%s",
                    item.table,
                    item.boot_id,
                    item.first,
                    item.last,
                    " (arrived late)" if item.late else "",
                )
                self._call(self.on_gap, item)
            elif isinstance(item, SuspectBoot):
                log.warning(
                    "event stream: %s boot %d (from seq %d, %d events) dropped: %s",
                    item.table,
                    item.boot_id,
                    item.first_seq,
                    item.count,
                    item.reason,
                )
                self._call(self.on_suspect, item)
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
