"""The table service, live: every table's events from the broker, through the mirror, into
the records, out to MQTT, the tables' LEDs and the WebSockets.

One writer task owns the mirrors and the order of each table's log. An event is stored
together with what the mirror concluded from it, in one transaction, before its news
leaves the process (records on MQTT, LEDs, WebSockets): so a SIGKILL at any moment loses
nothing and doubles nothing. Only the live picture of what concluded nothing may go to a
few watchers before its commit (`Service._show_early`). A restart rebuilds each table by
folding its log from its last snapshot (state is a fold over the stored entries), then
asks the bridges to replay whatever came after.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiomqtt
import psycopg
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from firmware_bridge.messages import Event, Topics, service_availability
from firmware_bridge.stopping import cancel_and_wait, last_words, stopping
from table_service.live.consumer import Consumer, Gap
from table_service.live.intake_socket import BufferedClient
from table_service.live.order import SuspectBoot
from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, HandRecord, Record
from table_service.mirror.rulings import Rulings
from table_service.mirror.session import SessionStart
from table_service.service.bridges import BridgeNews, quoted, read_bridge_message
from table_service.service.collector import ShortCollections
from table_service.service.disclosure import Disclosure, in_play, withheld
from table_service.service.drive import alert_commands, led_commands, seat_modes
from table_service.service.health import Facts, Health, Members, judge
from table_service.service.hub import Hub
from table_service.service.loop_watch import LoopWatch
from table_service.service.outgoing import Outgoing, PublishWindow
from table_service.service.ownership import (
    Ownership,
    assigned,
    ownership_for,
    played_recently,
    share_out,
)
from table_service.service.queues import WakingQueue, next_or_done
from table_service.service.relay import Relay
from table_service.service.settings import ServeSettings
from table_service.store import Applied, DuplicateEvent, InvalidEntry, Store
from table_service.store.projector import Rederived, dump_snapshot

T = TypeVar("T")

log = logging.getLogger("table_service.service")
CLAIM_EVERY = 2.0  # seconds between looks at the members, and claims of tables let go
TABLES_EVERY = 15  # claim rounds between reads of the tables in the records (several members)
RETRY_MAX = 5.0  # seconds between attempts to reach a database that is down
OUTBOX = 20_000  # MQTT messages held while the broker is away (then the oldest go)
PUBLISH_WINDOW = 64  # MQTT messages awaiting the broker's acknowledgement at once
SHOW_EARLY_UP_TO = 64  # WebSocket clients up to which a picture goes out before its commit
# Work done in one turn of the event loop before others get theirs: every WebSocket and
# every arriving event waits a turn out (a batch of 512 folded at once held it ~25 ms).
FOLDS_PER_TURN = 32  # events applied
SHOWS_PER_TURN = 8  # tables' pictures and records sent
RELAY_LOOK = 0.5  # seconds between looks at whether a page watches (the relay's subscription)
HEALTH_EVERY = 1.0  # seconds between looks at the service's health (its availability topic)
RESTART_DELAY = 1.0  # seconds before a part that failed unexpectedly is started again
# The database is away (the store's errors, and the lock connection's own): wait it out.
DB_ERRORS = (OperationalError, InterfaceError, psycopg.OperationalError)


class OwnedElsewhere(RuntimeError):
    """A write for a table another service process follows (send it there)."""


class SeatingClosed(RuntimeError):
    """A seat asked for once the session's first shuffle has come (or with no session)."""


class BadSeatCode(RuntimeError):
    """A seat code that is not the seat's now (another table's, an earlier session's)."""


class SeatTaken(RuntimeError):
    """A seat a listed player holds already, asked for by another with a code."""


@dataclass
class TableRunner:
    """One table as the service follows it."""

    table: str
    mirror: TableMirror
    session_id: int | None = None
    next_session_id: int | None = None  # asked for during a hand: begins at the next shuffle
    since_snapshot: int = 0
    rulings: Rulings = field(default_factory=Rulings)  # the referee's, as the fold reads them
    had_session: bool = False  # once one was started, the table is never given a default one
    online: bool | None = None  # the bridge's availability; None: never heard
    link: dict[str, Any] | None = None
    leds: list[str] = field(default_factory=lambda: ["off"] * 4)

    seat_codes: tuple[int | None, list[str]] = field(default_factory=lambda: (None, []))

    @property
    def seated_session_id(self) -> int | None:
        """The session whose seats are taken now: the one waiting for the next shuffle, if
        one waits, else the table's."""
        return self.next_session_id if self.next_session_id is not None else self.session_id

    def seat_code(self, seat: int) -> str | None:
        """The code a player scans at the table to take `seat` (as the TV shows it): one
        per seat of the session being seated, until its first shuffle; None after."""
        if not self.mirror.seating_open:
            return None
        seated = self.seated_session_id
        if self.seat_codes[0] != seated or not self.seat_codes[1]:
            self.seat_codes = (seated, [secrets.token_urlsafe(9) for _ in range(4)])
        return self.seat_codes[1][seat]

    def follow_session(self) -> None:
        """A session asked for during a hand is the table's once the mirror has begun it
        (at the next shuffle): the entries from then on are its."""
        if self.next_session_id is not None and self.mirror.next_session is None:
            self.session_id, self.next_session_id = self.next_session_id, None

    def state(self, concealed: bool = False) -> dict[str, Any]:
        """The table's live state for the API (concealed tiles never during play)."""
        snap = self.mirror.snapshot(concealed=concealed)
        snap["session_id"] = self.session_id
        snap["next_session_id"] = self.next_session_id  # begins at the next shuffle
        snap["online"] = self.online
        snap["link"] = None if self.link is None else self.link.get("state")
        snap["seating_key"] = self.seating_key()
        return snap

    def seating_key(self) -> str | None:
        """A short fingerprint of the seat codes in force (never the codes): it changes
        when a code is used or a restart draws new ones, so the TV draws its QR anew."""
        if self.seat_code(0) is None:
            return None
        return hashlib.sha256(" ".join(self.seat_codes[1]).encode()).hexdigest()[:12]


@dataclass
class _Work:
    """One item for the writer: an event, or a service entry with its reply."""

    table: str
    kind: str
    event: Event | None = None
    body: dict[str, Any] | None = None
    reply: asyncio.Future[Any] | None = None
    epoch: int = 0  # of the table's stream when queued: a later one drops it (see _replay_from)
    code: str | None = None  # a seat code a player scanned (kind "seating"), checked in turn


_Part = tuple[TableRunner, list[Applied], bytes | None]  # a table's entries in a batch


