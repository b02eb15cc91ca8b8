"""The log: append in one transaction, idempotence on the event key, entries in log
order, snapshots."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import func, select

from firmware_bridge.messages import Event
from table_service.mirror import Fault, Violation
from table_service.store import Applied, DuplicateEvent, InvalidEntry, Store
from table_service.store import projector as projector_module
from table_service.store import store as store_module
from table_service.store.models import FaultModel, HandModel, LedgerLine, Log, SessionModel
from tests.store.kit import SESSION, Game, applied, event, play


def count(store: Store, model: type) -> int:
    with store.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(model)) or 0)


def test_append_returns_log_ids_in_order(store: Store) -> None:
    first = store.append("t1", applied("t1", 1, 2, 3))
    second = store.append("t1", applied("t1", 4))
    assert first == sorted(first) and len(set(first)) == 3
    assert second[0] > first[-1]
    assert store.has_event("t1", 7, 2) and not store.has_event("t1", 7, 5)
    assert not store.has_event("t2", 7, 2)
    assert store.last_event_key("t1") == (7, 4)
    assert store.last_event_key("nowhere") is None


def test_entries_give_back_the_events_in_log_order(store: Store) -> None:
    store.append("t1", [Applied("session", None, SESSION)])
    opened = store.open_session("t1")
    assert opened is not None
    ids = store.append("t1", applied("t1", 1, 2, 3, session_id=opened.id))
    store.append("t2", applied("t2", 1))
    entries = list(store.entries("t1"))
    assert [e.kind for e in entries] == ["session", "event", "event", "event"]
    assert entries[0].body == SESSION and entries[0].event is None
    assert [e.log_id for e in entries[1:]] == ids
    assert [e.event for e in entries[1:]] == [event("t1", s) for s in (1, 2, 3)]
    assert all(e.table == "t1" and e.body is None for e in entries[1:])
    assert [e.log_id for e in store.entries("t1", after_log_id=ids[0])] == ids[1:]
    assert list(store.entries("t1", after_log_id=ids[-1])) == []


def test_an_event_read_back_is_the_event_pydantic_would_build(store: Store) -> None:
    """The log's reader builds events without pydantic's constructor: what it builds must
    behave as `Event.model_construct`'s would (a pydantic upgrade that changes a model's
    inner fields shows here first)."""
    store.append("t1", applied("t1", 5))
    (entry,) = store.entries("t1")
    read, built = entry.event, event("t1", 5)
    assert read is not None and type(read) is Event
    assert read == built and read.model_dump() == built.model_dump()
    fields = {k: getattr(built, k) for k in ("table", "boot_id", "seq", "ts", "body")}
    assert read.model_fields_set == Event.model_construct(**fields).model_fields_set
    assert read.model_copy(update={"seq": 6}).seq == 6 and read.seq == 5
    assert read.kind == "tile_drawn" and read.schema_version == 1


def test_entries_stream_page_by_page(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "ENTRY_PAGE", 3)
    ids = store.append("t1", applied("t1", *range(1, 11)))
    stream = store.entries("t1")
    assert next(stream).log_id == ids[0]
    store.append("t1", applied("t1", 11))  # the log grows at its end while being read
    assert [e.event.seq for e in stream if e.event] == list(range(2, 12))


def test_the_boot_changes_and_the_log_keeps_its_order(store: Store) -> None:
    store.append("t1", applied("t1", 1, 2))
    store.append("t1", [Applied("event", event("t1", 1, boot_id=3), None)])
    assert store.last_event_key("t1") == (3, 1)  # log order, not the largest key


def test_a_duplicate_event_rolls_back_the_whole_batch(store: Store, ex01: Game) -> None:
    session_id = play(store, ex01)
    before = (count(store, Log), count(store, HandModel), count(store, LedgerLine))
    batch = [
        Applied("session", None, {**SESSION, "table": ex01.table}),
        Applied("event", event(ex01.table, 500), None, []),
        *ex01.applied(session_id)[-1:],  # stored already: the hand's last event
    ]
    with pytest.raises(DuplicateEvent, match=r"event \(t1, 1, 149\) is already stored") as caught:
        store.append(ex01.table, batch, snapshot=b"never")
    assert caught.value.key == (ex01.table, 1, ex01.events[-1][0].seq)
    assert (count(store, Log), count(store, HandModel), count(store, LedgerLine)) == before
    assert count(store, SessionModel) == 1
    assert not store.has_event(ex01.table, 7, 500)
    assert store.latest_snapshot(ex01.table) is None
    assert store.open_session(ex01.table) is not None and store.open_session(
        ex01.table
    ) == store.session(session_id)


def test_the_same_event_twice_in_one_batch_is_a_duplicate(store: Store) -> None:
    with pytest.raises(DuplicateEvent, match=r"event \(t1, 7, 1\) is already stored"):
        store.append("t1", applied("t1", 1, 2, 1))
    assert count(store, Log) == 0


def test_an_entry_of_another_table_is_refused(store: Store) -> None:
    with pytest.raises(InvalidEntry, match=r"event of table 't2' appended to 't1'"):
        store.append("t1", applied("t1", 1) + applied("t2", 2))
    with pytest.raises(InvalidEntry, match=r"an entry of kind 'event' needs its event"):
        store.append("t1", [Applied("event", None, {"kind": "tile_drawn"})])
    assert count(store, Log) == 0


def test_records_name_their_own_event(store: Store) -> None:
    """A violation found later names the earlier event that broke the rule."""
    violation = Violation(
        table="t1", boot_id=7, seq=1, seat=2, code="out_of_turn", detail="seat 2 drew early"
    )
    fault = Fault(table="t1", boot_id=7, seq=3, code="gap", detail="seq jumped")
    store.append("t1", applied("t1", 1))
    log_id = store.append("t1", [Applied("event", event("t1", 3), None, [violation, fault])])[0]
    (v,) = store.violations("t1")
    assert (v.boot_id, v.seq, v.log_id, v.seat, v.code) == (7, 1, log_id, 2, "out_of_turn")
    assert v.status == "open" and v.decision is None and v.session_id is None
    (f,) = store.faults(table="t1")
    assert (f.boot_id, f.seq, f.log_id, f.code, f.detail) == (7, 3, log_id, "gap", "seq jumped")
    assert f.at == event("t1", 3).ts
    assert count(store, FaultModel) == 1


def test_snapshots_round_trip_and_the_latest_wins(store: Store) -> None:
    assert store.latest_snapshot("t1") is None
    first = store.append("t1", applied("t1", 1, 2), snapshot=b"\x80\x04first\x00")
    assert store.latest_snapshot("t1") == (first[-1], b"\x80\x04first\x00")
    second = store.append("t1", applied("t1", 3), snapshot=bytes(range(256)) * 100)
    assert store.latest_snapshot("t1") == (second[0], bytes(range(256)) * 100)
    store.append("t1", [], snapshot=b"again")  # no new entry: taken at the last one
    assert store.latest_snapshot("t1") == (second[0], b"again")
    assert store.latest_snapshot("t2") is None
    with pytest.raises(InvalidEntry, match=r"table 't2' has no log entry to snapshot at"):
        store.append("t2", [], snapshot=b"nothing to take it at")


def test_tables(store: Store) -> None:
    assert store.tables() == []
    store.append("t2", applied("t2", 1))
    store.append("t1", [Applied("session", None, SESSION)])
    assert store.tables() == ["t1", "t2"]


def test_tables_seen_gives_each_tables_latest_entry(store: Store) -> None:
    """By the log's order (its id), not by the largest time: a bridge's clock may step back."""
    assert store.tables_seen() == {}
    store.append("t2", applied("t2", 1, 5))
    store.append("t10", applied("t10", 9))
    store.append("t2", [Applied("event", event("t2", 3), None, [], None)])
    seen = store.tables_seen()
    assert list(seen) == ["t10", "t2"]  # by name, as tables() gives them
    assert seen == {"t10": event("t10", 9).ts, "t2": event("t2", 3).ts}
    assert store.tables() == ["t10", "t2"]


def _violations_of(table: str, seqs: range) -> list[Applied]:
    """Events of `table`, each with a violation naming it (the rows an event derives)."""
    return [
        Applied("event", event(table, s), None, [Violation(
            table=table, boot_id=7, seq=s, seat=s % 4, code="out_of_turn", detail=f"#{s}")])
        for s in seqs
    ]  # fmt: skip


@pytest.mark.parametrize("size", [3, projector_module.COPY_FROM + 5], ids=["insert", "copy"])
def test_several_tables_go_in_one_transaction_each_in_its_order(store: Store, size: int) -> None:
    """The service's batch: every table's events at once (on PostgreSQL a large one by COPY),
    read back as each was appended alone would be: the events, their order, the rows they
    derive naming their own log ids, the snapshot at each table's last entry."""
    store.append("t2", applied("t2", 1))  # a table with a log already
    parts = [
        ("t1", _violations_of("t1", range(1, size + 1)), b"one"),
        ("t2", applied("t2", *range(2, size + 2)), None),
        ("t3", _violations_of("t3", range(1, 3)), b"three"),
    ]
    every = store.append_tables(parts)
    assert [len(ids) for ids in every] == [size, size, 2]
    for (table, batch, snapshot), ids in zip(parts, every, strict=True):
        assert ids == sorted(ids)
        entries = [e for e in store.entries(table) if e.log_id in ids]
        assert [e.event for e in entries] == [a.event for a in batch]
        assert [e.log_id for e in entries] == ids
        found = {v.seq: v for v in store.violations(table)}
        for a, log_id in zip(batch, ids, strict=True):
            for v in a.records:
                assert (found[v.seq].log_id, found[v.seq].detail) == (log_id, v.detail)
        if snapshot is not None:
            assert store.latest_snapshot(table) == (ids[-1], snapshot)
    assert store.latest_snapshot("t2") is None
    assert store.last_event_key("t2") == (7, size + 1)


