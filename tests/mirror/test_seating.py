"""Seats taken before a session's first shuffle (a `seating` log entry): the session being
seated plays under the names seated, the seats stand once a shuffle has begun its first
hand, and a session asked for during a hand is seated while that hand keeps its players."""

from __future__ import annotations

from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import Script, quiet

PLAYERS = ("a", "b", "c", "d")


def seat(mirror: TableMirror, at: int, name: str, player_id: int | None = None) -> None:
    body = {"seat": at, "name": name, "player_id": player_id, "by": "code"}
    assert fold(mirror, "seating", None, body) == []


def test_a_session_is_seated_until_its_first_shuffle() -> None:
    t = Script(players=PLAYERS, base=50)
    mirror = t.mirror
    assert mirror.seating_open
    assert mirror.snapshot()["seating"] == list(PLAYERS)
    seat(mirror, 2, "阿明", 7)
    seat(mirror, 0, "Guest")
    assert mirror.session is not None
    assert mirror.session.players == ("Guest", "b", "阿明", "d")
    assert mirror.session.player_ids == (None, None, 7, None)
    assert mirror.session.base == 50  # nothing else of the session changes
    assert mirror.snapshot()["players"] == ["Guest", "b", "阿明", "d"]
    t.emit({"kind": "shuffle_started"})
    assert not mirror.seating_open
    assert mirror.snapshot()["seating"] is None
    assert mirror.snapshot()["players"] == ["Guest", "b", "阿明", "d"]


def test_no_session_no_seats() -> None:
    mirror = TableMirror("t")
    assert not mirror.seating_open
    seat(mirror, 1, "nobody")  # nothing to seat: nothing changes
    assert mirror.session is None and mirror.next_session is None
    assert mirror.snapshot()["seating"] is None


def test_a_seat_out_of_range_changes_nothing() -> None:
    t = Script(players=PLAYERS)
    seat(t.mirror, 4, "x")
    seat(t.mirror, -1, "y")
    assert t.mirror.session is not None and t.mirror.session.players == PLAYERS


def test_a_session_asked_for_during_a_hand_is_seated_and_the_hand_keeps_its_players() -> None:
    t = Script(quiet(), players=PLAYERS)
    t.discard(0, "2m")
    assert not t.mirror.seating_open  # the running session's hand has begun
    t.records += t.mirror.start_session(SessionStart(table=t.table, players=("w", "x", "y", "z")))
    assert t.mirror.seating_open  # the session asked for begins at the next shuffle
    seat(t.mirror, 1, "阿明", 3)
    assert t.mirror.snapshot()["players"] == list(PLAYERS)  # the hand under way's
    assert t.mirror.snapshot()["seating"] == ["w", "阿明", "y", "z"]
    assert t.mirror.session is not None and t.mirror.session.players == PLAYERS
    t.cycle(1)
    t.burn(0, seat=2)
    t.finish()
    assert t.mirror.seating_open  # the hand is over; the new session still waits
    t.emit({"kind": "shuffle_started"})
    assert not t.mirror.seating_open
    assert t.mirror.session is not None
    assert t.mirror.session.players == ("w", "阿明", "y", "z")
    assert t.mirror.session.player_ids == (None, 3, None, None)