@dataclass
class _Storing:
    """A batch's transaction under way while the writer folds the next."""

    task: asyncio.Future[Any]
    parts: list[_Part]
    shown: set[str]  # tables whose picture went out before the commit


class Service:
    """`mjtable serve` without its HTTP face: construct, `await run()`, cancel to stop.

    No message, outage or crowd stops it: each part (intake, writer, publisher, lock
    keeper, health watch) is restarted when it fails unexpectedly; the database being
    away is waited out with what arrived held (and past the backlog's limit left with the
    bridges, whose outboxes are durable, and asked for again); and the writer has a
    thread of its own, so readers of the API never take its turn.
    """

    def __init__(self, settings: ServeSettings, store: Store, hub: Hub | None = None) -> None:
        self.settings = settings
        self.store = store
        self.hub = hub or Hub()
        self.tables: dict[str, TableRunner] = {}
        self.ready = asyncio.Event()
        self.applied = 0  # entries stored (a counter for tests and the bench)
        self._queue: WakingQueue[_Work] = WakingQueue()
        self._outbox: WakingQueue[Outgoing] = WakingQueue(OUTBOX)
        self._window = PublishWindow(PUBLISH_WINDOW)
        self._consumer: Consumer | None = None
        self.ownership: Ownership = Ownership()
        self._elsewhere: set[str] = set()  # tables another process owns (we stand by)
        self._known: set[str] = set()  # tables with records, or started by an admin
        self._bridges: dict[str, tuple[bool | None, dict[str, Any] | None]] = {}
        self._client: aiomqtt.Client | None = None
        self.base = settings.base_topic
        self._table_topics: dict[str, Topics] = {}
        # The writer's own thread: reads of the API run in the default pool, never ahead
        # of a write in the queue of one shared pool.
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="mjtable-writer")
        self._database_error: str | None = None
        self._ownership_lost = False
        self._paused = False
        self._in_hand = 0  # entries the writer took from the queue and has not stored yet
        self._storing: _Storing | None = None  # a batch's transaction under way
        self._in_flight = 0  # its entries, until it is settled
        self._began = 0.0  # when the last transaction began (see `_gathering`)
        self._early: set[str] = set()  # tables whose newest picture went out before its commit
        self._progress = time.monotonic()  # when the writer last stored or found no work
        self._last_stored: dict[str, float] = {}
        self._health_said: str | None = None
        self.disclosure = Disclosure()
        self._epochs: dict[str, int] = {}  # per table, how often its stream was followed anew
        self.loop = LoopWatch()
        self.collector: ShortCollections | None = None  # `mjtable serve` sets its own
        self.member = 0  # this process's member slot (several processes on PostgreSQL)
        self.members: tuple[int, ...] = (0,)  # the member slots held, this one's among them
        self._handing: dict[str, float] = {}  # tables to hand on: by when at the latest
        self._share: dict[str, int] = {}  # the records' tables shared out over the members
        self._leaving = False
        self._rounds = 0
        self.relay = Relay(self.base)  # the other members' tables, while pages watch
        self._relaying = False

    # --- the public face: what the API calls ----------------------------------------

    def table_names(self) -> list[str]:
        return sorted(self.tables)

    def runner(self, table: str) -> TableRunner | None:
        return self.tables.get(table)

    def states(self) -> list[dict[str, Any]]:
        """Every table's public state: this process's own, and (several processes, a
        page watching) the others' as their owners last published them."""
        ours = [self.tables[t].state() for t in self.table_names()]
        others = self.relay.states(set(self.tables))  # none unless relaying
        return sorted(ours + others, key=lambda state: str(state["table"]))

    def public_state(self, table: str) -> dict[str, Any] | None:
        """The table's public state, its owner's when another process follows it (None:
        unknown here)."""
        runner = self.tables.get(table)
        return runner.state() if runner is not None else self.relay.state(table)

    def followed_elsewhere(self, table: str) -> str | None:
        """Where a table this process does not follow is (another of several service
        processes follows it); None when none does, as far as this process knows."""
        if table in self.tables or table not in self._elsewhere:
            return None
        return self._elsewhere_said(table)

    async def start_session(self, table: str, session: SessionStart) -> int:
        """Start a session at `table` (ending one that runs); returns its id. A table
        waiting beyond the limit of tables is followed from now on."""
        self._known.add(table)
        if self._consumer is not None and table not in self.tables:
            await self._consumer.follow(table)  # a waiting table: its bridge replays it
        body = session.model_copy(update={"table": table}).recorded().model_dump(mode="json")
        return int(await self._ask(_Work(table, "session", body=body)))

    async def end_session(self, table: str) -> int | None:
        """End the table's session; returns its id (None when none was open)."""
        result = await self._ask(_Work(table, "session_end", body={}))
        return None if result is None else int(result)

    async def correct(self, table: str, body: dict[str, Any]) -> int:
        """A referee's ruling (rulings.py), appended to the table's log; its id. A ruling on
        the past re-derives every record from the event it names; `deal` applies from the
        next hand, `penalty` (包賠/眼牌) moves money now, `note` is kept."""
        return int(await self._ask(_Work(table, "correction", body=body)))

    async def seat(
        self, table: str, seat: int, name: str, player_id: int | None, code: str | None = None
    ) -> int:
        """`seat` of the session being seated taken by `name` (a listed player's id, or a
        guest); `code`: the seat's, when a player took it at the table (an admin needs
        none). Refused once the session's first shuffle has come (SeatingClosed), or with
        a code that is not the seat's now (BadSeatCode). Returns the session's id."""
        body = {
            "seat": seat,
            "name": name,
            "player_id": player_id,
            "by": "code" if code else "admin",
        }
        return int(await self._ask(_Work(table, "seating", body=body, code=code)))

    async def _ask(self, work: _Work) -> Any:
        work.reply = asyncio.get_running_loop().create_future()
        await self._queue.put(work)
        return await work.reply

    def health(self) -> Health:
        """What the service does now: the tables it follows, what waits, and any fault."""
        consumer = self._consumer
        backlog = self._backlog()
        health = judge(
            Facts(
                now=time.monotonic(),
                database_error=self._database_error,
                broker_connected=consumer is not None and consumer.connected,
                ownership_lost=self._ownership_lost,
                backlog=backlog,
                backlog_since=self._progress if backlog else None,
                intake_paused=self._paused,
                last_stored=dict(self._last_stored),
                online={t: r.online for t, r in self.tables.items()},
                waiting={w.table: w.count for w in consumer.waiting_tables()} if consumer else {},
            )
        )
        watched = consumer.watched if consumer is not None else None
        members = Members(
            member=self.member,
            members=list(self.members),
            subscribed=None if watched is None else sorted(watched),
            handing_on=sorted(self._handing),
            relaying=self._relaying,
        )
        collector = self.collector.frozen() if self.collector is not None else None
        return health.model_copy(
            update={"loop_pauses": self.loop.pauses(), "members": members, "collector": collector}
        )

    # --- running ---------------------------------------------------------------------

    async def run(self) -> None:
        """Restore every table, then follow the broker until cancelled."""
        await self._db(self.store.migrate)
        self.ownership = await self._db(ownership_for, self.settings.database_url)
        self.member = await self._db(self.ownership.join)
        self.members = await self._db(self.ownership.members)
        seen = await self._db(self.store.tables_seen)
        self._known.update(seen)
        self._share = self._share_out(seen, self.members)
        for table in sorted(self._known):
            if self._mine(table) and await self._db(self.ownership.claim, table):
                self.tables[table] = await self._db(self._restore, table)
            else:
                self._elsewhere.add(table)  # another process follows it; we stand by
        host, port, _tls = self.settings.broker
        user, secret = self.settings.credentials
        consumer = self._consumer = Consumer(
            host,
            port,
            base=self.base,
            client_id=self._client_id("events"),
            on_event=self._on_event,
            on_gap=self._on_gap,
            gap_timeout=self.settings.gap_timeout,
            client_options={"username": user, "password": secret, **self.settings.tls_options()},
            may_follow=self._may_follow,
            on_conflict=self._on_conflict,
            on_suspect=self._on_suspect,
            tables=set(self.tables) if self._spread else None,
        )
        for table in self.tables:
            key = await self._db(self.store.last_event_key, table)
            if key is not None:
                consumer.order.resume(table, *key)  # the bridge replays what came after
        parts = {
            "consumer": consumer.run,
            "writer": self._writer,
            "mqtt": self._mqtt,
            "claimer": self._claimer,
            "health": self._watch_health,
            "loop": self.loop.run,
            # every session's tallies counted once, off the writer's thread, so the first
            # leaderboard a TV asks for after a start is not the one that counts the club
            "figures": lambda: asyncio.to_thread(self.store.count_figures),
        }
        tasks = [
            asyncio.create_task(self._kept_running(name, part), name=name)
            for name, part in parts.items()
        ]
        try:
            await consumer.subscribed.wait()  # nothing published from here on is missed
            self.ready.set()
            await asyncio.gather(*tasks)
        finally:
            await cancel_and_wait(tasks)
            await asyncio.to_thread(self.ownership.close)
            self._pool.shutdown(wait=False)

    async def _kept_running(self, name: str, part: Callable[[], Any]) -> None:
        """Run one part of the service; one that fails unexpectedly is logged and started
        again (a message or a bug must never stop every table)."""
        while True:
            try:
                await part()
                return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: failed; starting it again in %.0f s", name, RESTART_DELAY)
                await asyncio.sleep(RESTART_DELAY)

    async def _db(self, call: Callable[..., T], *args: Any) -> T:
        """A call into the store on the writer's thread, waiting out a database that is
        away (retrying with backoff, saying so on the health) instead of failing."""
        delay = 0.2
        loop = asyncio.get_running_loop()
        while True:
            try:
                result = await loop.run_in_executor(self._pool, call, *args)
            except DB_ERRORS as exc:
                reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0][:200]
                if self._database_error is None:
                    log.warning("the database is away (%s); retrying until it is back", reason)
                self._database_error = reason
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX)
                continue
            if self._database_error is not None:
                log.warning("the database is back")
                self._database_error = None
            return result

    def _restore(self, table: str) -> TableRunner:
        """Fold a table's log from its last snapshot (through the rulings in force): the
        state it had when it stopped."""
        mirror, rulings, count = self.store.restore(table)
        session = self.store.open_session(table)
        runner = TableRunner(
            table, mirror, session.id if session else None, since_snapshot=count, rulings=rulings
        )
        if mirror.next_session is not None:  # asked for during the hand still under way
            runner.next_session_id = runner.session_id
            runner.session_id = self.store.last_event_session(table)
        runner.had_session = bool(self.store.sessions(table, limit=1))
        runner.leds = seat_modes(mirror.hand)
        return runner

    # --- events in ----------------------------------------------------------------------

    def _may_follow(self, table: str) -> bool:
        """Whether a table first heard now is followed: one with records or started by an
        admin always; a new one while fewer than `max_tables` are followed. The rest wait,
        costing nothing (the bridges keep their events; a session started replays them)."""
        if table in self._known or table in self.tables or table in self._elsewhere:
            return True
        if self._spread:  # the others' tables are theirs to count
            return len(self.tables) < self.settings.max_tables
        return len(self.tables) + len(self._elsewhere) < self.settings.max_tables

    def _on_event(self, event: Event) -> None:
        """Called by the consumer in order, exactly once per process: queue for the writer."""
        epoch = self._epochs.get(event.table, 0)
        self._queue.put_nowait(_Work(event.table, "event", event=event, epoch=epoch))
        if not self._paused and self._backlog() >= self.settings.backlog_max:
            self._pause(True)

    def _backlog(self) -> int:
        """Entries received and not stored yet: queued, and in the writer's hands."""
        return self._queue.qsize() + self._in_hand + self._in_flight

    def _pause(self, paused: bool) -> None:
        """Stop taking events from the broker past the backlog's limit (they stay in the
        bridges' outboxes), and take them again, asking for what was left, below half."""
        consumer = self._consumer
        if consumer is None or paused == self._paused:
            return
        self._paused = paused
        if paused:
            log.warning("backlog of %d entries: intake paused", self._backlog())
            consumer.pause()
        else:
            log.warning("backlog drained: intake resumed")
            asyncio.get_running_loop().create_task(consumer.resume())

    def _on_gap(self, gap: Gap) -> None:
        log.warning(
            "table %s: events %s–%s of boot %s given up",
            gap.table,
            gap.first,
            gap.last,
            gap.boot_id,
        )

    def _on_conflict(
        self, table: str, boot_id: int, seq: int, delivered: Event, arrived: Event
    ) -> None:
        """The same key came again with another body: a `conflict` fault, both bodies told;
        the first delivered stays (the bridge's history, replayed, is the arbiter)."""
        detail = (
            f"boot {boot_id} seq {seq} arrived again with another body: delivered "
            f"{_brief(delivered)}; arrived {_brief(arrived)}"
        )
        self._fault(table, boot_id, seq, "conflict", detail)

    def _on_suspect(self, suspect: SuspectBoot) -> None:
        """A boot that appeared from nowhere (never from seq 1, or while the table's boot
        still ran) was not switched to: a `suspect_boot` fault."""
        detail = f"boot {suspect.boot_id}: {suspect.reason} ({suspect.count} events dropped)"
        self._fault(suspect.table, suspect.boot_id, suspect.first_seq, "suspect_boot", detail)

    def _fault(self, table: str, boot_id: int, seq: int, code: str, detail: str) -> None:
        log.warning("table %s: %s: %s", table, code, detail)
        if table in self.tables:
            body = {"code": code, "boot_id": boot_id, "seq": seq, "detail": detail}
            self._queue.put_nowait(_Work(table, "fault", body=body))

    async def _writer(self) -> None:
        """Apply what is queued and show it at once; store it one transaction at a time,
        each holding what was applied while the one before was under way (one table's
        entries in order)."""
        pending: dict[str, list[tuple[Applied, _Work]]] = {}
        while True:
            if self._storing is not None and self._storing.task.done():
                await self._settle()
            gathering = self._gathering(pending)
            if self._storing is None and pending and gathering <= 0:
                await self._flush(pending, wait=False)
            self._in_hand = sum(len(items) for items in pending.values())
            if self._queue.empty() and self._storing is None and not pending:
                self._progress = time.monotonic()  # nothing waits: no stall
            if self._paused and self._backlog() <= self.settings.backlog_max // 2:
                self._pause(False)
            if self._storing is None and not pending:
                first = await self._queue.get()
            else:  # until the next item, the transaction's end, or the gathering's
                storing = self._storing.task if self._storing is not None else None
                found = await next_or_done(self._queue, storing, None if storing else gathering)
                if found is None:
                    continue  # settle it, or start the next
                first = found
            batch = [first]
            while not self._queue.empty() and len(batch) < 512:
                batch.append(self._queue.get_nowait())
            self._in_hand += len(batch)
            async for work in taking_turns(batch, FOLDS_PER_TURN):
                try:
                    await self._take(work, pending)
                except Exception:  # a bug on one entry: that table is rebuilt, never all
                    log.exception("table %s: applying %s failed", work.table, work.kind)
                    pending.pop(work.table, None)
                    await self._rebuild(work.table)
            await self._show_early(pending, {work.table for work in batch})

    def _crowd_watching(self) -> bool:
        """More WebSockets watch than a picture may go out to before its commit."""
        return self.hub.listeners > SHOW_EARLY_UP_TO

    def _gathering(self, pending: dict[str, list[tuple[Applied, _Work]]]) -> float:
        """Seconds the next transaction waits for more entries to join it: none begins
        within `store_gather` of the one before (each costs about the same whatever it
        holds) while what waits is already out (its picture and the LEDs, `_show_early`).
        None waits for what waits on its commit: a hand's records or a violation, and every
        picture while a crowd watches."""
        if self._crowd_watching() or any(map(concluded, pending.values())):
            return 0.0
        return self._began + self.settings.store_gather - time.monotonic()

    async def _show_early(
        self, pending: dict[str, list[tuple[Applied, _Work]]], tables: set[str]
    ) -> None:
        """The picture of each of `tables` before its commit, and its seat LEDs, when what
        it has waiting concluded nothing (most do) and few watch: it is the tiles as they
        lie, which the bridges' outboxes hold until stored, and it saves each watcher and
        player the commit's milliseconds (and those of the gathering and the commit under
        way). What is concluded (a hand, a violation) waits for the commit, its picture
        after it; and so does every picture while a crowd watches: 500 senders busy during
        the commit took the GIL from it, and the storing of every table fell ten times
        behind."""
        if self._crowd_watching():
            return
        shown = [
            runner
            for table in sorted(tables)
            if (items := pending.get(table))
            and not concluded(items)
            and (runner := self.tables.get(table)) is not None
        ]
        async for runner in taking_turns(shown):
            self._show(runner)
            self._drive(runner, [])
            self._early.add(runner.table)

    async def _take(self, work: _Work, pending: dict[str, list[tuple[Applied, _Work]]]) -> None:
        """One queued item: an event applied to its mirror (stored with the batch), or a
        service entry stored alone, in order."""
        if work.kind == "adopt":
            self._elsewhere.discard(work.table)
            if work.table not in self.tables:
                await self._adopt(work.table, pending)
            return
        if work.kind == "handover":
            await self._hand_over(work.table, pending)
            return
        if work.kind != "event":
            await self._flush(pending)  # a service entry is stored alone, in order
            await self._service_entry(work)
            return
        if work.epoch != self._epochs.get(work.table, 0):
            return  # delivered before its table was followed anew: it comes again in order
        if work.table not in self.tables and not await self._adopt(work.table, pending):
            return  # owned by another process, or taken over: the bridge replays
        runner = await self._runner_with_session(work.table, pending)
        assert work.event is not None
        records = fold(runner.mirror, "event", work.event, None, runner.rulings)
        applied = Applied("event", work.event, None, records, runner.session_id)
        pending.setdefault(work.table, []).append((applied, work))
        self._early.discard(work.table)  # its picture out (if at all) is no longer its newest
        runner.follow_session()  # the shuffle closing a hand is still the hand's session's
        if work.table in self._handing and between_hands(runner.mirror):
            await self._hand_over(work.table, pending)  # its hand is over: it goes now

    async def _adopt(self, table: str, pending: dict[str, list[tuple[Applied, _Work]]]) -> bool:
        """Own a table heard of now; True when its event at hand may be applied at once.

        A table new to the records is followed from here. One with records (another
        process owned it and died, or this one lost its locks) is rebuilt from them, and
        the bridge is asked for everything after the last stored event: the event at
        hand comes again in order.
        """
        if table in self._elsewhere or not await self._db(self.ownership.claim, table):
            self._elsewhere.add(table)
            return False
        await self._flush(pending)
        self._known.add(table)
        self._elsewhere.discard(table)
        if self._consumer is not None:
            await self._consumer.watch(table)  # subscribed before the replay is asked
        key = await self._from_records(table)
        if key is None:
            return True
        log.warning("table %s: taken over from the records; replaying after %s", table, key)
        await self._replay_from(table, key)
        return False

    async def _from_records(self, table: str) -> tuple[int, int] | None:
        """The table's runner rebuilt from its records (the bridge's state kept); the key
        of its last stored event, None when it has none."""
        key = await self._db(self.store.last_event_key, table)
        runner = await self._db(self._restore, table)
        runner.online, runner.link = self._bridges.get(table, (None, None))
        self.tables[table] = runner
        return key

    async def _replay_from(self, table: str, key: tuple[int, int] | None) -> None:
        """Follow the table's stream again from a stored point, asking the bridge for all
        after it (what this process held beyond it is dropped and comes again)."""
        self._epochs[table] = self._epochs.get(table, 0) + 1  # what is queued comes again
        if self._consumer is None:
            return
        self._consumer.order.tables.pop(table, None)
        if key is not None:
            self._consumer.order.resume(table, *key)
            await self._consumer.request_replay(table, key)

    async def _rebuild(self, table: str) -> None:
        """A table whose picture may be wrong (a failed apply or store): rebuilt from its
        records, and its stream followed again from the last stored event."""
        await self._settle()  # the records it is rebuilt from hold the batch under way
        self.tables.pop(table, None)
        self.disclosure.forget(table)
        self._elsewhere.discard(table)
        if not await self._db(self.ownership.claim, table):
            self._elsewhere.add(table)
            return
        await self._replay_from(table, await self._from_records(table))

    async def _claimer(self) -> None:
        """Every CLAIM_EVERY seconds: look at the members, hand on the tables that belong
        to another, take those that belong here and are let go (their owner left, died or
        handed them on); give all up if our lock connection broke (another process may
        own them now), and take them again when the database is back."""
        while True:
            await asyncio.sleep(CLAIM_EVERY)
            await self._claim_round()

    async def _claim_round(self) -> None:
        if not await asyncio.to_thread(self.ownership.alive):
            if not self._ownership_lost:
                log.error("ownership lost: following no table until the locks are back")
            self._ownership_lost = True
            self._elsewhere.update(self.tables)
            self.tables.clear()
            self._handing.clear()
            if self._consumer is not None and self._spread:
                await self._consumer.select(set())  # taken again one by one when back
            return
        if self._ownership_lost:
            log.warning("the locks are back: taking the tables again")
            self._ownership_lost = False
            if not self._leaving:
                self.member = await asyncio.to_thread(self.ownership.join)
        await self._look_at_members()
        for table in sorted(self._candidates()):
            if table in self.tables:
                if not self._mine(table):
                    self._handing.setdefault(table, time.monotonic() + self.settings.handover_wait)
                    await self._queue.put(_Work(table, "handover"))  # now, if its hand is over
                continue
            if not self._mine(table) or table in self._handing:
                continue
            if self._spread and table not in self._known and not self._may_follow(table):
                continue  # a new table over the limit: it waits here, as it would alone
            if await asyncio.to_thread(self.ownership.claim, table):
                self._elsewhere.discard(table)
                if table in self._known:
                    await self._queue.put(_Work(table, "adopt"))  # watched, then replayed
                elif self._consumer is not None:
                    await self._consumer.watch(table)  # its first event adopts it

    async def _look_at_members(self) -> None:
        """The members now: when they changed, the tables' owners did, and with more than
        one member each process receives its own tables' events only."""
        if self._leaving:
            return
        members = await asyncio.to_thread(self.ownership.members)
        self._rounds += 1
        if members != self.members or (len(members) > 1 and self._rounds % TABLES_EVERY == 0):
            seen = await asyncio.to_thread(self.store.tables_seen)  # off the writer's turn
            self._known.update(seen)
            self._share = self._share_out(seen, members)  # the same in every member
        if members == self.members:
            return
        log.warning("members now %s (this process is %d)", list(members), self.member)
        if len(members) == 1 and self._spread:  # alone again: every table is ours to claim
            self._elsewhere.update(self._known - set(self.tables))
        self.members = members
        for table in [t for t in self._handing if self._mine(t)]:
            del self._handing[table]  # it belongs here again: it stays
        consumer = self._consumer
        if consumer is not None and self._spread != (consumer.watched is not None):
            await consumer.select(set(self.tables) if self._spread else None)  # the mode changed

    def _share_out(self, seen: dict[str, float], members: tuple[int, ...]) -> dict[str, int]:
        """The share of the tables played lately (one long unplayed goes by its hash)."""
        recent = played_recently(seen, self.settings.retired_after)
        return share_out(recent, members)

    def _candidates(self) -> set[str]:
        """The tables this process might own: alone, those it stands by for (as ever);
        one of several, every table heard of (the records, the bridges, its own)."""
        if not self._spread:
            return set(self._elsewhere) | set(self.tables)
        return self._known | self._elsewhere | set(self._bridges) | set(self.tables)

    @property
    def _spread(self) -> bool:
        """Whether the tables are spread over several members (each its own share)."""
        return len(self.members) > 1 or self._leaving

    def _owner(self, table: str) -> int:
        """The member `table` belongs to (by the members there are now): the tables of the
        records shared out evenly, one new to them by its hash alone."""
        owner = self._share.get(table)
        return assigned(table, self.members) if owner is None else owner

    def _mine(self, table: str) -> bool:
        """Whether `table` belongs to this process (none does once it is leaving)."""
        return not self._leaving and self._owner(table) == self.member

    def _elsewhere_said(self, table: str) -> str:
        """Why a write for a table another process follows is refused, and where to go."""
        return (
            f"table {table!r} is followed by another service process (member "
            f"{self._owner(table)} of "
            f"{list(self.members)}): send this to that process's API"
        )

    def _client_id(self, part: str) -> str:
        """This process's MQTT client id for one of its connections: unique per member, so
        several processes never take each other's sessions (member 0 keeps the plain one)."""
        prefix = self.settings.client_id
        return f"{prefix}-{part}" if self.member == 0 else f"{prefix}-{self.member}-{part}"

    async def _hand_over(self, table: str, pending: dict[str, list[tuple[Applied, _Work]]]) -> None:
        """Let a table go to the member it belongs to: when its hand is over (or its wait
        is), after everything taken for it is stored. The new owner rebuilds it from the
        records and asks the bridge for what came after: nothing lost, nothing twice."""
        deadline = self._handing.get(table)
        if deadline is None:
            return
        if self._mine(table):
            del self._handing[table]  # the members changed back meanwhile
            return
        runner = self.tables.get(table)
        mid_hand = runner is not None and not between_hands(runner.mirror)
        if mid_hand and time.monotonic() < deadline:
            return  # at its hand's end
        await self._flush(pending)
        del self._handing[table]
        self.tables.pop(table, None)
        self.disclosure.forget(table)
        self._elsewhere.add(table)
        self._epochs[table] = self._epochs.get(table, 0) + 1  # what is queued is not ours
        if self._consumer is not None:
            await self._consumer.unwatch(table)
        await self._db(self.ownership.release, table)
        log.info(
            "table %s: handed on%s",
            table,
            " mid-hand (its wait is over): the next owner rebuilds it" if mid_hand else "",
        )

    async def leave(self, wait: float) -> None:
        """A clean stop with other members running: hand every table on, each at its hand's
        end, within `wait` seconds (the rest then from the records), before the process
        stops. Alone, nothing: a restart takes every table again from the records."""
        if self._leaving or len(self.members) < 2:
            return
        self._leaving = True
        await asyncio.to_thread(self.ownership.leave)
        if self._consumer is not None:
            await self._consumer.select(set(self.tables))
        deadline = time.monotonic() + wait
        log.warning("leaving: handing %d tables on within %.0f s", len(self.tables), wait)
        while self.tables and time.monotonic() < deadline + 2 * CLAIM_EVERY:
            for table in list(self.tables):  # one handed on already waits no longer either
                self._handing[table] = min(self._handing.get(table, deadline), deadline)
                await self._queue.put(_Work(table, "handover"))
            await asyncio.sleep(0.2)

    async def _runner_with_session(
        self, table: str, pending: dict[str, list[tuple[Applied, _Work]]]
    ) -> TableRunner:
        """The table's runner; a table heard for the first time gets a default session (one
        whose session an admin ended plays on without one: judged and stored, no players)."""
        runner = self.tables.get(table)
        if runner is None:
            runner = self.tables[table] = TableRunner(table, TableMirror(table))
        if runner.session_id is None and not runner.had_session:
            await self._flush(pending)
            await self._service_entry(_Work(table, "session", body={"table": table}))
        return runner

    async def _flush(
        self, pending: dict[str, list[tuple[Applied, _Work]]], wait: bool = True
    ) -> None:
        """Store the entries waiting of every table in one transaction, then announce
        them (a picture shown early is not sent again). `wait` False (the writer's own)
        leaves the transaction under way while the writer applies and shows what comes
        next; it is settled before the next one starts, so the entries are stored and
        announced in order."""
        parts: list[_Part] = []
        for table, items in pending.items():
            runner = self.tables.get(table)
            epoch = self._epochs.get(table, 0)
            # given up meanwhile (its locks lost), or rebuilt: the bridge sends these again
            kept = [applied for applied, work in items if work.epoch == epoch]
            if runner is None or not kept:
                continue
            runner.since_snapshot += len(kept)
            snapshot = None
            if runner.since_snapshot >= self.settings.snapshot_every:
                snapshot = dump_snapshot(runner.mirror)
                runner.since_snapshot = 0
            parts.append((runner, kept, snapshot))
        pending.clear()
        shown = {r.table for r, _, _ in parts if r.table in self._early}
        self._early -= {r.table for r, _, _ in parts}
        await self._settle()
        # a table rebuilt meanwhile (its batch before refused) has this batch from its bridge
        parts = [part for part in parts if self.tables.get(part[0].table) is part[0]]
        if not parts:
            return
        stored = self._db(self.store.append_tables, [(r.table, a, snap) for r, a, snap in parts])
        self._storing = _Storing(asyncio.ensure_future(stored), parts, shown)
        self._began = time.monotonic()
        self._in_flight = sum(len(applied) for _, applied, _ in parts)
        if wait:
            await self._settle()

    async def _settle(self) -> None:
        """The transaction under way, if any, to its end, then its news out. When it was
        refused (a table's picture behind its records, a bug), each table is stored alone,
        so only the one at fault is rebuilt."""
        storing, self._storing = self._storing, None
        if storing is None:
            return
        try:
            await storing.task
        except Exception as exc:
            log.warning(
                "a batch of %d tables refused (%s): storing each alone", len(storing.parts), exc
            )
            stored = [part for part in storing.parts if await self._append_alone(*part)]
        else:
            self.applied += self._in_flight
            self._progress = time.monotonic()
            stored = storing.parts
        finally:
            self._in_flight = 0
        async for runner, applied, _ in taking_turns(stored):
            self._last_stored[runner.table] = time.monotonic()
            try:
                records = [r for a in applied for r in a.records]
                self._announce(runner, records, shown=runner.table in storing.shown)
            except Exception:  # stored: only the news of it is lost, never the records
                log.exception("table %s: announcing failed", runner.table)

    async def _append_alone(
        self, runner: TableRunner, applied: list[Applied], snapshot: bytes | None
    ) -> bool:
        """One table's entries in a transaction of their own; False when they were refused
        and the table is rebuilt from its records (its stream followed again)."""
        table = runner.table
        try:
            await self._append(table, applied, snapshot)
        except DuplicateEvent:  # this picture is behind the records (another writer)
            log.error("table %s: an event already stored; rebuilding from the records", table)
        except InvalidEntry as exc:  # cannot happen for the bridge's events; never loop
            log.error("table %s: events refused by the store: %s", table, exc)
        except Exception:  # a bug: this table is rebuilt and replayed, never all stop
            log.exception("table %s: storing failed", table)
        else:
            return True
        await self._rebuild(table)
        return False

    async def _append(
        self, table: str, applied: list[Applied], snapshot: bytes | None
    ) -> list[int]:
        """Store, waiting while the database is away; an entry refused for good raises
        (`DuplicateEvent`, `InvalidEntry`)."""
        try:
            ids = await self._db(self.store.append, table, applied, snapshot)
        except DBAPIError as exc:  # refused for good (a bug): never block every table
            raise InvalidEntry(f"the database refused the entries: {exc.orig}") from exc
        self.applied += len(applied)
        self._progress = time.monotonic()
        return list(ids)

    async def _service_entry(self, work: _Work) -> None:
        """A session start or end, a seat taken, a correction or a service fault: applied
        to the mirror, stored, answered."""
        table = work.table
        if table not in self.tables:
            await self._adopt(table, {})
        runner = self.tables.get(table)
        if runner is None:
            if work.reply is not None and not work.reply.done():
                work.reply.set_exception(OwnedElsewhere(self._elsewhere_said(table)))
            return
        body = dict(work.body or {})
        result: Any = None
        try:
            if work.kind == "session":
                records = runner.mirror.start_session(SessionStart.model_validate(body))
                if runner.mirror.next_session is None:  # begun now: the deal it took is known
                    body.update(runner.mirror.session_deal())
                entry = Applied("session", None, body, records, None)
                await self._append(table, [entry], dump_snapshot(runner.mirror))
                session = await self._db(self.store.open_session, table)
                result = session.id if session else None
                if runner.mirror.next_session is None:
                    runner.session_id, runner.next_session_id = result, None
                else:  # the hand under way finishes in its own session
                    runner.next_session_id = result
                runner.had_session = True
                runner.since_snapshot = 0
            elif work.kind == "session_end":
                result = runner.session_id
                if runner.next_session_id is not None:  # never begun: it is the one ended
                    result = runner.next_session_id
                if result is not None:
                    await self._append(
                        table, [Applied("session_end", None, body, [], result)], None
                    )
                    fold(runner.mirror, "session_end", None, body)
                    runner.session_id = runner.next_session_id = None
            elif work.kind == "seating":
                result = await self._seat(runner, body, work.code)
            elif work.kind == "fault":
                fault = Fault(table=table, **body)
                await self._append(
                    table, [Applied("fault", None, body, [fault], runner.session_id)], None
                )
                self._announce(runner, [fault])
                return
            else:
                result = await self._rule(runner, body)
        except Exception as exc:  # a bad body: the caller hears why, the log is unchanged
            if work.reply is not None and not work.reply.done():
                work.reply.set_exception(exc)
            elif work.reply is None:
                log.error("table %s: a %s entry was refused: %s", table, work.kind, exc)
            return
        self._announce(runner, [])
        if work.reply is not None and not work.reply.done():
            work.reply.set_result(result)

    async def _seat(self, runner: TableRunner, body: dict[str, Any], code: str | None) -> int:
        """A seat taken, checked in the writer's turn (so no shuffle slips in between): the
        session being seated has not begun a hand, the code is the seat's now, the seat is
        not a listed player's already (an admin may re-seat it)."""
        mirror, seat = runner.mirror, int(body["seat"])
        if not mirror.seating_open:
            raise SeatingClosed(f"table {runner.table!r} has no session waiting for players")
        if code is not None:
            if not secrets.compare_digest(code, runner.seat_code(seat) or ""):
                raise BadSeatCode(f"this code is not seat {seat}'s at table {runner.table!r}")
            seated = mirror.seated_session
            assert seated is not None  # seating is open
            taken = (seated.player_ids or (None,) * 4)[seat]
            if taken is not None and taken != body["player_id"]:
                raise SeatTaken(
                    f"seat {seat} is taken by {seated.players[seat]}: an admin can change it"
                )
        await self._append(runner.table, [Applied("seating", None, body, [], None)], None)
        fold(mirror, "seating", None, body)
        if code is not None:  # used once: taking the seat again takes a new scan at the table
            runner.seat_codes[1][seat] = secrets.token_urlsafe(9)
        return int(runner.seated_session_id or 0)

    async def _rule(self, runner: TableRunner, body: dict[str, Any]) -> int:
        """A referee's ruling: stored with the records it re-derives (one transaction),
        then the table's live state is the re-derived one, and the revised records go out
        again. A ruling that acts where it stands (a deal, a penalty) is folded on."""
        table = runner.table
        if body.get("kind") == "penalty":
            # what it moves now, kept in the entry (the fold derives it again where it stands)
            ledger = runner.mirror.penalty(int(body["seat"]), int(body.get("tai", 0)))
            body["ledger"] = [list(line) for line in ledger]
        applied = Applied("correction", None, body, [], runner.session_id)
        ruling_id, done = await self._db(self.store.rule, table, applied)
        if done.mirror is None:
            fold(runner.mirror, "correction", None, body, runner.rulings)  # once stored
        else:
            runner.mirror = done.mirror
            runner.follow_session()
            runner.rulings = await self._db(self.store.rulings, table)
            runner.since_snapshot = 0
            runner.leds = seat_modes(runner.mirror.hand)
        self._ruled(runner, ruling_id, body, done)
        return ruling_id

    def _ruled(
        self, runner: TableRunner, ruling_id: int, body: dict[str, Any], done: Rederived
    ) -> None:
        """Tell a ruling: the hand records it derived again go out once more (each with
        `revision`: the ruling's id), then one `ruling` message (its kind and effect), so
        the pages and the MQTT followers read the records anew."""
        table = runner.table
        for record in done.records:
            if isinstance(record, HandRecord):
                payload = {**record.model_dump(mode="json", by_alias=True), "revision": ruling_id}
                self._publish(self._topics(table).service("hand"), json.dumps(payload), 1, False)
        news = {
            "type": "ruling",
            "table": table,
            "ruling": ruling_id,
            "kind": body.get("kind"),
            "effect": done.effect,
        }
        self._publish(self._topics(table).service("ruling"), json.dumps(news), 1, False)
        self.hub.publish(table, news)

    # --- out: MQTT, the table, the WebSockets -------------------------------------------

    def _show(self, runner: TableRunner) -> None:
        """The table's picture as the mirror has it now, on its retained MQTT topic and the
        WebSockets: one JSON text made once for both."""
        table = runner.table
        text = self._picture(runner)
        message = f'{{"type":"state","table":{json.dumps(table)},"state":{text}}}'
        self.hub.publish_text(table, "state", message)

    def _picture(self, runner: TableRunner) -> str:
        """The table's picture as JSON, published on its retained topic at QoS 0: the
        newest picture makes every older one moot, so none is worth a PUBACK (a packet to
        read and a future to settle for every event); the one a lost connection may drop
        is sent again on the next (`_show_all_again`)."""
        text = json.dumps(runner.state(), separators=(",", ":"), ensure_ascii=False)
        self._publish(self._topics(runner.table).service_state, text, 0, True)
        return text

    def _show_all_again(self) -> None:
        """Every table's picture once more, for a new connection to the broker: a picture
        at QoS 0 in flight when the last one broke may not have reached the broker."""
        for runner in self.tables.values():
            self._picture(runner)

    def _announce(self, runner: TableRunner, records: list[Record], shown: bool = False) -> None:
        """After a commit: publish what was concluded, then the picture (unless `shown`
        already), and drive the table's LEDs. The public (MQTT, WebSockets, the table's
        beeper) hears a void declaration only when the hand ends; the records and the
        referee's reads have it at once."""
        table = runner.table
        topics = self._topics(table)
        hand_over = not in_play(runner.mirror.hand)
        for record in self.disclosure.public(table, records, hand_over):
            payload = record.model_dump_json(by_alias=True)
            self._publish(topics.service(record.type), payload, 1, False)
            message = f'{{"type":"{record.type}","table":{json.dumps(table)},"record":{payload}}}'
            self.hub.publish_text(table, record.type, message)
        if not shown:
            self._show(runner)
        self._drive(runner, records)

    def _drive(self, runner: TableRunner, records: list[Record]) -> None:
        """The table's seat LEDs where they changed, and an alert for each of `records`
        the public may hear of (`drive_table`)."""
        if not self.settings.drive_table:
            return
        modes = seat_modes(runner.mirror.hand)
        commands = led_commands(runner.leds, modes) + alert_commands(
            [r for r in records if not withheld(r)]
        )
        runner.leds = modes
        topic = self._topics(runner.table).set
        for command in commands:
            self._publish(topic, json.dumps(command), 1, False)

    def _topics(self, table: str) -> Topics:
        """The table's topics (the one map the bridge builds its own from)."""
        found = self._table_topics.get(table)
        if found is None:
            found = self._table_topics[table] = Topics(self.base, table)
        return found

    def _publish(self, topic: str, payload: str, qos: int, retain: bool) -> None:
        if self._outbox.full():
            self._outbox.get_nowait()  # the broker has been away long: the oldest go first
        self._outbox.put_nowait(Outgoing(topic, payload, qos, retain))

    def _availability(self) -> str:
        """`online`, or `degraded` when the health has a reason (the retained topic)."""
        return "online" if self.health().status == "ok" else "degraded"

    async def _watch_health(self) -> None:
        """Say on the availability topic when the service becomes degraded or well again."""
        while True:
            await asyncio.sleep(HEALTH_EVERY)
            health = self.health()
            said = "online" if health.status == "ok" else "degraded"
            if said != self._health_said and self._client is not None:
                if said == "degraded":
                    log.warning("degraded: %s", "; ".join(health.reasons))
                self._health_said = said
                self._publish(service_availability(self.base, self.member), said, 1, True)

    async def _mqtt(self) -> None:
        """Publish the outbox; follow the bridges' availability; our own by Last Will, and
        `offline` said on a clean stop (a clean disconnect discards the Will)."""
        host, port, _tls = self.settings.broker
        user, secret = self.settings.credentials
        availability = service_availability(self.base, self.member)
        every = Topics(self.base, "+")
        will = aiomqtt.Will(availability, "offline", qos=1, retain=True)
        while True:
            try:
                async with BufferedClient(  # aiomqtt's, written in bursts
                    host,
                    port,
                    identifier=self._client_id("out"),
                    max_inflight_messages=PUBLISH_WINDOW,
                    username=user,
                    password=secret,
                    will=will,
                    **self.settings.tls_options(),
                ) as client:
                    self._client = client
                    client.pending_calls_threshold = PUBLISH_WINDOW  # (it warns beyond)
                    self._health_said = said = self._availability()
                    await client.publish(availability, said, qos=1, retain=True)
                    await client.subscribe(every.availability, qos=1)
                    await client.subscribe(every.link, qos=1)
                    self._show_all_again()
                    self._relaying = False  # a new session has no subscription of old
                    self.relay.forget()
                    publishing = asyncio.create_task(self._window.run(client, self._outbox))
                    reader = asyncio.create_task(self._read_bridges(client))
                    relaying = asyncio.create_task(self._relay_while_watched(client))
                    try:  # the first to hear the connection lost ends it: the reader does
                        # while nothing is published (and the pictures must go again)
                        tasks = {publishing, reader, relaying}
                        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                        for task in done:
                            task.result()  # re-raises the MqttError that ended the connection
                    finally:
                        publishing.cancel()  # what it has in flight goes back to `unsent`
                        if stopping():  # a clean stop; a lost connection leaves the Will
                            offline = client.publish(
                                availability, "offline", qos=1, retain=True, timeout=2
                            )
                            await last_words(offline)
                        await cancel_and_wait([publishing, reader, relaying])
            except aiomqtt.MqttError as exc:
                self._client = None
                log.warning("mqtt: %s; retrying", exc)
                await asyncio.sleep(1.0)

    async def _relay_while_watched(self, client: aiomqtt.Client) -> None:
        """Subscribe to every table's service news while a page watches and several
        processes share the tables; unsubscribe when nobody does."""
        while True:
            wanted = self._spread and self.hub.listeners > 0
            if wanted and not self._relaying:
                await client.subscribe(self.relay.topic(), qos=0)
                self._relaying = True
            elif self._relaying and not wanted:
                self._relaying = False
                self.relay.forget()
                await client.unsubscribe(self.relay.topic())
            await asyncio.sleep(RELAY_LOOK)

    async def _read_bridges(self, client: aiomqtt.Client) -> None:
        every = Topics(self.base, "+")
        watched = (every.availability, every.link)
        relayed = self.relay.topic()
        async for message in client.messages:
            raw = message.payload
            payload = bytes(raw) if isinstance(raw, bytes | bytearray) else str(raw).encode()
            if message.topic.matches(relayed):
                self._relay(str(message.topic), payload)
                continue
            if not any(message.topic.matches(topic) for topic in watched):
                continue  # a broker may also send retained messages of other topics
            news = read_bridge_message(self.base, str(message.topic), payload)
            if isinstance(news, str):
                log.warning("refused on %s: %s: %s", message.topic, news, quoted(payload))
                continue
            self._hear(news)

    def _relay(self, topic: str, payload: bytes) -> None:
        """Another process's news of its table, to this process's pages."""
        if not self._relaying:
            return  # in flight when we unsubscribed
        relayed = self.relay.hear(topic, payload, self.tables)
        if relayed is not None:
            self.hub.publish_text(relayed.table, relayed.kind, relayed.text)

    def _hear(self, news: BridgeNews) -> None:
        """A bridge's availability or link state: kept, and told to the table's watchers."""
        online, link = self._bridges.get(news.table, (None, None))
        if news.online is not None:
            online = news.online
        if news.link is not None:
            link = news.link
        self._bridges[news.table] = (online, link)
        runner = self.tables.get(news.table)
        if runner is not None:
            runner.online, runner.link = online, link
            self._show(runner)


async def taking_turns(items: Iterable[T], every: int = SHOWS_PER_TURN) -> AsyncIterator[T]:
    """`items`, giving the event loop back after every `every` of them: a long batch never
    holds every WebSocket and every arriving event for its whole length."""
    for done, item in enumerate(items, 1):
        if done % every == 0:
            await asyncio.sleep(0)
        yield item


def concluded(items: list[tuple[Applied, _Work]]) -> bool:
    """Whether a table's entries waiting to be stored concluded anything (a hand's records,
    a violation, a fault): what the public hears of only after their commit."""
    return any(applied.records for applied, _ in items)


def between_hands(mirror: TableMirror) -> bool:
    """Whether no hand is under way (none yet, or the last is over and the next not
    shuffled): the moment a table is handed on, so no hand is followed by two processes."""
    return mirror.hand is None or mirror.hand.phase in ("idle", "over")


def _brief(event: Event) -> str:
    """An event's body and time, short enough for a fault's detail."""
    text = json.dumps({"ts": event.ts, "body": event.body.model_dump(mode="json")})
    return text if len(text) <= 400 else text[:400] + "…"
