"""What a session's start says when it names nothing: the defaults of replay-format.md
("every key has a default: … seat 0 as 起莊位 and dealer, N 0, 東"). A later session
start ends the running session and begins another from those defaults, wherever the
last one left the deal."""

from __future__ import annotations

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import TABLE, Script, quiet

READY_1 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1 waits 6p 9p


def seat_1_wins_on_the_first_discard(t: Script) -> None:
    t.discard(0, "9p")
    t.win(1)


def test_a_new_session_naming_no_round_wind_plays_the_east_round() -> None:
    """A session played in the 南 round, then a session start that names no round wind:
    its hands are 東 round hands (replay-format.md: the default round wind is 東), not the
    round the table last stood in."""
    # pins session.py's `round_wind: … = "E"` default (a null default would keep 南)
    t = Script(quiet({1: READY_1}, extra="9p"), round_wind="S")
    seat_1_wins_on_the_first_discard(t)
    (first,) = t.hands()
    assert first.round_wind == "S"
    assert first.next is not None and first.next.round_wind == "S"  # the table stays in 南
    t.records += t.mirror.start_session(SessionStart(table=t.table, players=("w", "x", "y", "z")))
    t.new_hand(quiet({1: READY_1}, extra="9p"))
    seat_1_wins_on_the_first_discard(t)
    second = t.hands()[-1]
    assert (second.hand, second.round_wind, second.dealer, second.streak) == (1, "E", 0, 0)
    assert t.mirror.snapshot()["round_wind"] == "E"
    assert t.violations() == [] and t.faults() == []


def test_a_stream_with_no_session_line_plays_a_session_of_the_defaults() -> None:
    """replay-format.md: with no session line, the first event starts a session with the
    defaults; the mirror holds that session from then on."""
    mirror = TableMirror(TABLE)
    assert mirror.session is None
    body = EVENT_BODY.validate_python({"kind": "shuffle_started"})
    mirror.apply(Event(table=TABLE, boot_id=1, seq=1, ts=0.0, body=body))
    assert mirror.session == SessionStart(table=TABLE)
