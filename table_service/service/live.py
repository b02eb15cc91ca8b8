"""The table service, live: every table's events from the broker, through the mirror, into
the records, out to MQTT, the tables' LEDs and the WebSockets.

One writer task owns the mirrors and the order of each table's log. An event is stored
together with what the mirror concluded from it, in one transaction, before anything
leaves the process (MQTT, LEDs, WebSockets): so a SIGKILL at any moment loses nothing
and doubles nothing. A restart rebuilds each table by folding its log from its last
snapshot (state is a fold over the stored entries), then asks the bridges to replay
whatever came after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiomqtt
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from firmware_bridge.messages import Event
from firmware_bridge.stopping import cancel_and_wait, last_words, stopping
from table_service.live.consumer import Consumer, Gap
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Record
from table_service.mirror.session import SessionStart
from table_service.rules import HandOutcome, settle
from table_service.rules.settlement import net
from table_service.service.drive import alert_commands, led_commands, seat_modes
from table_service.service.hub import Hub
from table_service.service.ownership import Ownership, ownership_for
from table_service.service.settings import ServeSettings
from table_service.store import Applied, DuplicateEvent, Entry, InvalidEntry, Store

log = logging.getLogger("table_service.service")
CLAIM_EVERY = 2.0  # seconds between attempts to take over tables whose owner died
RETRY_MAX = 5.0  # seconds between attempts to reach a database that is down
OUTBOX = 20_000  # MQTT messages held while the broker is away (then the oldest go)


class OwnedElsewhere(RuntimeError):
    """A write for a table another service process follows (send it there)."""


@dataclass
class TableRunner:
    """One table as the service follows it."""

    table: str
    mirror: TableMirror
    session_id: int | None = None
    since_snapshot: int = 0
    online: bool | None = None  # the bridge's availability; None: never heard
    link: dict[str, Any] | None = None
    leds: list[str] = field(default_factory=lambda: ["off"] * 4)

    def state(self, concealed: bool = False) -> dict[str, Any]:
        """The table's live state for the API (concealed tiles never during play)."""
        snap = self.mirror.snapshot(concealed=concealed)
        snap["session_id"] = self.session_id
        snap["online"] = self.online
        snap["link"] = None if self.link is None else self.link.get("state")
        return snap


@dataclass
class _Work:
    """One item for the writer: an event, or a service entry with its reply."""

    table: str
    kind: str
    event: Event | None = None
    body: dict[str, Any] | None = None
    reply: asyncio.Future[Any] | None = None


