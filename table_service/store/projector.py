"""The projector: a table's log entries in, the rows derived from them out.

Appending writes an entry and what the fold concluded from it (hands, violations,
faults, ledger lines) together. A referee's ruling on the past derives the rows again:
from the entry it names to the end of the table's log, the rows are deleted and folded
anew through the rulings in force (the mirror restored from a snapshot taken before
that entry), in the same transaction as the ruling, so a crash leaves either the old
records or the new ones. Sessions and the log itself are never derived: they are facts.
"""

from __future__ import annotations

import functools
import gc
import json
import pickle
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy import Connection, Text, cast, delete, func, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from firmware_bridge.messages import EVENT_BODY, SCHEMA_VERSION, Event
from table_service.mirror.core import MIRROR_FORMAT
from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, HandRecord, Record, Violation
from table_service.mirror.rulings import (
    ON_EVENTS,
    RULING_KINDS,
    PenaltyRuling,
    Rulings,
    in_force,
    parse_ruling,
)
from table_service.mirror.session import SessionStart
from table_service.store.entries import ENTRY_KINDS, Applied, Entry
from table_service.store.errors import InvalidEntry
from table_service.store.models import (
    Base,
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

SEATS: Final = 4
PAGE: Final = 20_000  # log rows read at a time while deriving (a few MB)
PENDING: Final = 1000  # derived rows held before they are written (one round trip each kind)
# A snapshot is a pickled mirror with the format it was written in: one of another
# format (an older mjtable's, whose fields may have been renamed) is ignored, and the
# table is folded from its log instead.
SNAPSHOT_FORMAT: Final = f"mjtable-mirror-{MIRROR_FORMAT}"


def dump_snapshot(mirror: TableMirror) -> bytes:
    return pickle.dumps((SNAPSHOT_FORMAT, mirror))


def load_snapshot(data: bytes) -> TableMirror | None:
    """The mirror in a snapshot, or None for one of another format (or unreadable)."""
    try:
        value = pickle.loads(data)  # written by this service, in its own database
    except Exception:  # an older mjtable's classes: fold from the log instead
        return None
    if isinstance(value, tuple) and len(value) == 2 and value[0] == SNAPSHOT_FORMAT:
        mirror = value[1]
        return mirror if isinstance(mirror, TableMirror) else None
    return None


LOG_TABLE: Final = Log.metadata.tables[Log.__tablename__]
COPY_FROM: Final = 64  # rows from which PostgreSQL takes events by COPY, not INSERT
LOG_FIELDS: Final = ("table", "kind", "boot_id", "seq", "ts", "body", "session_id")
_LOG_FIELDS_SQL: Final = ", ".join(f'"{c}"' for c in LOG_FIELDS)
LOG_COPY: Final = f"COPY log (id, {_LOG_FIELDS_SQL}) FROM STDIN"
LOG_IDS: Final = text(
    "SELECT nextval(pg_get_serial_sequence('log', 'id')) FROM generate_series(1, :n)"
)


def insert_events(session: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Event rows, of one table or several, in one statement; their log ids in the rows'
    order. On PostgreSQL a batch goes by COPY with ids taken from the sequence first: a
    multi-row INSERT of hundreds of rows was a new statement text each time, parsed by
    the driver and planned by the server every batch (over half a drained backlog's
    time)."""
    if not rows:
        return []
    if len(rows) >= COPY_FROM and session.get_bind().dialect.name == "postgresql":
        return _copy_events(session, rows)
    return insert_log_rows(session.connection(), rows)


def insert_log_rows(connection: Connection, rows: Sequence[dict[str, Any]]) -> list[int]:
    """Event rows by one multi-row INSERT (fewer than COPY_FROM); their ids in the rows'
    order. PostgreSQL's through psycopg itself; SQLite's by a Core INSERT (not the ORM's
    bulk insert: the rows are plain column values already)."""
    if connection.dialect.name == "postgresql":
        return _insert_by_driver(connection, rows)
    query = insert(LOG_TABLE).returning(LOG_TABLE.c.id, sort_by_parameter_order=True)
    return list(connection.execute(query, rows).scalars())


@functools.lru_cache(maxsize=COPY_FROM)
def _values_insert(n: int) -> str:
    """The INSERT of `n` event rows: one text per `n` (below COPY_FROM: more go by COPY),
    which psycopg prepares on the server once it has run five times (no parse, no plan
    after that)."""
    row = f"({', '.join(['%s'] * len(LOG_FIELDS))})"
    return (
        f"INSERT INTO log ({_LOG_FIELDS_SQL}) VALUES {', '.join([row] * n)}"
        ' RETURNING id, "table", boot_id, seq'
    )


def _insert_by_driver(connection: Connection, rows: Sequence[dict[str, Any]]) -> list[int]:
    """`insert_log_rows` on PostgreSQL through psycopg itself. SQLAlchemy's statement
    (its cache key, its sorted RETURNING, its JSON type) cost the writer's thread about
    two thirds of a small batch's CPU. Each id is matched to its row by the event key,
    which the log holds unique, so nothing rests on the order RETURNING gives."""
    values = [value for row in rows for value in _driver_values(row)]
    query = _values_insert(len(rows))
    with _driver_cursor(connection, query) as cursor:
        cursor.execute(query, values)
        ids = {(table, boot_id, seq): id_ for id_, table, boot_id, seq in cursor}
    return [ids[(row["table"], row["boot_id"], row["seq"])] for row in rows]


def log_rows(
    table: str, run: Sequence[Applied], started: int | None = None
) -> list[dict[str, Any]]:
    """The log rows of a run of events of `table`, to be inserted (`started`: the session
    begun earlier in the same batch, for events that name none)."""
    rows: list[dict[str, Any]] = []
    for item in run:
        event = item.event
        if item.kind != "event" or event is None:
            raise InvalidEntry("an entry of kind 'event' needs its event")
        if event.table != table:
            raise InvalidEntry(f"event of table {event.table!r} appended to {table!r}")
        rows.append(
            {
                "table": table,
                "kind": "event",
                "boot_id": event.boot_id,
                "seq": event.seq,
                "ts": event.ts,
                "body": event.body.model_dump(mode="json"),
                "session_id": item.session_id if item.session_id is not None else started,
            }
        )
    return rows


def _driver_values(row: dict[str, Any]) -> tuple[Any, ...]:
    """A log row's values for psycopg itself, in LOG_FIELDS' order (the body as JSON
    text, as SQLAlchemy's JSON type would write it)."""
    body = row["body"]
    return tuple(
        json.dumps(body) if c == "body" and body is not None else row[c] for c in LOG_FIELDS
    )


@contextmanager
def _driver_cursor(connection: Connection, statement: str) -> Iterator[Any]:
    """A cursor of psycopg itself on the connection; a refused row (a duplicate event: the
    caller finds which) raised as SQLAlchemy's IntegrityError, as its own statements do."""
    driver = connection.connection.driver_connection
    assert driver is not None
    try:
        with driver.cursor() as cursor:
            yield cursor
    except driver.IntegrityError as exc:
        raise IntegrityError(statement, None, exc) from exc


def _copy_events(session: Session, rows: Sequence[dict[str, Any]]) -> list[int]:
    connection = session.connection()
    ids = sorted(connection.execute(LOG_IDS, {"n": len(rows)}).scalars())
    with _driver_cursor(connection, LOG_COPY) as cursor, cursor.copy(LOG_COPY) as copy:
        for log_id, row in zip(ids, rows, strict=True):
            copy.write_row((log_id, *_driver_values(row)))
    return ids


class Projector:
    """One transaction's writes: log entries, and the rows the fold derived from them.

    Derived rows wait in lists and go out in one multi-row INSERT per kind (`write`): the
    ORM's unit of work, a row at a time, cost a re-derivation half its time on PostgreSQL.
    """

    def __init__(self, session: Session, table: str) -> None:
        self.session = session
        self.table = table
        self.started: int | None = None  # a session started earlier in this batch
        # a session's players never change: one lookup per session, not one per hand
        self.players: dict[int, list[str]] = {}
        self.pending: dict[type[Base], list[dict[str, Any]]] = {
            ViolationModel: [],
            FaultModel: [],
            LedgerLine: [],
        }
        self.hands: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # row, its lines
        # a re-derivation's rows keep the ids their earlier selves had (links to a hand, a
        # verdict on a violation's id), found by what they are: see `keep_ids`
        self.kept: dict[type[Base], dict[tuple[Any, ...], list[int]]] = {
            HandModel: {},
            ViolationModel: {},
        }

    @property
    def waiting(self) -> int:
        """Derived rows not yet written."""
        return len(self.hands) + sum(len(rows) for rows in self.pending.values())

    def entries(self, applied: Sequence[Applied]) -> list[int]:
        """Append entries in order, and every row derived from them; their log ids. A run of
        events goes in as one INSERT; a session, a ruling or a fault one at a time (what
        follows them reads their rows)."""
        log_ids: list[int] = []
        run: list[Applied] = []
        for item in applied:
            if item.kind == "event":
                run.append(item)
                continue
            log_ids += self._events(run)
            run = []
            log_ids.append(self._entry(item))
        log_ids += self._events(run)
        self.write()
        return log_ids

    def entry(self, applied: Applied) -> int:
        """Append one entry and its rows; its log id."""
        return self.entries([applied])[0]

    def _events(self, run: Sequence[Applied]) -> list[int]:
        rows = self.event_rows(run)
        if not rows:
            return []
        log_ids = insert_events(self.session, rows)
        self.events_stored(run, rows, log_ids)
        return log_ids

    def event_rows(self, run: Sequence[Applied]) -> list[dict[str, Any]]:
        """The log rows of a run of events of this table, to be inserted."""
        return log_rows(self.table, run, self.started)

    def events_stored(
        self, run: Sequence[Applied], rows: Sequence[dict[str, Any]], log_ids: Sequence[int]
    ) -> None:
        """The rows the events' records derive, now that the events have their log ids."""
        for item, log_id, row in zip(run, log_ids, rows, strict=True):
            for record in item.records:
                self.record(log_id, row["session_id"], record)

    def _session_of(self, applied: Applied) -> int | None:
        return applied.session_id if applied.session_id is not None else self.started

    def _entry(self, applied: Applied) -> int:
        kind = applied.kind
        if kind == "event" or kind not in ENTRY_KINDS:
            raise InvalidEntry(f"unknown entry kind {kind!r}")
        session_id = self._session_of(applied)
        log = Log(
            table=self.table,
            kind=kind,
            boot_id=None,
            seq=None,
            ts=time.time(),
            body=applied.body,
            session_id=session_id,
        )
        self.session.add(log)
        self.session.flush()
        if kind == "session":
            log.session_id = session_id = self._start(log)
        elif kind == "session_end":
            log.session_id = session_id = self._end(log, session_id)
        elif kind == "correction":
            self._correction(log, session_id)
        elif kind == "seating":
            log.session_id = session_id = self._seat(log)
        for record in applied.records:
            self.record(log.id, session_id, record)
        return log.id

    def _start(self, log: Log) -> int:
        try:
            start = SessionStart.model_validate(log.body or {})
        except ValidationError as exc:
            raise InvalidEntry(f"session body: {exc.errors()[0]['msg']}") from None
        if start.table is not None and start.table != self.table:
            raise InvalidEntry(f"session of table {start.table!r} appended to {self.table!r}")
        previous = open_session_row(self.session, self.table)
        if previous is not None:  # a table has one session at a time: the new one ends it
            previous.ended_log_id, previous.ended_at = log.id, log.ts
        row = SessionModel(
            table=self.table,
            players=list(start.players),
            profile=start.profile,
            base=start.base,
            per_tai=start.per_tai,
            start_seat=start.deal().first_dealer,  # the service always names it
            dealer=start.dealer,
            streak=start.streak,
            round_wind=start.round_wind,
            started_log_id=log.id,
            started_at=log.ts,
        )
        self.session.add(row)
        self.session.flush()
        self._seat_players(row.id, start.player_ids or ())
        self.started = row.id
        return row.id

    def _seat_players(self, session_id: int, player_ids: Sequence[int | None]) -> None:
        """Who of the club's list sits where (a player once per session)."""
        seated = [(seat, pid) for seat, pid in enumerate(player_ids) if pid is not None]
        ids = [pid for _, pid in seated]
        if len(set(ids)) != len(ids):
            raise InvalidEntry("a player sits at one seat of a session")
        for seat, player_id in seated:
            if self.session.get(PlayerModel, player_id) is None:
                raise InvalidEntry(f"no player {player_id}")
            self.session.add(SeatModel(session_id=session_id, seat=seat, player_id=player_id))

    def _seat(self, log: Log) -> int:
        """A seat of the open session taken (by name, and by the list's id when listed)
        before its first hand: the session's names and seats say so from now on."""
        body = log.body or {}
        seat, name, player_id = body.get("seat"), body.get("name"), body.get("player_id")
        if type(seat) is not int or not 0 <= seat < SEATS or not isinstance(name, str):
            raise InvalidEntry("seating body must name a seat 0-3 and a name")
        row = open_session_row(self.session, self.table)
        if row is None:
            raise InvalidEntry(f"table {self.table!r} has no session to seat")
        played = select(HandModel.id).where(HandModel.session_id == row.id).limit(1)
        if self.session.scalar(played) is not None:
            raise InvalidEntry(f"session {row.id} has played a hand: its seats stand")
        taken = self.session.scalar(
            select(SeatModel.seat).where(
                SeatModel.session_id == row.id,
                SeatModel.player_id == player_id,
                SeatModel.seat != seat,
            )
        )
        if taken is not None:
            raise InvalidEntry(f"player {player_id} sits at seat {taken} of session {row.id}")
        names = list(row.players)
        names[seat] = name
        row.players = names
        self.players.pop(row.id, None)
        self.session.execute(
            delete(SeatModel).where(SeatModel.session_id == row.id, SeatModel.seat == seat)
        )
        if player_id is not None:
            self._seat_players(row.id, [player_id if s == seat else None for s in range(SEATS)])
        return row.id

    def _end(self, log: Log, session_id: int | None) -> int:
        if session_id is not None:
            target = self.session.get(SessionModel, session_id)
        else:
            target = open_session_row(self.session, self.table)
        if target is None or target.table != self.table:
            raise InvalidEntry(f"no session of table {self.table!r} to end")
        if target.ended_log_id is not None:
            raise InvalidEntry(f"session {target.id} has already ended")
        target.ended_log_id, target.ended_at = log.id, log.ts
        return target.id

    def _correction(self, log: Log, session_id: int | None) -> None:
        body = log.body or {}
        kind = body.get("kind")
        if kind not in RULING_KINDS:
            raise InvalidEntry(f"ruling kind must be one of {', '.join(RULING_KINDS)}")
        lines = _ledger_lines(body.get("ledger"))
        try:
            parse_ruling(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or kind
            raise InvalidEntry(f"{kind} ruling: {where}: {first['msg']}") from None
        token_id = body.get("token_id")
        if token_id is not None and not isinstance(token_id, int):
            raise InvalidEntry("correction token_id must be an integer")
        if token_id is not None and self.session.get(TokenModel, token_id) is None:
            raise InvalidEntry(f"correction token_id {token_id}: no such token")
        if lines and session_id is None:
            raise InvalidEntry("a correction that moves money needs a session")
        row = CorrectionModel(
            table=self.table,
            session_id=session_id,
            log_id=log.id,
            kind=kind,
            body=body,
            token_id=token_id,
            at=log.ts,
        )
        self.session.add(row)
        self.session.flush()
        self.money_moved(log.id, session_id, row.id, lines)

    def money_moved(
        self, log_id: int, session_id: int | None, ruling_id: int, lines: list[tuple[int, int]]
    ) -> None:
        """A penalty's ledger lines (derived like a hand's: an undo takes them away)."""
        if session_id is None:
            return
        players = self._players(session_id)
        self.pending[LedgerLine] += [
            {
                "session_id": session_id,
                "table": self.table,
                "log_id": log_id,
                "hand_id": None,
                "correction_id": ruling_id,
                "seat": seat,
                "player": players[seat],
                "amount": amount,
            }
            for seat, amount in lines
        ]

    def record(self, log_id: int, session_id: int | None, record: object) -> None:
        if not isinstance(record, HandRecord | Violation | Fault):
            raise InvalidEntry(f"not a mirror record: {type(record).__name__}")
        if record.table != self.table:
            raise InvalidEntry(f"record of table {record.table!r} appended to {self.table!r}")
        common = {
            "table": self.table,
            "session_id": session_id,
            "log_id": log_id,
            "boot_id": record.boot_id,
            "seq": record.seq,
        }
        if isinstance(record, Violation):
            violation = {"seat": record.seat, "code": record.code, "detail": record.detail}
            self.pending[ViolationModel].append(common | violation)
        elif isinstance(record, Fault):
            fault = {"code": record.code, "detail": record.detail}
            self.pending[FaultModel].append(common | fault)
        else:
            self._hand(common, record)

    def _hand(self, common: dict[str, Any], record: HandRecord) -> None:
        if len(record.net) != SEATS or sum(record.net) != 0:
            raise InvalidEntry(f"hand {record.hand}: net {record.net} is not 4 sums to 0")
        data = record.model_dump(mode="json", by_alias=True)
        hand = common | {
            "hand_no": record.hand,
            "round_wind": record.round_wind,
            "dealer": record.dealer,
            "streak": record.streak,
            "result": record.result,
            "kind": record.kind,
            "seat": record.seat,
            "payer": record.payer,
            "tai": record.tai,
            "dealer_tai": record.dealer_tai,
            "winning_tile": record.winning_tile,
            "items": data["items"],
            "codes": data["codes"],
            "net": data["net"],
            "payments": data["payments"],
            "next": data["next"],
            "play": data["play"],
        }
        session_id = common["session_id"]
        lines: list[dict[str, Any]] = []
        if session_id is not None:  # no session, no players: nobody's money moves
            players = self._players(session_id)
            lines = [
                {
                    "session_id": session_id,
                    "table": self.table,
                    "log_id": common["log_id"],
                    "correction_id": None,
                    "seat": seat,
                    "player": players[seat],
                    "amount": amount,
                }
                for seat, amount in enumerate(record.net)
            ]
        self.hands.append((hand, lines))

    def keep_ids(self, start: int) -> None:
        """Before the rows from log entry `start` on are derived again: note their ids, so
        the same hand (a session's hand N) and the same violation (its event, seat and
        code) come back under the id they had."""
        hands = select(HandModel.session_id, HandModel.hand_no, HandModel.id)
        violations = select(
            ViolationModel.boot_id,
            ViolationModel.seq,
            ViolationModel.seat,
            ViolationModel.code,
            ViolationModel.id,
        )
        for model, query in ((HandModel, hands), (ViolationModel, violations)):
            kept = self.kept[model]
            where = (model.table == self.table, model.log_id >= start)
            for *key, row_id in self.session.execute(query.where(*where).order_by(model.id)):
                kept.setdefault(tuple(key), []).append(row_id)

    def _kept_id(self, model: type[Base], key: tuple[Any, ...]) -> int | None:
        ids = self.kept[model].get(key)
        return ids.pop(0) if ids else None

    def _insert(self, model: type[Base], rows: list[dict[str, Any]]) -> list[int]:
        """Rows in one INSERT each for those with a kept id and those without; every
        row's id, in order."""
        known = [row for row in rows if "id" in row]
        if known:
            self.session.execute(insert(model), known)
        fresh = [row for row in rows if "id" not in row]
        new_ids: list[int] = []
        if fresh:
            id_column = model.__table__.c.id
            returning = insert(model).returning(id_column, sort_by_parameter_order=True)
            new_ids = list(self.session.scalars(returning, fresh))
        given = iter(new_ids)
        return [row["id"] if "id" in row else next(given) for row in rows]

    def write(self) -> None:
        """The derived rows waiting, in one INSERT per kind (a hand's ledger lines after
        it, with its id)."""
        if self.hands:
            rows = []
            for hand, _ in self.hands:
                kept = self._kept_id(HandModel, (hand["session_id"], hand["hand_no"]))
                rows.append(hand if kept is None else hand | {"id": kept})
            hand_ids = self._insert(HandModel, rows)
            for (_, lines), hand_id in zip(self.hands, hand_ids, strict=True):
                self.pending[LedgerLine] += [line | {"hand_id": hand_id} for line in lines]
            self.hands = []
        violations = self.pending[ViolationModel]
        for index, row in enumerate(violations):
            key = (row["boot_id"], row["seq"], row["seat"], row["code"])
            kept = self._kept_id(ViolationModel, key)
            if kept is not None:
                violations[index] = row | {"id": kept}
        self._insert(ViolationModel, violations)
        self.pending[ViolationModel] = []
        for model, pending in self.pending.items():
            if pending:
                self.session.execute(insert(model), pending)
                self.pending[model] = []

    def _players(self, session_id: int) -> list[str]:
        if session_id not in self.players:
            found = self.session.get(SessionModel, session_id)
            if found is None:
                raise InvalidEntry(f"no session {session_id}")
            self.players[session_id] = [str(p) for p in found.players]
        return self.players[session_id]

    def snapshot(self, data: bytes, log_id: int | None) -> None:
        if log_id is None:
            log_id = self.session.scalar(select(func.max(Log.id)).where(Log.table == self.table))
            if log_id is None:
                raise InvalidEntry(f"table {self.table!r} has no log entry to snapshot at")
        self.write()
        self.session.add(SnapshotModel(table=self.table, log_id=log_id, data=data, at=time.time()))


def _ledger_lines(value: object) -> list[tuple[int, int]]:
    """A correction's `ledger`: [[seat, amount], …] summing to 0 (money only moves)."""
    if value is None:
        return []
    lines: list[tuple[int, int]] = []
    if isinstance(value, list):
        for line in value:
            if not (isinstance(line, list | tuple) and len(line) == 2):
                break
            seat, amount = line
            if type(seat) is not int or type(amount) is not int or not 0 <= seat < SEATS:
                break
            lines.append((seat, amount))
        else:
            if sum(amount for _, amount in lines) == 0:
                return lines
    raise InvalidEntry("correction ledger must be [[seat 0-3, amount], …] summing to 0")


# A log row's columns as the fold reads them: the body as its stored JSON text, so a
# body seen before is known by its text without being parsed again.
LOG_COLUMNS: Final = (
    Log.id,
    Log.table,
    Log.kind,
    Log.boot_id,
    Log.seq,
    Log.ts,
    cast(Log.body, Text).label("body_text"),
    Log.session_id,
)
# The kinds that make nine in ten of a log's events (a draw, a discard, the reserve
# count): a few plain fields, so the same bodies recur all evening.
SHARED_BODIES: Final = frozenset({"tile_drawn", "tile_discarded", "tiles_left"})
SHARED_MAX: Final = 20_000  # distinct shared bodies kept (their ranges allow ~2,000)


class LogReader:
    """Log rows (of LOG_COLUMNS) as the fold reads them.

    Each distinct body of a shared kind is parsed and validated once, then shared by
    every event that carries it (bodies are frozen): re-deriving a session otherwise
    spends a third of its time parsing the same few thousand bodies again.
    """

    def __init__(self) -> None:
        self.bodies: dict[str, Any] = {}

    def entry(self, row: Sequence[Any]) -> Entry:
        log_id, kind, event, body, session_id = self.parts(row)
        return Entry(log_id, row[1], kind, event, body, session_id=session_id)

    def parts(self, row: Sequence[Any]) -> tuple[int, Any, Event | None, Any, int | None]:
        """An entry's log id, kind, event or body, and session, with no `Entry` around
        them: what a re-derivation folds, 30,000 rows a session."""
        # unpacked once: a Row's attribute costs half a microsecond
        log_id, table, kind, boot_id, seq, ts, text, session_id = row
        if kind != "event":
            return log_id, kind, None, None if text is None else json.loads(text), session_id
        body = self.bodies.get(text) if text is not None else None
        if body is None:
            body = EVENT_BODY.validate_python(None if text is None else json.loads(text))
            if body.kind in SHARED_BODIES and text is not None:
                if len(self.bodies) >= SHARED_MAX:
                    self.bodies.clear()
                self.bodies[text] = body
        return log_id, kind, stored_event(table, boot_id, seq, ts, body), None, session_id


_EVENT_FIELDS: Final = frozenset({"table", "boot_id", "seq", "ts", "body"})
_new_event = Event.__new__
_set = object.__setattr__


def stored_event(table: str, boot_id: int, seq: int, ts: float, body: Any) -> Event:
    """An event from the log's columns, which hold only what Event allowed when it was
    stored: built as `Event.model_construct` builds it, without its per-call bookkeeping
    (a third of the cost of reading a log row; tests/store pin the two as equal)."""
    event = _new_event(Event)
    _set(
        event,
        "__dict__",
        {
            "schema_version": SCHEMA_VERSION,
            "table": table,
            "boot_id": boot_id,
            "seq": seq,
            "ts": ts,
            "body": body,
        },
    )
    _set(event, "__pydantic_fields_set__", set(_EVENT_FIELDS))
    _set(event, "__pydantic_extra__", None)
    _set(event, "__pydantic_private__", None)
    return event


def open_session_row(session: Session, table: str) -> SessionModel | None:
    query = (
        select(SessionModel)
        .where(SessionModel.table == table, SessionModel.ended_log_id.is_(None))
        .order_by(SessionModel.id.desc())
        .limit(1)
    )
    return session.scalar(query)


# --- rulings: the rows derived again -------------------------------------------------


@dataclass
class Rederived:
    """What a ruling changed: the table's mirror after the whole log (its live state from
    now on), the records derived again, and `effect` (kept on the ruling's row)."""

    mirror: TableMirror | None  # None: a ruling that acts where it stands (no re-derivation)
    records: list[Record] = field(default_factory=list)
    effect: dict[str, Any] | None = None


def table_rulings(session: Session, table: str) -> Rulings:
    """The rulings in force at a table (every ruling and undo, in log order)."""
    query = (
        select(CorrectionModel.id, CorrectionModel.log_id, CorrectionModel.body)
        .where(CorrectionModel.table == table)
        .order_by(CorrectionModel.id)
    )
    rows = session.execute(query).all()
    logs = {ruling_id: log_id for ruling_id, log_id, _ in rows}
    return in_force(((ruling_id, parse_ruling(body)) for ruling_id, _, body in rows), logs)


def restore(session: Session, table: str, before: int | None = None) -> tuple[TableMirror, int]:
    """The table's mirror from its newest usable snapshot (taken before the log entry
    `before`, if given) and the log id it stands at (0: from the log's start)."""
    query = select(SnapshotModel.log_id, SnapshotModel.data).where(SnapshotModel.table == table)
    if before is not None:
        query = query.where(SnapshotModel.log_id < before)
    query = query.order_by(SnapshotModel.log_id.desc(), SnapshotModel.id.desc())
    for log_id, data in session.execute(query):
        mirror = load_snapshot(bytes(data))
        if mirror is not None:
            return mirror, log_id
    return TableMirror(table), 0


def ruling_start(session: Session, table: str, ruling: Any) -> int | None:
    """The log entry a ruling's re-derivation begins at; None for one that acts where it
    stands (a deal, a penalty, a note). InvalidEntry when it names nothing there is."""
    kind = ruling.kind
    if kind == "undo":
        target = session.get(CorrectionModel, ruling.ruling)
        if target is None or target.table != table:
            raise InvalidEntry(f"no ruling {ruling.ruling} at table {table!r} to undo")
        if target.kind not in (*ON_EVENTS, "undo"):  # a deal, a penalty, a note: from there
            return int(target.log_id)
        return ruling_start(session, table, parse_ruling(target.body))
    if kind not in ON_EVENTS:
        return None
    where = (Log.table == table, Log.boot_id == ruling.boot_id, Log.seq == ruling.seq)
    event_log = session.scalar(select(Log.id).where(*where))
    if kind != "verdict":
        if event_log is None:
            raise InvalidEntry(f"no event boot {ruling.boot_id} seq {ruling.seq} at {table!r}")
        return event_log
    flagged = session.scalar(
        select(func.min(ViolationModel.log_id)).where(
            ViolationModel.table == table,
            ViolationModel.boot_id == ruling.boot_id,
            ViolationModel.seq == ruling.seq,
            ViolationModel.seat == ruling.seat,
            ViolationModel.code == ruling.code,
        )
    )
    if flagged is None:
        raise InvalidEntry(
            f"no {ruling.code} violation of seat {ruling.seat} at boot {ruling.boot_id} "
            f"seq {ruling.seq} of {table!r}"
        )
    # flagged at its own event, or later (a 胡 judged at its reveal): from the earlier
    return min(int(flagged), event_log if event_log is not None else int(flagged))


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off: a fold allocates an object or more per
    entry, and the collections that set off (each walking every live mirror) cost a
    re-derivation a quarter of its time. What it leaves is collected after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def rederive(session: Session, writer: Projector, start: int) -> Rederived:
    """Derive the table's rows again from the log entry `start` to the log's end, through
    the rulings in force now; the money of each session touched, before and after."""
    with collector_paused():
        return _rederive(session, writer, start)


def _rederive(session: Session, writer: Projector, start: int) -> Rederived:
    table = writer.table
    rulings = table_rulings(session, table)
    mirror, after = restore(session, table, before=start)
    before = _money(session, table, start)
    hands_before = _hand_results(session, table, start)
    writer.keep_ids(start)
    _delete_derived(session, table, start)
    records: list[Record] = []
    penalties = dict(
        session.execute(
            select(CorrectionModel.log_id, CorrectionModel.id).where(
                CorrectionModel.table == table,
                CorrectionModel.kind == "penalty",
                CorrectionModel.log_id >= start,
            )
        ).all()
    )
    last = after
    reader = LogReader()
    while True:  # a page at a time (plain rows, not ORM objects): a long day's log never
        # sits in memory
        query = select(*LOG_COLUMNS).where(Log.table == table, Log.id > last).order_by(Log.id)
        with session.no_autoflush:  # the log's pages: the rows derived wait, in batches
            page = list(session.execute(query.limit(PAGE)))
        for row in page:
            last = log_id = row[0]
            _, kind, event, body, session_id = reader.parts(row)
            if log_id in penalties and log_id not in rulings.withdrawn_logs:
                fine = parse_ruling(body or {})  # its money at the deal it stands at now
                assert isinstance(fine, PenaltyRuling)
                lines = mirror.penalty(fine.seat, fine.tai)
                writer.money_moved(log_id, session_id, penalties[log_id], lines)
            out = fold(mirror, kind, event, body, rulings, log_id)
            if out and log_id >= start:
                for record in out:
                    writer.record(log_id, session_id, record)
                records += out
        if writer.waiting >= PENDING:
            writer.write()
        if len(page) < PAGE:
            break
    writer.write()
    if last:
        writer.snapshot(dump_snapshot(mirror), last)
    hands_after = _hand_results(session, table, start)
    revised = sorted(
        key
        for key in hands_before.keys() | hands_after.keys()
        if hands_before.get(key) != hands_after.get(key)
    )
    after_money = _money(session, table, start)
    effect = {
        "from_log_id": start,
        "revised_hands": [list(key) for key in revised],
        "money": [
            {"session_id": sid, "before": before.get(sid, [0] * SEATS), "after": totals}
            for sid, totals in sorted(after_money.items())
        ],
    }
    return Rederived(mirror, records, effect)


def _derived_hands(table: str, start: int) -> Any:
    return select(HandModel.id).where(HandModel.table == table, HandModel.log_id >= start)


def _delete_derived(session: Session, table: str, start: int) -> None:
    """The rows the fold gave from `start` on (the log, sessions and rulings stay)."""
    session.execute(delete(LedgerLine).where(LedgerLine.hand_id.in_(_derived_hands(table, start))))
    penalties = (LedgerLine.table == table, LedgerLine.correction_id.is_not(None))
    session.execute(delete(LedgerLine).where(*penalties, LedgerLine.log_id >= start))
    for model in (HandModel, ViolationModel, FaultModel, SnapshotModel):
        session.execute(delete(model).where(model.table == table, model.log_id >= start))


def _money(session: Session, table: str, start: int) -> dict[int, list[int]]:
    """Each seat's total in every session with entries from `start` on."""
    touched = select(Log.session_id).where(Log.table == table, Log.id >= start).distinct()
    query = (
        select(LedgerLine.session_id, LedgerLine.seat, func.sum(LedgerLine.amount))
        .where(LedgerLine.session_id.in_(touched))
        .group_by(LedgerLine.session_id, LedgerLine.seat)
    )
    out: dict[int, list[int]] = {}
    for session_id, seat, amount in session.execute(query):
        out.setdefault(session_id, [0] * SEATS)[seat] = int(amount or 0)
    for (touched_id,) in session.execute(touched):
        if touched_id is not None:
            out.setdefault(touched_id, [0] * SEATS)
    return out


def _hand_results(session: Session, table: str, start: int) -> dict[tuple[int, int], Any]:
    """(session, hand number) → what the hand was, for the hands from `start` on."""
    query = select(
        HandModel.session_id,
        HandModel.hand_no,
        HandModel.result,
        HandModel.seat,
        HandModel.tai,
        HandModel.net,
    ).where(HandModel.table == table, HandModel.log_id >= start)
    return {
        (sid or 0, no): (result, seat, tai, list(net))
        for sid, no, result, seat, tai, net in session.execute(query)
    }
