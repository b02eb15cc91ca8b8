"""Worked cases for fold.py's survivors of bench/mutation.py: what each kind of log entry
does to a table's mirror (the live service, a restart and a referee's re-derivation all
fold through it): a service fault is its own record; a deal ruling sets who deals next; a
penalty moves money at the deal it stands at; a ruling an undo withdrew does nothing where
it stands; a session's end or a note changes nothing."""

from __future__ import annotations

from typing import Any

from table_service.mirror.fold import NO_RULINGS, fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault
from table_service.mirror.rulings import Rulings
from table_service.mirror.session import SessionStart
from table_service.rules.table import Deal

DEAL = {"kind": "deal", "dealer": 2, "streak": 1, "round_wind": 1}
FINE = {"kind": "penalty", "seat": 3, "tai": 0, "reason": "showed a tile"}


def started() -> TableMirror:
    mirror = TableMirror("t")
    fold(mirror, "session", None, SessionStart(table="t").model_dump(mode="json"))
    return mirror


def test_a_service_fault_is_its_own_record() -> None:
    body: dict[str, Any] = {"boot_id": 3, "seq": 9, "code": "impossible", "detail": "lost"}
    assert fold(started(), "fault", None, body) == [Fault(table="t", **body)]


def test_a_deal_ruling_sets_who_deals_next() -> None:
    mirror = started()
    assert fold(mirror, "correction", None, DEAL, NO_RULINGS, log_id=5) == []
    assert mirror.deal == Deal(2, 1, 1, 0)


def test_a_penalty_moves_money_at_the_deal_it_stands_at() -> None:
    mirror = started()
    fold(mirror, "correction", None, FINE, NO_RULINGS, log_id=5)
    assert mirror.totals == [120, 100, 100, -320]  # 底 100 to each, the dealer its 1 台 (20)


def test_a_withdrawn_ruling_does_nothing_where_it_stands() -> None:
    withdrawn = Rulings(withdrawn_logs=frozenset({5}))
    mirror = started()
    fold(mirror, "correction", None, DEAL, withdrawn, log_id=5)
    fold(mirror, "correction", None, FINE, withdrawn, log_id=5)
    assert (mirror.deal, mirror.totals) == (Deal(0, 0, 0, 0), [0, 0, 0, 0])
    fold(mirror, "correction", None, FINE, withdrawn, log_id=6)  # another, in force
    assert mirror.totals == [120, 100, 100, -320]


def test_an_end_or_a_note_changes_nothing() -> None:
    mirror = started()
    assert fold(mirror, "session_end", None, {}) == []
    assert fold(mirror, "correction", None, {"kind": "note", "note": "a quiet night"}) == []
    assert fold(mirror, "note", None, DEAL) == []  # no correction: its body is not a ruling
    assert (mirror.deal, mirror.totals) == (Deal(0, 0, 0, 0), [0, 0, 0, 0])