class Service:
    """`mjtable serve` without its HTTP face: construct, `await run()`, cancel to stop."""

    def __init__(self, settings: ServeSettings, store: Store, hub: Hub | None = None) -> None:
        self.settings = settings
        self.store = store
        self.hub = hub or Hub()
        self.tables: dict[str, TableRunner] = {}
        self.ready = asyncio.Event()
        self.applied = 0  # entries stored (a counter for tests and the bench)
        self._queue: asyncio.Queue[_Work] = asyncio.Queue()
        self._outbox: asyncio.Queue[tuple[str, str, int, bool]] = asyncio.Queue(OUTBOX)
        self._consumer: Consumer | None = None
        self.ownership: Ownership = Ownership()
        self._elsewhere: set[str] = set()  # tables another process owns (we stand by)
        self._bridges: dict[str, tuple[bool | None, dict[str, Any] | None]] = {}
        self._client: aiomqtt.Client | None = None
        self.base = settings.base_topic
        # A referee's rule (the soak's): corrections to enter before a table's next shuffle,
        # given the hands judged in its session. None: corrections come from the API alone.
        self.referee: Callable[[str, int], dict[str, Any] | None] | None = None

    # --- the public face: what the API calls ----------------------------------------

    def table_names(self) -> list[str]:
        return sorted(self.tables)

    def runner(self, table: str) -> TableRunner | None:
        return self.tables.get(table)

    async def start_session(self, table: str, session: SessionStart) -> int:
        """Start a session at `table` (ending one that runs); returns its id."""
        body = session.model_copy(update={"table": table}).recorded().model_dump(mode="json")
        return int(await self._ask(_Work(table, "session", body=body)))

    async def end_session(self, table: str) -> int | None:
        """End the table's session; returns its id (None when none was open)."""
        result = await self._ask(_Work(table, "session_end", body={}))
        return None if result is None else int(result)

    async def correct(self, table: str, body: dict[str, Any]) -> int:
        """A referee's correction, appended to the table's log: `deal` (who deals next),
        `penalty` (包賠/眼牌: the offender pays the others as settle's penalty), `note`."""
        return int(await self._ask(_Work(table, "correction", body=body)))

    async def _ask(self, work: _Work) -> Any:
        work.reply = asyncio.get_running_loop().create_future()
        await self._queue.put(work)
        return await work.reply

    # --- running ---------------------------------------------------------------------

    async def run(self) -> None:
        """Restore every table, then follow the broker until cancelled."""
        await asyncio.to_thread(self.store.migrate)
        self.ownership = await asyncio.to_thread(ownership_for, self.settings.database_url)
        for table in await asyncio.to_thread(self.store.tables):
            if await asyncio.to_thread(self.ownership.claim, table):
                self.tables[table] = await asyncio.to_thread(self._restore, table)
            else:
                self._elsewhere.add(table)  # another process follows it; we stand by
        host, port, _tls = self.settings.broker
        user, secret = self.settings.credentials
        consumer = self._consumer = Consumer(
            host,
            port,
            base=self.base,
            client_id=f"{self.settings.client_id}-events",
            on_event=self._on_event,
            on_gap=self._on_gap,
            gap_timeout=self.settings.gap_timeout,
            client_options={"username": user, "password": secret, **self.settings.tls_options()},
        )
        for table in self.tables:
            key = await asyncio.to_thread(self.store.last_event_key, table)
            if key is not None:
                consumer.order.resume(table, *key)  # the bridge replays what came after
        tasks = [
            asyncio.create_task(consumer.run(), name="consumer"),
            asyncio.create_task(self._writer(), name="writer"),
            asyncio.create_task(self._mqtt(), name="mqtt"),
            asyncio.create_task(self._claimer(), name="claimer"),
        ]
        try:
            await consumer.subscribed.wait()  # nothing published from here on is missed
            self.ready.set()
            await asyncio.gather(*tasks)
        finally:
            await cancel_and_wait(tasks)
            await asyncio.to_thread(self.ownership.close)

    def _restore(self, table: str) -> TableRunner:
        """Fold a table's log from its last snapshot: the state it had when it stopped."""
        snap = self.store.latest_snapshot(table)
        mirror = TableMirror(table)
        after = 0
        if snap is not None:
            after, data = snap
            mirror = pickle.loads(data)  # written by this service, in its own database
        count = 0
        for entry in self.store.entries(table, after_log_id=after):
            self._fold(mirror, entry)
            count += 1
        session = self.store.open_session(table)
        runner = TableRunner(table, mirror, session.id if session else None, count)
        runner.leds = seat_modes(mirror.hand)
        return runner

    @staticmethod
    def _fold(mirror: TableMirror, entry: Entry) -> list[Record]:
        """Apply one stored entry to a mirror: the one meaning of each kind of entry."""
        if entry.kind == "event" and entry.event is not None:
            return mirror.apply(entry.event)
        body = entry.body or {}
        if entry.kind == "session":
            return mirror.start_session(SessionStart.model_validate(body))
        if entry.kind == "correction" and body.get("kind") == "deal":
            mirror.correct_deal(int(body["dealer"]), int(body["streak"]), int(body["round_wind"]))
        return []

    # --- events in ----------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        """Called by the consumer in order, exactly once per process: queue for the writer."""
        self._queue.put_nowait(_Work(event.table, "event", event=event))

    def _on_gap(self, gap: Gap) -> None:
        log.warning("table %s: events %s–%s of boot %s given up", gap.table, gap.first,
                    gap.last, gap.boot_id)  # fmt: skip

    async def _writer(self) -> None:
        """Apply and store in batches (whatever is queued), one table's entries in order."""
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < 512:
                batch.append(self._queue.get_nowait())
            pending: dict[str, list[tuple[Applied, _Work]]] = {}
            for work in batch:
                if work.kind == "adopt":
                    self._elsewhere.discard(work.table)
                    if work.table not in self.tables:
                        await self._adopt(work.table, pending)
                    continue
                if work.kind != "event":
                    await self._flush(pending)  # a service entry is stored alone, in order
                    await self._service_entry(work)
                    continue
                if work.table not in self.tables and not await self._adopt(work.table, pending):
                    continue  # owned by another process, or taken over: the bridge replays
                runner = await self._runner_with_session(work.table, pending)
                assert work.event is not None
                if self.referee is not None and work.event.body.kind == "shuffle_started":
                    correction = self.referee(work.table, runner.mirror.hands)
                    if correction is not None:  # entered before the new hand, as a referee would
                        await self._flush(pending)
                        await self._service_entry(_Work(work.table, "correction", body=correction))
                records = runner.mirror.apply(work.event)
                applied = Applied("event", work.event, None, records, runner.session_id)
                pending.setdefault(work.table, []).append((applied, work))
            await self._flush(pending)

    async def _adopt(self, table: str, pending: dict[str, list[tuple[Applied, _Work]]]) -> bool:
        """Own a table heard of now; True when its event at hand may be applied at once.

        A table new to the records is followed from here. One with records (another
        process owned it and died) is rebuilt from them, and the bridge is asked for
        everything after the last stored event: the event at hand comes again in order.
        """
        if table in self._elsewhere or not await asyncio.to_thread(self.ownership.claim, table):
            self._elsewhere.add(table)
            return False
        await self._flush(pending)
        key = await asyncio.to_thread(self.store.last_event_key, table)
        runner = await asyncio.to_thread(self._restore, table)
        runner.online, runner.link = self._bridges.get(table, (None, None))
        self.tables[table] = runner
        self._elsewhere.discard(table)
        if key is None:
            return True
        log.warning("table %s: taken over from the records; replaying after %s", table, key)
        if self._consumer is not None:
            self._consumer.order.tables.pop(table, None)
            self._consumer.order.resume(table, *key)
            await self._consumer.request_replay(table, key)
        return False

    async def _claimer(self) -> None:
        """Every CLAIM_EVERY seconds: take the tables whose owner died; give all up if our
        lock connection broke (another process may own them now)."""
        while True:
            await asyncio.sleep(CLAIM_EVERY)
            if not await asyncio.to_thread(self.ownership.alive):
                log.error("ownership lost: following no table until the locks are back")
                self._elsewhere.update(self.tables)
                self.tables.clear()
                continue
            for table in sorted(self._elsewhere):
                if await asyncio.to_thread(self.ownership.claim, table):
                    self._elsewhere.discard(table)
                    await self._queue.put(_Work(table, "adopt"))

    async def _runner_with_session(
        self, table: str, pending: dict[str, list[tuple[Applied, _Work]]]
    ) -> TableRunner:
        """The table's runner; a table heard for the first time gets a default session."""
        runner = self.tables.get(table)
        if runner is None:
            runner = self.tables[table] = TableRunner(table, TableMirror(table))
        if runner.session_id is None:
            await self._flush(pending)
            await self._service_entry(_Work(table, "session", body={"table": table}))
        return runner

    async def _flush(self, pending: dict[str, list[tuple[Applied, _Work]]]) -> None:
        for table, items in list(pending.items()):
            runner = self.tables[table]
            runner.since_snapshot += len(items)
            snapshot = None
            if runner.since_snapshot >= self.settings.snapshot_every:
                snapshot = pickle.dumps(runner.mirror)
                runner.since_snapshot = 0
            try:
                await self._append(table, [a for a, _ in items], snapshot)
            except InvalidEntry as exc:  # cannot happen for the bridge's events; never loop
                log.error("table %s: events refused by the store: %s", table, exc)
                continue
            self._announce(runner, [r for applied, _ in items for r in applied.records])
        pending.clear()

    async def _append(
        self, table: str, applied: list[Applied], snapshot: bytes | None
    ) -> list[int]:
        """Store, retrying while the database is away; a duplicate means this process's
        picture is behind the records (another writer): rebuild the table from them."""
        delay = 0.2
        while True:
            try:
                ids = await asyncio.to_thread(self.store.append, table, applied, snapshot)
                self.applied += len(applied)
                return ids
            except InvalidEntry:
                raise  # a bad entry never succeeds: its caller hears why
            except DuplicateEvent:
                log.error("table %s: an event already stored; rebuilding from the records", table)
                self.tables[table] = await asyncio.to_thread(self._restore, table)
                return []
            except (OperationalError, InterfaceError) as exc:  # the database is away: wait
                log.warning("table %s: cannot store (%s); retrying in %.1fs", table, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX)
            except DBAPIError as exc:  # refused for good (a bug): never block every table
                raise InvalidEntry(f"the database refused the entries: {exc.orig}") from exc

    async def _service_entry(self, work: _Work) -> None:
        """A session start or end, or a correction: applied to the mirror, stored, answered."""
        table = work.table
        if table not in self.tables:
            await self._adopt(table, {})
        runner = self.tables.get(table)
        if runner is None:
            if work.reply is not None and not work.reply.done():
                work.reply.set_exception(OwnedElsewhere(f"another service process owns {table!r}"))
            return
        body = dict(work.body or {})
        result: Any = None
        try:
            if work.kind == "session":
                entry = Applied("session", None, body, runner.mirror.start_session(
                    SessionStart.model_validate(body)), None)  # fmt: skip
                await self._append(table, [entry], pickle.dumps(runner.mirror))
                session = await asyncio.to_thread(self.store.open_session, table)
                runner.session_id = result = session.id if session else None
                runner.since_snapshot = 0
            elif work.kind == "session_end":
                result = runner.session_id
                if result is not None:
                    await self._append(
                        table, [Applied("session_end", None, body, [], result)], None
                    )
                    runner.session_id = None
            else:
                if body.get("kind") == "penalty":
                    body["ledger"] = self._penalty(runner, body)
                applied = Applied("correction", None, body, [], runner.session_id)
                ids = await self._append(table, [applied], None)
                self._fold(runner.mirror, Entry(0, table, "correction", None, body))  # once stored
                result = ids[-1] if ids else None
        except Exception as exc:  # a bad body: the caller hears why, the log is unchanged
            if work.reply is not None and not work.reply.done():
                work.reply.set_exception(exc)
            return
        self._announce(runner, [])
        if work.reply is not None and not work.reply.done():
            work.reply.set_result(result)

    @staticmethod
    def _penalty(runner: TableRunner, body: dict[str, Any]) -> list[list[int]]:
        """包賠 / 眼牌 penalties: the offender pays each other seat 底 + 台 (+ dealer 台)."""
        profile = runner.mirror.profile
        deal = runner.mirror.deal
        outcome = HandOutcome(
            "penalty", int(body["seat"]), int(body.get("tai", 0)), deal.dealer, deal.streak,
            None, profile.stakes(),
        )  # fmt: skip
        return [[seat, amount] for seat, amount in enumerate(net(settle(outcome)))]

    # --- out: MQTT, the table, the WebSockets -------------------------------------------

    def _announce(self, runner: TableRunner, records: list[Record]) -> None:
        """After a commit: publish what was concluded and drive the table's LEDs."""
        table = runner.table
        for record in records:
            payload = record.model_dump_json(by_alias=True)
            self._publish(f"{self.base}/{table}/service/{record.type}", payload, 1, False)
            self.hub.publish(table, {"type": record.type, "table": table,
                                     "record": json.loads(payload)})  # fmt: skip
        state = runner.state()
        self._publish(f"{self.base}/{table}/service/state", json.dumps(state), 1, True)
        self.hub.publish(table, {"type": "state", "table": table, "state": state})
        if not self.settings.drive_table:
            return
        modes = seat_modes(runner.mirror.hand)
        commands = led_commands(runner.leds, modes) + alert_commands(records)
        runner.leds = modes
        for command in commands:
            self._publish(f"{self.base}/{table}/set", json.dumps(command), 1, False)

    def _publish(self, topic: str, payload: str, qos: int, retain: bool) -> None:
        if self._outbox.full():
            self._outbox.get_nowait()  # the broker has been away long: the oldest go first
        self._outbox.put_nowait((topic, payload, qos, retain))

    async def _mqtt(self) -> None:
        """Publish the outbox; follow the bridges' availability; our own by Last Will, and
        `offline` said on a clean stop (a clean disconnect discards the Will)."""
        host, port, _tls = self.settings.broker
        user, secret = self.settings.credentials
        availability = f"{self.base}/service/availability"
        will = aiomqtt.Will(availability, "offline", qos=1, retain=True)
        while True:
            try:
                async with aiomqtt.Client(
                    host, port, identifier=f"{self.settings.client_id}-out", username=user,
                    password=secret, will=will, **self.settings.tls_options(),
                ) as client:  # fmt: skip
                    self._client = client
                    await client.publish(availability, "online", qos=1, retain=True)
                    await client.subscribe(f"{self.base}/+/bridge/availability", qos=1)
                    await client.subscribe(f"{self.base}/+/bridge/link", qos=1)
                    reader = asyncio.create_task(self._read_bridges(client))
                    try:
                        while True:
                            topic, payload, qos, retain = await self._outbox.get()
                            await client.publish(topic, payload, qos=qos, retain=retain)
                    finally:
                        if stopping():  # a clean stop; a lost connection leaves the Will
                            offline = client.publish(
                                availability, "offline", qos=1, retain=True, timeout=2
                            )
                            await last_words(offline)
                        await cancel_and_wait([reader])
            except aiomqtt.MqttError as exc:
                self._client = None
                log.warning("mqtt: %s; retrying", exc)
                await asyncio.sleep(1.0)

    async def _read_bridges(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            watched = (f"{self.base}/+/bridge/availability", f"{self.base}/+/bridge/link")
            if not any(message.topic.matches(topic) for topic in watched):
                continue  # a broker may also send retained messages of other topics
            parts = str(message.topic).split("/")
            table = parts[-3]
            online, link = self._bridges.get(table, (None, None))
            raw = message.payload
            payload = bytes(raw) if isinstance(raw, bytes | bytearray) else str(raw).encode()
            if parts[-1] == "availability":
                online = payload.decode(errors="replace") == "online"
            else:
                with contextlib.suppress(ValueError):
                    link = json.loads(payload)
            self._bridges[table] = (online, link)
            runner = self.tables.get(table)
            if runner is not None:
                runner.online, runner.link = online, link
                self.hub.publish(table, {"type": "state", "table": table, "state": runner.state()})
