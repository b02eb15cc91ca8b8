"""The service's records: one `Store` over SQLite (the default) or PostgreSQL.

Synchronous on purpose: the service calls it from one writer thread per process
(asyncio.to_thread), and every public method is one transaction, so a batch of log
entries and everything the mirror concluded from them land together or not at all.
The schema is built by the Alembic migrations in `migrations/` (`Store.migrate()`);
`api.py` is the lead's spec this implements.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import secrets
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, TypeVar

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from pydantic import ValidationError
from sqlalchemy import (
    Connection,
    Engine,
    Select,
    create_engine,
    event,
    func,
    inspect,
    or_,
    select,
    text,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import DisconnectionError, IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool, StaticPool

from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.rulings import Rulings, parse_ruling
from table_service.mirror.session import WINDS, SessionStart
from table_service.rules.tiles import TileCodeError
from table_service.store import players
from table_service.store.entries import Applied, Entry
from table_service.store.errors import (
    DuplicateEvent,
    InvalidEntry,
    NotFound,
    StoreAhead,
    StoreDamaged,
    StoreError,
)
from table_service.store.models import (
    CorrectionModel,
    FaultModel,
    HandModel,
    LedgerLine,
    Log,
    PlayerModel,
    SeatModel,
    SessionModel,
    SnapshotModel,
    TokenModel,
    ViolationModel,
)
from table_service.store.projector import (
    COPY_FROM,
    LOG_COLUMNS,
    LogReader,
    Projector,
    Rederived,
    insert_events,
    insert_log_rows,
    log_rows,
    open_session_row,
    rederive,
    restore,
    ruling_start,
    table_rulings,
)
from table_service.store.rows import (
    ROLES,
    VERDICT_STATUS,
    CorrectionRow,
    DecisionRow,
    FaultRow,
    HandRow,
    LedgerRow,
    PlayerHand,
    PlayerRow,
    PlayerStats,
    SessionRow,
    Standing,
    StandingRow,
    Status,
    TokenRow,
    ViolationRow,
)

SEATS: Final = 4
DB_FILE: Final = "mjtable.db"
MIGRATIONS: Final = Path(__file__).parent / "migrations"
PING_IDLE: Final = 1.0  # seconds a pooled connection may sit unused and go out unpinged
ENTRY_PAGE: Final = 500  # log rows read per query by entries(): a club day never sits in memory
_MIGRATION_LOCK: Final = 0x6D6A7462  # "mjtb": one migrator at a time on PostgreSQL
SQLITE_HEADER: Final = b"SQLite format 3\x00"
RESTORE_OR_MOVE: Final = (
    "restore it from a backup (`mjtable db restore`) or move it away to start a new database"
)


TABLES_SEEN: Final = text(
    'WITH RECURSIVE names(name) AS (SELECT min("table") FROM log'
    ' UNION ALL SELECT (SELECT min("table") FROM log WHERE "table" > names.name)'
    " FROM names WHERE names.name IS NOT NULL)"
    ' SELECT name, (SELECT ts FROM log WHERE "table" = names.name ORDER BY id DESC LIMIT 1)'
    " FROM names WHERE name IS NOT NULL ORDER BY name"
)


def database_url(url: str | URL) -> URL:
    """The URL with its driver: `postgresql://` means psycopg 3, the one driver installed."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _ping_when_idle(engine: Engine) -> None:
    """A pooled connection unused for PING_IDLE seconds is pinged before it is handed out
    (a dead one is replaced): a server restart leaves every idle connection dead. One in
    steady use is not: `pool_pre_ping`'s round trip on every checkout was ~7 % of a busy
    service's CPU, and a connection lost mid-use fails its transaction either way (the
    writer retries it; SQLAlchemy then drops the pool's older connections)."""

    @event.listens_for(engine, "checkin")
    def _checkin(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_IDLE:
            return  # new, or in steady use
        dead = _ping_fails(engine, dbapi_connection)
        if dead is not None:  # the pool retries with a new connection
            raise DisconnectionError(f"a pooled connection was dead: {dead}") from dead


def _ping_fails(engine: Engine, dbapi_connection: Any) -> Exception | None:
    """What a round trip on an idle connection raised; None when it answered."""
    try:
        engine.dialect.do_ping(dbapi_connection)
    except Exception as exc:
        return exc
    return None


def make_engine(url: str | URL) -> Engine:
    """An engine set up as the store needs it (SQLite: WAL, synchronous=NORMAL, foreign
    keys on, and transactions it begins itself so writers take the lock up front)."""
    parsed = database_url(url)
    if parsed.get_backend_name() != "sqlite":
        engine = create_engine(parsed)
        _ping_when_idle(engine)
        return engine
    memory = parsed.database in (None, "", ":memory:")
    if memory:  # one connection, or every query would see its own empty database
        engine = create_engine(
            parsed, poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    else:  # a data directory that does not exist yet is made, as `serve` would
        Path(str(parsed.database)).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(parsed)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # pysqlite's own BEGIN is lazy: we emit ours
        cursor = dbapi_connection.cursor()
        if not memory:
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        # A writer that read first and upgraded later could meet SQLITE_BUSY without
        # waiting (another writer committed in between); IMMEDIATE takes the lock now.
        write = connection.get_execution_options().get("mjtable_write", False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

    return engine


def alembic_config(url: str | URL) -> Config:
    """The Alembic configuration of the store's migrations (no alembic.ini needed); for a
    new revision: `command.revision(alembic_config(url), autogenerate=True, message=…)`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    rendered = database_url(url).render_as_string(hide_password=False)
    config.set_main_option("sqlalchemy.url", rendered.replace("%", "%%"))
    return config


def sqlite_damage(path: Path) -> str | None:
    """What makes an existing SQLite file unusable (empty, not SQLite, truncated, failing
    `PRAGMA quick_check`), None when it is sound. Read before the store's engine opens it:
    that would write a new database's header over an emptied file."""
    size = path.stat().st_size
    if size == 0:
        return (
            "an empty file (0 bytes), though mjtable makes its database whole: its records are gone"
        )
    with path.open("rb") as file:
        header = file.read(100)
    if not header.startswith(SQLITE_HEADER):
        return "not a SQLite database (its first bytes are not SQLite's header)"
    try:  # mode=rw: a file removed meanwhile is not created again
        with contextlib.closing(
            sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True)
        ) as db:
            problems = [str(row[0]) for row in db.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as exc:
        problems = [str(exc)]
    if problems == ["ok"]:
        return None
    page_size = int.from_bytes(header[16:18]) if len(header) >= 18 else 0
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32]) if len(header) == 100 else 0
    if len(header) < 100 or (header[24:28] == header[92:96] and size < pages * page_size):
        counted = f" of the {pages * page_size} its header counts" if pages else ""
        return f"truncated to {size} bytes{counted} ({'; '.join(problems)})"
    return f"damaged (quick_check: {'; '.join(problems)})"


def database_revision(connection: Any, where: str) -> str | None:
    """The database's migration, None for a new one (no tables but Alembic's own); raises
    StoreDamaged for tables without a migration (not mjtable's: building ours beside
    them would hide that the URL is wrong), StoreAhead for a migration not in this code."""
    names = set(inspect(connection).get_table_names())
    current = None  # read directly: Alembic's MigrationContext logs two lines at each look
    if "alembic_version" in names:
        current = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    if current is None:
        foreign = sorted(names - {"alembic_version"})
        if foreign:
            shown = ", ".join(foreign[:5]) + (", …" if len(foreign) > 5 else "")
            raise StoreDamaged(
                f"database {where}: holds tables ({shown}) but no mjtable migration "
                "(alembic_version): not an mjtable database; point --db or --data-dir at "
                "mjtable's, or move this one away"
            )
        return None
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    try:
        script.get_revision(current)
    except CommandError:
        raise StoreAhead(where, current, script.get_current_head()) from None
    return str(current)


def token_hash(secret: str) -> str:
    """The sha256 hex stored for a token's secret (the secret itself never is)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class Store:
    """The service's records: the tables' logs and what the mirror concluded from them."""

    def __init__(self, url: str | URL) -> None:
        """Open the store at `url` (a missing SQLite file is made, whole, by migrate()); an
        existing SQLite file is checked before anything is written to it: StoreDamaged
        when it is not a sound mjtable database, StoreAhead when a newer mjtable wrote it."""
        self.url = database_url(url)
        self._figures = players.FiguresCache()  # each session's tallies, while its rows stand
        path = self._sqlite_file()
        if path is not None and path.exists():
            problem = sqlite_damage(path)
            if problem is not None:
                raise StoreDamaged(f"database {path}: {problem}; {RESTORE_OR_MOVE}")
            plain = create_engine(self.url, poolclass=NullPool)  # before WAL is set on it
            try:
                with plain.connect() as connection:
                    database_revision(connection, str(path))
            finally:
                plain.dispose()
        self.engine = make_engine(self.url)
        self._writer = self.engine.execution_options(mjtable_write=True)
        # one statement alone is a transaction: no BEGIN and no COMMIT, each a round trip
        self._one_statement = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        self._held: tuple[Connection, float] | None = None  # the writer's, and when last used
        self._holding = threading.Lock()

    @classmethod
    def for_data_dir(cls, path: str | Path) -> Store:
        """The default store: SQLite `mjtable.db` in the data directory (made if missing)."""
        directory = Path(path)
        directory.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite:///{directory / DB_FILE}")

    def migrate(self) -> None:
        """Bring the schema to the newest migration (alembic upgrade head); idempotent.
        A new database is built whole; one that is not mjtable's raises StoreDamaged, one
        a newer mjtable wrote StoreAhead, and nothing is changed."""
        config = alembic_config(self.url)
        with self._writer.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
            database_revision(connection, self.where)
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def revision(self) -> str | None:
        """The database's migration (None: a new database), refused as migrate() would."""
        with self.engine.connect() as connection:
            return database_revision(connection, self.where)

    @property
    def where(self) -> str:
        """The database as its messages name it: the file, or the URL without password."""
        path = self._sqlite_file()
        if path is not None:
            return str(path)
        return self.url.set(drivername=self.url.get_backend_name()).render_as_string()

    def _sqlite_file(self) -> Path | None:
        if self.url.get_backend_name() != "sqlite" or self.url.database in (None, "", ":memory:"):
            return None
        return Path(self.url.database)

    def close(self) -> None:
        """Release the connections."""
        with self._holding:
            if self._held is not None:
                self._held[0].close()
                self._held = None
        self.engine.dispose()

    @contextmanager
    def _read(self) -> Iterator[Session]:
        with Session(self.engine, expire_on_commit=False) as session, session.begin():
            yield session

    @contextmanager
    def _write(self) -> Iterator[Session]:
        with Session(self._writer, expire_on_commit=False) as session, session.begin():
            yield session

    # --- the log --------------------------------------------------------------------

    def append(
        self, table: str, applied: Sequence[Applied], snapshot: bytes | None = None
    ) -> list[int]:
        """Store log entries and what the mirror concluded from each, in one transaction.

        An event key already stored (or twice in the batch) raises DuplicateEvent and
        writes nothing: the caller's mirror must not have applied it either. A session
        started in the batch is the session of the batch's later entries that name
        none (the caller cannot know its id yet). `snapshot` is kept at the last entry.
        """
        return self.append_tables([(table, applied, snapshot)])[0]

    def append_tables(
        self, parts: Sequence[tuple[str, Sequence[Applied], bytes | None]]
    ) -> list[list[int]]:
        """`append` for several tables in ONE transaction (the service's batch: a commit
        per table per batch cost a drained backlog most of its time); each table's log ids.
        All or nothing: a duplicate in any table raises DuplicateEvent naming it, and
        nothing of any table is written."""
        try:
            if self._in_one_statement(parts):
                return self._events_in_one_statement(parts)
            with self._write() as session:
                writers = [Projector(session, table) for table, _, _ in parts]
                if all(a.kind == "event" for _, applied, _ in parts for a in applied):
                    every = _events_of_tables(session, writers, [p[1] for p in parts])
                else:  # a session, a ruling or a fault: their rows are read by what follows
                    every = [
                        w.entries(applied)
                        for w, (_, applied, _) in zip(writers, parts, strict=True)
                    ]
                for writer, log_ids, (_, _, snapshot) in zip(writers, every, parts, strict=True):
                    if snapshot is not None:
                        writer.snapshot(snapshot, log_ids[-1] if log_ids else None)
                return every
        except IntegrityError as exc:
            for table, applied, _ in parts:
                duplicate = self._duplicate(table, applied)
                if duplicate is not None:
                    raise DuplicateEvent(table, *duplicate) from None
            raise StoreError(f"refused by the database: {exc.orig}") from exc

    def _in_one_statement(
        self, parts: Sequence[tuple[str, Sequence[Applied], bytes | None]]
    ) -> bool:
        """Whether the batch is one INSERT and nothing else: PostgreSQL, events only, none
        concluding anything (no derived rows), no snapshot, fewer than COPY_FROM. Most of a
        club's batches are; at 50 transactions a second BEGIN and COMMIT were two of their
        three round trips, each a release and a retaking of the GIL by the writer's thread."""
        if self.engine.dialect.name != "postgresql":
            return False  # SQLite's BEGIN and COMMIT are calls, not round trips
        rows = 0
        for _, applied, snapshot in parts:
            if snapshot is not None or any(a.kind != "event" or a.records for a in applied):
                return False
            rows += len(applied)
        return 0 < rows < COPY_FROM

    def _events_in_one_statement(
        self, parts: Sequence[tuple[str, Sequence[Applied], bytes | None]]
    ) -> list[list[int]]:
        """Every table's events by one INSERT, committed by itself (all or none of it)."""
        rows = [log_rows(table, applied) for table, applied, _ in parts]
        with self._held_connection() as connection:
            ids = iter(insert_log_rows(connection, [row for each in rows for row in each]))
        return [[next(ids) for _ in each] for each in rows]

    @contextmanager
    def _held_connection(self) -> Iterator[Connection]:
        """An autocommit connection kept between one-statement batches while they come
        steadily: taking one from the pool and giving it back (SQLAlchemy's checkout, its
        isolation level set and reset) was a third of what the writer's thread paid at 100
        events/s. Unused PING_IDLE seconds, it is pinged first (as the pool pings its own)
        and replaced if dead; after an error it is closed, and the next batch takes
        another. A second thread meanwhile takes one of its own from the pool."""
        if not self._holding.acquire(blocking=False):
            with self._one_statement.connect() as connection:
                yield connection
            return
        try:
            held, self._held = self._held, None
            if held is None:
                connection = self._one_statement.connect()
            elif (
                time.monotonic() - held[1] < PING_IDLE
                or _ping_fails(self.engine, held[0].connection.dbapi_connection) is None
            ):
                connection = held[0]
            else:  # dead (a restart, an idle timeout): never back into the pool
                held[0].invalidate()
                held[0].close()
                connection = self._one_statement.connect()
            try:
                yield connection
            except BaseException:
                connection.close()
                raise
            self._held = (connection, time.monotonic())
        finally:
            self._holding.release()

    def _duplicate(self, table: str, applied: Sequence[Applied]) -> tuple[int, int] | None:
        keys = [(a.event.boot_id, a.event.seq) for a in applied if a.event is not None]
        twice = [key for key, n in Counter(keys).items() if n > 1]
        if twice:
            return twice[0]
        return next((key for key in keys if self.has_event(table, *key)), None)

    def has_event(self, table: str, boot_id: int, seq: int) -> bool:
        """Whether the event is stored: the consumer's idempotence on (table, boot_id, seq)."""
        query = select(Log.id).where(Log.table == table, Log.boot_id == boot_id, Log.seq == seq)
        with self._read() as session:
            return session.scalar(query) is not None

    def last_event_key(self, table: str) -> tuple[int, int] | None:
        """The (boot_id, seq) of the table's last stored event, in log order: where a
        restarted consumer asks the bridge to replay from."""
        query = (
            select(Log.boot_id, Log.seq)
            .where(Log.table == table, Log.kind == "event")
            .order_by(Log.id.desc())
            .limit(1)
        )
        with self._read() as session:
            row = session.execute(query).first()
        if row is None or row.boot_id is None or row.seq is None:
            return None
        return (row.boot_id, row.seq)

    def tables(self) -> list[str]:
        """Every table with a log, by name."""
        return list(self.tables_seen())

    def tables_seen(self) -> dict[str, float]:
        """Every table with a log, by name, with the time of its latest entry. One index
        probe a table (a skip scan of the log's (table, id) index), not a pass over the
        log: the service asks every half minute, and a hall's log grows by millions."""
        with self._read() as session:
            return {name: float(ts) for name, ts in session.execute(TABLES_SEEN)}

    def refold(self, table: str) -> dict[str, Any]:
        """Derive every row of a table again from its whole log (after a rules fix, or a
        snapshot of another format), in one transaction; what changed. The service must
        not follow the table meanwhile (its picture would be the old one)."""
        with self._write() as session:
            first = session.scalar(select(func.min(Log.id)).where(Log.table == table))
            if first is None:
                raise NotFound(f"no table {table!r} in the records")
            done = rederive(session, Projector(session, table), int(first))
        assert done.effect is not None
        return done.effect

    def latest_snapshot(self, table: str) -> tuple[int, bytes] | None:
        """The table's newest snapshot and the log id it was taken at."""
        query = (
            select(SnapshotModel.log_id, SnapshotModel.data)
            .where(SnapshotModel.table == table)
            .order_by(SnapshotModel.log_id.desc(), SnapshotModel.id.desc())
            .limit(1)
        )
        with self._read() as session:
            row = session.execute(query).first()
        return None if row is None else (row.log_id, bytes(row.data))

    def rulings(self, table: str) -> Rulings:
        """The rulings in force at a table, as the fold reads them."""
        with self._read() as session:
            return table_rulings(session, table)

    def restore(self, table: str) -> tuple[TableMirror, Rulings, int]:
        """The table's mirror as it stands at the end of its log (folded from its newest
        usable snapshot, through the rulings in force), those rulings, and how many entries
        were folded after the snapshot."""
        with self._read() as session:
            mirror, after = restore(session, table)
            rulings = table_rulings(session, table)
        count = 0
        for entry in self.entries(table, after_log_id=after):
            fold(mirror, entry.kind, entry.event, entry.body, rulings, entry.log_id)
            count += 1
        return mirror, rulings, count

    def rule(self, table: str, applied: Applied) -> tuple[int, Rederived]:
        """Store a ruling and, for a ruling on the past, derive the table's rows again from
        the entry it names, in one transaction: its correction id and what it changed.
        InvalidEntry (nothing written) for a ruling that names nothing there is, or that the
        fold cannot follow (a tile code with no copy left)."""
        if applied.kind != "correction" or applied.body is None:
            raise InvalidEntry("a ruling is a correction entry with its body")
        with self._write() as session:
            before = table_rulings(session, table)
            writer = Projector(session, table)
            log_id = writer.entry(applied)
            row = session.scalars(
                select(CorrectionModel).where(CorrectionModel.log_id == log_id)
            ).one()
            start = ruling_start(session, table, parse_ruling(applied.body))
            if start is None:
                return row.id, Rederived(None)
            if table_rulings(session, table) == before:  # e.g. upholding what stands
                row.effect = {"from_log_id": start, "revised_hands": [], "money": []}
                return row.id, Rederived(None, effect=row.effect)
            try:
                done = rederive(session, writer, start)
            except ValidationError as exc:  # an inserted event's body that is no event's
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                raise InvalidEntry(f"the ruling's event body: {where}: {first['msg']}") from None
            except (ValueError, TileCodeError) as exc:
                raise InvalidEntry(f"the ruling cannot be followed: {exc}") from None
            row.effect = done.effect
            return row.id, done

    def entries(self, table: str, after_log_id: int = 0) -> Iterator[Entry]:
        """The table's log after `after_log_id`, in log order, to fold the mirror over.

        Read a page at a time (each page its own short read), so a long club day never
        sits in memory and no transaction stays open while the caller folds; entries
        appended meanwhile are yielded too (the log only grows at its end).
        """
        last = after_log_id
        reader = LogReader()
        while True:
            query = (
                select(*LOG_COLUMNS)
                .where(Log.table == table, Log.id > last)
                .order_by(Log.id)
                .limit(ENTRY_PAGE)
            )
            with self._read() as session:
                page = [reader.entry(row) for row in session.execute(query)]
            yield from page
            if len(page) < ENTRY_PAGE:
                return
            last = page[-1].log_id

    # --- sessions -------------------------------------------------------------------

    def open_session(self, table: str) -> SessionRow | None:
        """The table's session now in play, if any."""
        with self._read() as session:
            found = open_session_row(session, table)
            return None if found is None else _session_row(session, found)

    def last_event_session(self, table: str) -> int | None:
        """The session the table's latest event was played in (a session asked for during
        a hand begins only after it)."""
        query = (
            select(Log.session_id)
            .where(Log.table == table, Log.kind == "event")
            .order_by(Log.id.desc())
            .limit(1)
        )
        with self._read() as session:
            return session.scalar(query)

    def session(self, session_id: int) -> SessionRow | None:
        """One session by id."""
        with self._read() as session:
            found = session.get(SessionModel, session_id)
            return None if found is None else _session_row(session, found)

    def sessions(
        self, table: str | None = None, limit: int | None = None, before: int | None = None
    ) -> list[SessionRow]:
        """Every session (of one table, if named), oldest first; with a `limit`, a page of
        the newest below the id `before`, newest first."""
        query = _page(select(SessionModel), SessionModel.id, limit, before)
        if table is not None:
            query = query.where(SessionModel.table == table)
        with self._read() as session:
            return [_session_row(session, row) for row in session.scalars(query)]

    # --- hands and money ------------------------------------------------------------

    def hands(
        self,
        table: str | None = None,
        session_id: int | None = None,
        limit: int | None = 100,
        before_id: int | None = None,
    ) -> list[HandRow]:
        """Hands newest first, a page of `limit` (None: all) below `before_id`."""
        query = _hands_query().order_by(HandModel.id.desc()).limit(limit)
        if table is not None:
            query = query.where(HandModel.table == table)
        if session_id is not None:
            query = query.where(HandModel.session_id == session_id)
        if before_id is not None:
            query = query.where(HandModel.id < before_id)
        with self._read() as session:
            return [_hand_row(hand, ts) for hand, ts in session.execute(query)]

    def hand(self, hand_id: int) -> HandRow | None:
        """One hand by id."""
        with self._read() as session:
            row = session.execute(_hands_query().where(HandModel.id == hand_id)).first()
        return None if row is None else _hand_row(*row)

    def hand_entries(self, hand_id: int) -> list[Entry] | None:
        """The log entries a hand was played in: after the table's previous hand (or the
        start of its log) up to the entry that ended it, as the referee's rulings made them
        (a corrected tile, an event that did not happen, one that was missing: each marked
        `ruled`). None for an unknown hand."""
        with self._read() as session:
            hand = session.get(HandModel, hand_id)
            if hand is None:
                return None
            before = session.execute(
                select(func.max(HandModel.log_id)).where(
                    HandModel.table == hand.table, HandModel.id < hand.id
                )
            ).scalar()
            table, last = hand.table, hand.log_id
            rulings = table_rulings(session, table)
            mirror, after = restore(session, table, before=(before or 0) + 1)
        entries: list[Entry] = []
        for entry in self.entries(table, after_log_id=after):
            if entry.log_id > last:
                break
            if entry.log_id > (before or 0):
                entries += _as_ruled(entry, rulings, mirror)
            fold(mirror, entry.kind, entry.event, entry.body, rulings, entry.log_id)
        return entries

    def ledger(self, session_id: int) -> list[LedgerRow]:
        """The session's money line by line, each with its seat's running total; raises
        NotFound for an unknown session."""
        with self._read() as session:
            _session_or_raise(session, session_id)
            return _ledger(session, session_id)

    def standings(self, session_id: int) -> list[StandingRow]:
        """Each seat's money and record in the session (totals sum to 0); raises NotFound."""
        with self._read() as session:
            found = _session_or_raise(session, session_id)
            return _standings(session, found)

    # --- the referee's side ---------------------------------------------------------

    def violations(
        self,
        table: str | None = None,
        session_id: int | None = None,
        status: Status | None = None,
        limit: int | None = None,
        before: int | None = None,
        withhold: frozenset[str] = frozenset(),
    ) -> list[ViolationRow]:
        """Violations oldest first, each with the latest verdict in force on it (a ruling
        names a violation by its event, seat and code, so it outlives a re-derivation);
        `status` filters on it. With a `limit`: a page of the newest below the id `before`,
        newest first. Codes in `withhold` are left out until a hand of their table has
        ended after them (what the public may not know during the hand)."""
        query = select(ViolationModel, Log.ts).join(Log, Log.id == ViolationModel.log_id)
        # a status is a verdict in force, known only after reading: filter, then take the page
        query = _page(query, ViolationModel.id, limit if status is None else None, before)
        if status is not None and limit is not None:
            query = query.order_by(None).order_by(ViolationModel.id.desc())
        if table is not None:
            query = query.where(ViolationModel.table == table)
        if session_id is not None:
            query = query.where(ViolationModel.session_id == session_id)
        if withhold:
            ended = (
                select(HandModel.id)
                .where(HandModel.table == ViolationModel.table)
                .where(HandModel.log_id >= ViolationModel.log_id)
                .exists()
            )
            query = query.where(or_(ViolationModel.code.not_in(withhold), ended))
        with self._read() as session:
            rows = session.execute(query).all()
            verdicts = _verdicts(session, {v.table for v, _ in rows})
        out = [_violation_row(v, ts, verdicts.get(_violation_key(v))) for v, ts in rows]
        if status is not None:
            out = [row for row in out if row.status == status][:limit]
        return out

    def violation(self, violation_id: int) -> ViolationRow | None:
        """One violation by id, with the latest verdict in force on it."""
        return self._one_violation(ViolationModel.id == violation_id)

    def violation_at(
        self, table: str, boot_id: int, seq: int, seat: int, code: str
    ) -> ViolationRow | None:
        """A violation by what it is (a ruling re-derives the rows, and their ids change)."""
        return self._one_violation(
            ViolationModel.table == table,
            ViolationModel.boot_id == boot_id,
            ViolationModel.seq == seq,
            ViolationModel.seat == seat,
            ViolationModel.code == code,
        )

    def _one_violation(self, *where: Any) -> ViolationRow | None:
        query = (
            select(ViolationModel, Log.ts)
            .join(Log, Log.id == ViolationModel.log_id)
            .where(*where)
            .order_by(ViolationModel.id)
            .limit(1)
        )
        with self._read() as session:
            found = session.execute(query).first()
            if found is None:
                return None
            v, ts = found
            verdict = _verdicts(session, {v.table}).get(_violation_key(v))
        return _violation_row(v, ts, verdict)

    def ruling(self, ruling_id: int) -> CorrectionRow | None:
        """One ruling by id, with the undo that withdrew it (if one is in force)."""
        with self._read() as session:
            row = session.get(CorrectionModel, ruling_id)
            if row is None:
                return None
            withdrawn = _withdrawn(session, {row.table})
            return _correction_row(row, withdrawn)

    def faults(
        self,
        table: str | None = None,
        session_id: int | None = None,
        limit: int | None = None,
        before: int | None = None,
    ) -> list[FaultRow]:
        """Faults oldest first; with a `limit`, a page of the newest below the id `before`,
        newest first."""
        query = select(FaultModel, Log.ts).join(Log, Log.id == FaultModel.log_id)
        query = _page(query, FaultModel.id, limit, before)
        if table is not None:
            query = query.where(FaultModel.table == table)
        if session_id is not None:
            query = query.where(FaultModel.session_id == session_id)
        with self._read() as session:
            rows = session.execute(query).all()
        return [FaultRow.model_validate({**_columns(f), "at": ts}) for f, ts in rows]

    def corrections(
        self,
        table: str | None = None,
        session_id: int | None = None,
        limit: int | None = None,
        before: int | None = None,
    ) -> list[CorrectionRow]:
        """Rulings oldest first, each with what it changed and the undo that withdrew it;
        with a `limit`, a page of the newest below the id `before`, newest first."""
        query = _page(select(CorrectionModel), CorrectionModel.id, limit, before)
        if table is not None:
            query = query.where(CorrectionModel.table == table)
        if session_id is not None:
            query = query.where(CorrectionModel.session_id == session_id)
        with self._read() as session:
            rows = list(session.scalars(query))
            withdrawn = _withdrawn(session, {row.table for row in rows})
            return [_correction_row(row, withdrawn) for row in rows]

    # --- tokens ---------------------------------------------------------------------

    def create_token(self, role: str, label: str) -> tuple[TokenRow, str]:
        """A new token and its secret: the secret is returned here once and never stored."""
        if role not in ROLES:
            raise InvalidEntry(f"role must be one of {', '.join(ROLES)}")
        secret = secrets.token_urlsafe(32)
        with self._write() as session:
            row = TokenModel(
                role=role, label=label, hash=token_hash(secret), created_at=time.time()
            )
            session.add(row)
            session.flush()
            return TokenRow.model_validate(row, from_attributes=True), secret

    def token_for(self, secret: str) -> TokenRow | None:
        """The valid (not revoked) token with this secret, if any."""
        query = select(TokenModel).where(
            TokenModel.hash == token_hash(secret), TokenModel.revoked_at.is_(None)
        )
        with self._read() as session:
            row = session.scalar(query)
            return None if row is None else TokenRow.model_validate(row, from_attributes=True)

    def revoke_token(self, token_id: int) -> TokenRow:
        """Revoke a token (once: revoking it again keeps the first time); NotFound if unknown."""
        with self._write() as session:
            row = session.get(TokenModel, token_id)
            if row is None:
                raise NotFound(f"no token {token_id}")
            if row.revoked_at is None:
                row.revoked_at = time.time()
            return TokenRow.model_validate(row, from_attributes=True)

    def tokens(self, limit: int | None = None, before: int | None = None) -> list[TokenRow]:
        """Every token, revoked ones included (never their secrets), oldest first; with a
        `limit`, a page of the newest below the id `before`, newest first."""
        with self._read() as session:
            rows = session.scalars(_page(select(TokenModel), TokenModel.id, limit, before))
            return [TokenRow.model_validate(row, from_attributes=True) for row in rows]

    # --- players --------------------------------------------------------------------

    def add_player(
        self, name: str, nickname: str | None = None, member_no: str | None = None
    ) -> PlayerRow:
        """A player added to the club's list; InvalidEntry for a name or number taken."""
        with self._write() as session:
            return players.add_player(session, name, nickname, member_no)

    def players(self, merged: bool = False) -> list[PlayerRow]:
        """The club's players by name (those merged into another only with `merged`)."""
        query = select(PlayerModel).order_by(PlayerModel.name, PlayerModel.id)
        if not merged:
            query = query.where(PlayerModel.merged_into.is_(None))
        with self._read() as session:
            return [players.player_row(row) for row in session.scalars(query)]

    def player(self, player_id: int) -> PlayerRow:
        with self._read() as session:
            return players.player_row(players.player_or_raise(session, player_id))

    def change_player(self, player_id: int, changes: dict[str, str | None]) -> PlayerRow:
        """A player renamed, renumbered or nicknamed (the sessions keep the names played)."""
        with self._write() as session:
            return players.change_player(session, player_id, changes)

    def merge_players(self, player_id: int, into: int) -> PlayerRow:
        """Two entries of one person made one: `player_id`'s history counts under `into`."""
        with self._write() as session:
            return players.merge_players(session, player_id, into)

    def player_stats(
        self,
        player_id: int,
        session_id: int | None = None,
        since: float | None = None,
        until: float | None = None,
        profile: str | None = None,
    ) -> PlayerStats:
        with self._read() as session:
            return players.player_stats(
                session, player_id, session_id, since, until, profile, cache=self._figures
            )

    def player_hands(self, player_id: int, limit: int = 1000) -> list[PlayerHand]:
        with self._read() as session:
            return players.player_hands(session, player_id, limit)

    def leaderboard(
        self,
        figure: str,
        since: float | None = None,
        until: float | None = None,
        min_hands: int = 0,
        profile: str | None = None,
    ) -> list[Standing]:
        with self._read() as session:
            return players.leaderboard(
                session, figure, since, until, min_hands, profile, cache=self._figures
            )

    def count_figures(self) -> None:
        """Count and keep every session's tallies (the players' figures are sums of them)."""
        with self._read() as session:
            players.everyones_stats(session, cache=self._figures)

    def players_csv(
        self, since: float | None = None, until: float | None = None, profile: str | None = None
    ) -> str:
        """Every listed player's figures over a span, as a spreadsheet."""
        with self._read() as session:
            everyone = players.everyones_stats(session, since, until, profile, cache=self._figures)
            return players.stats_csv(everyone)

    def seated_elsewhere(self, player_ids: list[int], table: str) -> list[tuple[int, str]]:
        """Which of these players sit in a session not ended at another table."""
        with self._read() as session:
            return players.seated_elsewhere(session, player_ids, table)

    # --- exports --------------------------------------------------------------------

    def export_session(self, session_id: int) -> dict[str, Any]:
        """A session whole, JSON-ready: the session, its hands (oldest first), the ledger
        and the standings; raises NotFound."""
        query = _hands_query().where(HandModel.session_id == session_id).order_by(HandModel.id)
        with self._read() as session:
            found = _session_or_raise(session, session_id)
            hands = [_hand_row(h, ts) for h, ts in session.execute(query)]
            ledger = _ledger(session, session_id)
            standings = _standings(session, found)
            row = _session_row(session, found)
        return {
            "session": row.model_dump(mode="json"),
            "hands": [h.model_dump(mode="json", by_alias=True) for h in hands],
            "ledger": [line.model_dump(mode="json") for line in ledger],
            "standings": [s.model_dump(mode="json") for s in standings],
        }

    def export_csv(self, session_id: int) -> str:
        """The session as a spreadsheet (UTF-8 with a BOM, so a spreadsheet reads its names
        right): a row per hand, per correction (a penalty with its reason, a deal put right,
        a note) in log order, each with each player's net, then the totals. Seats are
        named by their players; raises NotFound."""
        with self._read() as session:
            found = _session_or_raise(session, session_id)
            ledger = _ledger(session, session_id)
            hands = {h.id: h for h in session.scalars(_session_hands(session_id))}
            corrections = {
                c.id: c
                for c in session.scalars(
                    select(CorrectionModel).where(CorrectionModel.session_id == session_id)
                )
            }
            players = [str(p) for p in found.players]

        def name(seat: object) -> str:
            return players[seat] if type(seat) is int and 0 <= seat < SEATS else ""

        rows: list[tuple[int, list[object]]] = []  # (log id, row): the log's order
        moved: set[int] = set()
        for group in _groups(ledger):
            first = group[0]
            net = [0] * SEATS
            for line in group:
                net[line.seat] += line.amount
            when = _iso(first.at)
            if first.hand_id is not None:
                h = hands[first.hand_id]
                info: list[object] = [h.hand_no, when, h.round_wind, name(h.dealer), h.streak]
                info += [h.result, h.kind, name(h.seat), name(h.payer), h.tai, ""]
            else:
                c = corrections[first.correction_id or 0]
                moved.add(c.id)
                info = _correction_info(c, when, name)
            rows.append((first.log_id, [*info, *net]))
        for c in corrections.values():
            if c.id not in moved:  # a deal put right or a note: no money moved
                rows.append((c.log_id, [*_correction_info(c, _iso(c.at), name), *[""] * SEATS]))
        out = io.StringIO()
        out.write("\ufeff")
        writer = csv.writer(out, lineterminator="\n")
        head = ["hand", "time", "round_wind", "dealer", "streak", "result", "kind", "player"]
        writer.writerow([*head, "payer", "tai", "note", *players])
        writer.writerows(row for _, row in sorted(rows, key=lambda r: r[0]))
        totals = [0] * SEATS
        for line in ledger:
            totals[line.seat] += line.amount
        writer.writerow(["total", *[""] * 10, *totals])
        return out.getvalue()


# --- reading ----------------------------------------------------------------------------


def _columns(row: object) -> dict[str, Any]:
    mapper = inspect(row).mapper
    return {attr.key: getattr(row, attr.key) for attr in mapper.column_attrs}


def _session_or_raise(session: Session, session_id: int) -> SessionModel:
    found = session.get(SessionModel, session_id)
    if found is None:
        raise NotFound(f"no session {session_id}")
    return found


def _session_row(session: Session, row: SessionModel) -> SessionRow:
    profile = SessionStart(profile=row.profile, base=row.base, per_tai=row.per_tai).rule_profile()
    columns = _columns(row)
    if None in (row.dealer, row.streak, row.round_wind):  # left to the table: its first hand
        first = session.scalars(_session_hands(row.id).limit(1)).first()
        if first is not None:
            for name in ("dealer", "streak", "round_wind"):
                if columns[name] is None:
                    columns[name] = getattr(first, name)
    ids: list[int | None] = [None] * 4
    seats = select(SeatModel.seat, SeatModel.player_id).where(SeatModel.session_id == row.id)
    for seat, player_id in session.execute(seats):
        ids[seat] = player_id
    return SessionRow.model_validate(
        {
            **columns,
            "player_ids": ids,
            "profile_label": profile.label,
            "rules": profile.to_mapping(),
        }
    )


_Q = TypeVar("_Q", bound="Select[*tuple[Any, ...]]")


def _page(query: _Q, id_: Any, limit: int | None, before: int | None) -> _Q:
    """Every row oldest first, or (a `limit`) a page of the newest below `before`."""
    if before is not None:
        query = query.where(id_ < before)
    if limit is None:
        return query.order_by(id_)
    return query.order_by(id_.desc()).limit(limit)


def _hands_query() -> Select[HandModel, float]:
    return select(HandModel, Log.ts).join(Log, Log.id == HandModel.log_id)


def _session_hands(session_id: int) -> Select[HandModel]:
    return select(HandModel).where(HandModel.session_id == session_id).order_by(HandModel.id)


def _hand_row(hand: HandModel, ts: float) -> HandRow:
    return HandRow.model_validate({**_columns(hand), "at": ts})


def _as_ruled(entry: Entry, rulings: Rulings, mirror: TableMirror) -> list[Entry]:
    """A log entry as the rulings in force read it (before it is folded into `mirror`)."""
    event = entry.event
    if event is None or not rulings.touches((event.boot_id, event.seq)):
        return [entry]
    placed = mirror.hand.where if mirror.hand is not None else {}
    out = [replace(entry, ruled="dropped")] if rulings.drops(event) else []
    for amended, inserted in rulings.events(event, placed):
        ruled = "inserted" if inserted else "corrected"
        out.append(replace(entry, event=amended, ruled=ruled))
    return out


ViolationKey = tuple[str, int, int, int, str]  # table, boot_id, seq, seat, code


def _violation_key(v: ViolationModel) -> ViolationKey:
    return (v.table, v.boot_id, v.seq, v.seat, v.code)


def _withdrawn(session: Session, tables: set[str]) -> dict[int, int]:
    """Ruling id → the undo in force that withdrew it, at these tables."""
    query = (
        select(CorrectionModel.id, CorrectionModel.body)
        .where(CorrectionModel.table.in_(tables), CorrectionModel.kind == "undo")
        .order_by(CorrectionModel.id.desc())
    )
    out: dict[int, int] = {}
    for undo_id, body in session.execute(query):  # the latest undo of a chain decides
        if undo_id not in out:
            out[int(body["ruling"])] = undo_id
    return out


def _verdicts(session: Session, tables: set[str]) -> dict[ViolationKey, DecisionRow]:
    """The latest verdict in force on each violation at these tables."""
    if not tables:
        return {}
    withdrawn = _withdrawn(session, tables)
    query = (
        select(CorrectionModel)
        .where(CorrectionModel.table.in_(tables), CorrectionModel.kind == "verdict")
        .order_by(CorrectionModel.id)
    )
    out: dict[ViolationKey, DecisionRow] = {}
    for row in session.scalars(query):
        if row.id in withdrawn:
            continue
        b = row.body
        out[(row.table, b["boot_id"], b["seq"], b["seat"], b["code"])] = DecisionRow(
            id=row.id,
            violation_id=0,
            decision=VERDICT_STATUS[b["decision"]],
            note=str(b.get("reason", "")),
            token_id=row.token_id,
            at=row.at,
        )
    return out


def _violation_row(v: ViolationModel, ts: float, d: DecisionRow | None) -> ViolationRow:
    decision = None if d is None else d.model_copy(update={"violation_id": v.id})
    status = "open" if decision is None else decision.decision
    return ViolationRow.model_validate(
        {**_columns(v), "at": ts, "status": status, "decision": decision}
    )


def _correction_row(row: CorrectionModel, withdrawn: dict[int, int]) -> CorrectionRow:
    return CorrectionRow.model_validate({**_columns(row), "withdrawn_by": withdrawn.get(row.id)})


def _ledger(session: Session, session_id: int) -> list[LedgerRow]:
    query = (
        select(LedgerLine, Log.ts)
        .join(Log, Log.id == LedgerLine.log_id)
        .where(LedgerLine.session_id == session_id)
        .order_by(LedgerLine.id)
    )
    totals = [0] * SEATS
    rows: list[LedgerRow] = []
    for line, ts in session.execute(query):
        totals[line.seat] += line.amount
        rows.append(
            LedgerRow.model_validate({**_columns(line), "at": ts, "total": totals[line.seat]})
        )
    return rows


def _standings(session: Session, found: SessionModel) -> list[StandingRow]:
    totals = dict(
        session.execute(
            select(LedgerLine.seat, func.sum(LedgerLine.amount))
            .where(LedgerLine.session_id == found.id)
            .group_by(LedgerLine.seat)
        ).all()
    )
    counts = {key: Counter[int]() for key in ("wins", "self_draws", "dealt_in", "false_wins")}
    played = 0
    query = select(HandModel.result, HandModel.kind, HandModel.seat, HandModel.payer).where(
        HandModel.session_id == found.id
    )
    for result, kind, seat, payer in session.execute(query):
        played += 1
        if result in ("win", "flower_win") and seat is not None:
            counts["wins"][seat] += 1
            if kind == "self_draw":
                counts["self_draws"][seat] += 1
            if kind in ("discard", "robbing_kong") and payer is not None:
                counts["dealt_in"][payer] += 1
        elif result == "false_win" and seat is not None:
            counts["false_wins"][seat] += 1
    return [
        StandingRow(
            seat=seat,
            player=str(found.players[seat]),
            total=int(totals.get(seat) or 0),
            hands=played,
            wins=counts["wins"][seat],
            self_draws=counts["self_draws"][seat],
            dealt_in=counts["dealt_in"][seat],
            false_wins=counts["false_wins"][seat],
        )
        for seat in range(SEATS)
    ]


def _groups(ledger: list[LedgerRow]) -> Iterator[list[LedgerRow]]:
    """The ledger's lines grouped by the hand or correction they came from, in order."""
    group: list[LedgerRow] = []
    for line in ledger:
        if group and (line.hand_id, line.correction_id) != (
            group[0].hand_id,
            group[0].correction_id,
        ):
            yield group
            group = []
        group.append(line)
    if group:
        yield group


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def _correction_info(c: CorrectionModel, when: str, name: Callable[[object], str]) -> list[object]:
    """A correction's first eleven CSV columns: a penalty names its offender and reason,
    a deal correction the next dealer, streak and round wind, a note its text."""
    body = c.body if isinstance(c.body, dict) else {}
    wind = body.get("round_wind")
    wind = WINDS[wind] if type(wind) is int and 0 <= wind < len(WINDS) else ""
    note = str(body.get("reason") or body.get("note") or "")
    if c.kind == "deal":
        return [
            "",
            when,
            wind,
            name(body.get("dealer")),
            body.get("streak", ""),
            "correction",
            "deal",
            "",
            "",
            "",
            note,
        ]
    tai = body.get("tai", "") if c.kind == "penalty" else ""
    return ["", when, "", "", "", "correction", c.kind, name(body.get("seat")), "", tai, note]


def _events_of_tables(
    session: Session, writers: Sequence[Projector], runs: Sequence[Sequence[Applied]]
) -> list[list[int]]:
    """Runs of events of several tables: every log row in one INSERT (each table's rows
    together, in order), then each table's derived rows; each table's log ids."""
    rows = [writer.event_rows(run) for writer, run in zip(writers, runs, strict=True)]
    ids = iter(insert_events(session, [row for table_rows in rows for row in table_rows]))
    every = []
    for writer, run, table_rows in zip(writers, runs, rows, strict=True):
        log_ids = [next(ids) for _ in table_rows]
        writer.events_stored(run, table_rows, log_ids)
        writer.write()
        every.append(log_ids)
    return every
