"""Sessions: started and ended by log entries, one open per table."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from table_service.store import Applied, InvalidEntry, Store
from table_service.store.models import Log
from tests.store.kit import SESSION, applied


def test_a_session_starts_with_defaults_filled(store: Store) -> None:
    log_id = store.append("t1", [Applied("session", None, {"players": ["a", "b", "c", "d"]})])[0]
    s = store.open_session("t1")
    assert s is not None
    assert s.players == ["a", "b", "c", "d"] and s.profile == "mjonline"
    assert (s.base, s.per_tai, s.dealer, s.streak, s.round_wind) == (100, 20, 0, 0, "E")
    assert s.started_log_id == log_id and s.ended_log_id is None and s.ended_at is None
    (entry,) = store.entries("t1")
    assert entry.body == {"players": ["a", "b", "c", "d"]}  # the body as entered
    assert store.session(s.id) == s and store.sessions() == [s] and store.sessions("t2") == []


def test_a_session_ends_once(store: Store) -> None:
    store.append("t1", [Applied("session", None, SESSION)])
    opened = store.open_session("t1")
    assert opened is not None
    end = store.append("t1", [Applied("session_end", None, {}, [], opened.id)])[0]
    ended = store.session(opened.id)
    assert ended is not None and ended.ended_log_id == end and ended.ended_at is not None
    assert store.open_session("t1") is None
    with pytest.raises(InvalidEntry, match=r"session 1 has already ended"):
        store.append("t1", [Applied("session_end", None, {}, [], opened.id)])
    with pytest.raises(InvalidEntry, match=r"no session of table 't1' to end"):  # none open to end
        store.append("t1", [Applied("session_end", None, {})])


def test_a_new_session_ends_the_open_one(store: Store) -> None:
    store.append("t1", [Applied("session", None, SESSION)])
    store.append("t2", [Applied("session", None, SESSION)])
    log_id = store.append("t1", [Applied("session", None, {**SESSION, "dealer": 2})])[0]
    first, other, second = store.sessions()
    assert first.ended_log_id == log_id and second.started_log_id == log_id
    assert other.ended_log_id is None
    assert store.open_session("t1") == second and second.dealer == 2
    assert [s.id for s in store.sessions("t1")] == [first.id, second.id]


def test_a_session_started_in_a_batch_is_the_session_of_what_follows(store: Store) -> None:
    store.append("t1", [Applied("session", None, SESSION), *applied("t1", 1, 2)])
    opened = store.open_session("t1")
    assert opened is not None
    with store.engine.connect() as connection:
        rows = connection.execute(select(Log.kind, Log.session_id).order_by(Log.id)).all()
    assert [tuple(r) for r in rows] == [("session", opened.id)] + [("event", opened.id)] * 2
    store.append("t1", [Applied("correction", None, {"kind": "note", "note": "hi"})])
    (note,) = store.corrections("t1")
    assert note.session_id is None  # outside a batch the caller names the session
    store.append(
        "t1", [Applied("correction", None, {"kind": "penalty", "ledger": [[0, -5], [1, 5]],
                                              "seat": 0, "reason": ""},
                       session_id=opened.id)]
    )  # fmt: skip
    assert [line.player for line in store.ledger(opened.id)] == ["阿明", "Bea"]


def test_a_bad_session_body_is_refused(store: Store) -> None:
    with pytest.raises(InvalidEntry, match=r"session body"):
        store.append("t1", [Applied("session", None, {"players": ["only one"]})])
    with pytest.raises(InvalidEntry, match=r"session of table 't9' appended to 't1'"):
        store.append("t1", [Applied("session", None, {"table": "t9"})])
    assert store.sessions() == []