@pytest.mark.parametrize("size", [3, projector_module.COPY_FROM + 5], ids=["insert", "copy"])
def test_a_duplicate_in_one_table_stores_no_table_of_the_batch(store: Store, size: int) -> None:
    store.append("t2", applied("t2", 2))
    before = count(store, Log)
    parts = [
        ("t1", _violations_of("t1", range(1, size + 1)), b"never"),
        ("t2", applied("t2", *range(3, size + 2), 2), None),  # seq 2 is stored already
    ]
    with pytest.raises(DuplicateEvent, match=r"event \(t2, 7, 2\) is already stored"):
        store.append_tables(parts)
    assert count(store, Log) == before
    assert store.violations("t1") == [] and store.latest_snapshot("t1") is None
    store.append_tables(parts[:1])  # the rest is whole: stored once the culprit is out
    assert len(store.violations("t1")) == size


def test_events_that_conclude_nothing_go_in_whole_or_not_at_all(store: Store) -> None:
    """Most of a club's batches: events only, none concluding anything. On PostgreSQL they
    go in by one INSERT committed by itself (no BEGIN, no COMMIT); the batch is still all
    or nothing, every table's in its order, and the next transaction is a transaction."""
    postgres = store.engine.dialect.name == "postgresql"
    plain = [("t1", applied("t1", 1, 2), None), ("t2", applied("t2", 1, 2, 3), None)]
    assert store._in_one_statement(plain) is postgres
    for other in (
        [("t1", applied("t1", 1), b"snapshot")],
        [("t1", _violations_of("t1", range(1, 2)), None)],
        [("t1", [Applied("session", None, {"players": ["A", "B", "C", "D"]})], None)],
        [("t1", applied("t1", *range(1, projector_module.COPY_FROM + 1)), None)],
    ):
        assert not store._in_one_statement(other)  # a transaction, as before
    every = store.append_tables(plain)
    assert [[e.log_id for e in store.entries(t)] for t in ("t1", "t2")] == every
    assert [e.event.seq for e in store.entries("t2") if e.event] == [1, 2, 3]
    for round_ in range(3):  # on whichever pooled connection each lands
        before = count(store, Log)
        stored_again = [("t3", applied("t3", 10 + round_)), ("t2", applied("t2", 4, 2))]
        with pytest.raises(DuplicateEvent, match=r"event \(t2, 7, 2\) is already stored"):
            store.append_tables([(t, a, None) for t, a in stored_again])
        assert count(store, Log) == before  # t3's event did not go in either
        with pytest.raises(DuplicateEvent):  # a transaction's: its violation rows go too
            store.append_tables([("t4", _violations_of("t4", range(1, 3)), b"x"),
                                 ("t2", applied("t2", 1), None)])  # fmt: skip
        assert count(store, Log) == before and store.violations("t4") == []
        store.append_tables([("t3", applied("t3", 10 + round_), None)])
    assert [e.event.seq for e in store.entries("t3") if e.event] == [10, 11, 12]


