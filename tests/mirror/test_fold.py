"""Worked cases for fold.py's survivors of bench/mutation.py: what each kind of log entry
does to a table's mirror (the live service, a restart and a referee's re-derivation all
fold through it): a service fault is its own record; a deal ruling sets who deals next; a
penalty moves money at the deal it stands at; a ruling an undo withdrew does nothing where
it stands; a session's end or a note changes nothing; a seat taken before the first
shuffle names its player; a tile ruled by its code takes a copy still in the wall."""

from __future__ import annotations

from typing import Any

from table_service.mirror.fold import NO_RULINGS, fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault
from table_service.mirror.rulings import Rulings, in_force, parse_ruling
from table_service.mirror.session import SessionStart
from table_service.rules.table import Deal
from tests.mirror.kit_script import Script, quiet

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


LATE = (1, 136)  # (boot, seq) of seat 3's draw out of turn in _refold's game


def _refold(rulings: Rulings) -> list[Any]:
    """The dealer discards; seat 3 then draws out of turn (LATE): the game folded again
    through `rulings`; the records of that draw's entry."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(3, "3m")
    [late] = [e for e in t.events if (e.boot_id, e.seq) == LATE]
    assert late.kind == "tile_drawn"
    mirror = TableMirror(t.table)
    outs = {e.seq: fold(mirror, "event", e, None, rulings) for e in t.events}
    return outs[LATE[1]]


def test_an_event_and_the_one_inserted_after_it_both_give_their_records() -> None:
    assert [r.code for r in _refold(NO_RULINGS)] == ["out_of_turn"]
    west = Script(quiet()).concealed[2][0]  # seat 2 discards a W of its own, out of turn
    insert = {"kind": "insert", "boot_id": LATE[0], "seq": LATE[1], "reason": "unread",
              "body": {"kind": "tile_discarded", "seat": 2, "tile": west}}  # fmt: skip
    out = _refold(in_force([(1, parse_ruling(insert))]))
    assert [r.code for r in out] == ["out_of_turn", "hand_size"]  # the draw's, then its


def test_a_hand_the_referee_decides_after_an_event_keeps_that_events_records() -> None:
    drawn = {"kind": "hand", "boot_id": LATE[0], "seq": LATE[1], "reason": "the wall fell",
             "result": "drawn"}  # fmt: skip
    out = _refold(in_force([(1, parse_ruling(drawn))]))
    assert [r.type for r in out] == ["violation", "hand"]  # seat 3's draw, then the 荒局
    assert out[1].result == "drawn"


def test_a_session_entry_starts_the_session_it_names() -> None:
    """replay-format.md: a session start sets the players, the stakes and the deal."""
    mirror = TableMirror("t")
    body = {"table": "t", "players": ["a", "b", "c", "d"], "base": 50, "dealer": 2}
    assert fold(mirror, "session", None, body) == []
    assert mirror.snapshot()["players"] == ["a", "b", "c", "d"]
    assert (mirror.profile.base, mirror.deal) == (50, Deal(2, 0, 0, 0))


def test_a_session_ended_before_it_began_never_begins() -> None:
    """A session asked for during a hand begins at the next shuffle; the session's end
    entry before then means it never begins: the next hand is still the old players'."""
    t = Script(quiet(), players=("a", "b", "c", "d"))
    t.discard(0, "2m")
    asked = SessionStart(table=t.table, players=("e", "f", "g", "h"))
    fold(t.mirror, "session", None, asked.model_dump(mode="json"))
    assert fold(t.mirror, "session_end", None, {}) == []
    t.burn(0, seat=1)
    t.finish()
    t.new_hand(quiet(dealer=1), dealer=1)
    assert t.mirror.snapshot()["players"] == ["a", "b", "c", "d"]


def test_a_tile_ruled_by_its_code_is_a_copy_still_in_the_wall() -> None:
    """The sensor read seat 1's draw as a 3p; the referee rules it was a 3m. Seat 1 holds
    the first 3m already, so the draw is the next copy, the first one nowhere yet: the
    corrected draw is a plain draw (no fault), and seat 1 then holds two 3m."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"}))
    t.discard(0, "2m")
    t.draw(1, "3p")
    drawn = next(e for e in reversed(t.events) if e.kind == "tile_drawn")
    held = t.ids(1, "3m")[0]
    ruling = {"kind": "tile", "boot_id": drawn.boot_id, "seq": drawn.seq, "read": "3p",
              "was": "3m", "reason": "misread"}  # fmt: skip
    mirror = TableMirror(t.table)
    out = [
        r
        for e in t.events
        for r in fold(mirror, "event", e, None, in_force([(1, parse_ruling(ruling))]))
    ]
    assert out == []
    assert mirror.hand is not None
    threes = [i for i in mirror.hand.seats[1].concealed if i // 4 == held // 4]
    assert len(threes) == 2 and held in threes


def test_a_ruling_on_a_tables_first_event_applies_with_no_hand_yet() -> None:
    """A ruling may name the very first event a table sent (no hand begun): a spurious
    shuffle dropped leaves the mirror as it was."""
    t = Script(quiet())
    first = t.events[0]
    ruling = {"kind": "drop", "boot_id": first.boot_id, "seq": first.seq, "reason": "a ghost"}
    mirror = TableMirror(t.table)
    assert mirror.hand is None
    assert fold(mirror, "event", first, None, in_force([(1, parse_ruling(ruling))])) == []
    assert mirror.hand is None


def test_a_seat_taken_before_the_first_shuffle_names_its_player() -> None:
    """replay-format.md: a `seating` entry puts a player (by name, and by the club's list
    when listed) at a seat of the session being seated."""
    mirror = TableMirror("t")
    fold(mirror, "session", None, {"table": "t", "players": ["a", "b", "c", "d"]})
    assert fold(mirror, "seating", None, {"seat": 2, "name": "Mei", "player_id": 7}) == []
    assert fold(mirror, "seating", None, {"seat": 0, "name": "Guest"}) == []
    assert mirror.session is not None
    assert mirror.session.players == ("Guest", "b", "Mei", "d")
    assert mirror.session.player_ids == (None, None, 7, None)