def test_a_statement_prepared_on_the_server_gives_each_event_its_id(store: Store) -> None:
    """On PostgreSQL a batch's INSERT goes through psycopg itself, which prepares a text
    on the server once it has run five times: ids must still land on their events, and a
    duplicate must still be told, on the prepared statement as on the first runs."""
    every: dict[str, list[int]] = {"t1": [], "t2": []}
    for round_ in range(8):
        seqs = (2 * round_ + 1, 2 * round_ + 2)
        ids = store.append_tables([("t2", applied("t2", *seqs), None),
                                   ("t1", applied("t1", *seqs), None)])  # fmt: skip
        every["t2"] += ids[0]
        every["t1"] += ids[1]
    for table, ids in every.items():
        entries = list(store.entries(table))
        assert [e.log_id for e in entries] == ids
        assert [e.event.seq for e in entries if e.event] == list(range(1, 17))
    with pytest.raises(DuplicateEvent, match=r"event \(t1, 7, 3\) is already stored"):
        store.append_tables([("t2", applied("t2", 17, 18), None),
                             ("t1", applied("t1", 3, 17), None)])  # fmt: skip
    assert [e.event.seq for e in store.entries("t2") if e.event][-1] == 16


def test_the_writers_kept_connection_lost_costs_one_batch_at_most(store: Store) -> None:
    """The one-statement batches keep their connection while they come steadily. Killed
    on the server (a restart, an idle timeout), it fails at most the batch that finds it
    dead (the service's writer retries that one), and none at all once it has been idle
    PING_IDLE seconds: it is then pinged before use, and replaced."""
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no server and no one-statement batch")

    def kill_the_kept_connection() -> None:
        assert store._held is not None  # kept after a batch
        pid = store._held[0].connection.dbapi_connection.info.backend_pid  # type: ignore[union-attr]
        with store.engine.connect() as other:
            assert other.scalar(select(func.pg_terminate_backend(pid)))

    store.append_tables([("t1", applied("t1", 1), None)])
    kill_the_kept_connection()
    with pytest.raises(Exception, match=r"terminat|closed|connection"):
        store.append_tables([("t1", applied("t1", 2), None)])
    store.append_tables([("t1", applied("t1", 2), None)])  # the retry: a new connection
    kill_the_kept_connection()
    time.sleep(store_module.PING_IDLE + 0.1)  # quiet: the next batch does not fail
    ids = store.append_tables([("t1", applied("t1", 3), None)])
    assert [e.log_id for e in store.entries("t1")][-1] == ids[0][0]
    assert [e.event.seq for e in store.entries("t1") if e.event] == [1, 2, 3]
