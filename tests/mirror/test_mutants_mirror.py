"""Worked cases for mirror.py's survivors of bench/mutation.py (replay-format.md: sessions,
faults, hand records)."""

from __future__ import annotations

from table_service.mirror.session import SessionStart
from tests.mirror.script import Script, quiet

READY_17 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"  # a dealt winning hand


def test_a_session_started_after_a_hand_ended_finds_no_hand_unseen() -> None:
    """replay-format.md: a later session line ends the running session and starts another;
    the hand before it was over, so no hand is cut in its middle: no fault."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    assert t.hand().result == "win"
    out = t.mirror.start_session(SessionStart(table=t.table, dealer=1))
    assert out == []


def test_a_gap_between_hands_then_a_shuffle_seen_judges_the_new_hand() -> None:
    """replay-format.md: hand_unseen is for a hand not seen from its start. Events are lost
    after a hand ended (a gap), and the next hand is seen from its shuffle: it is judged,
    one gap fault and no hand_unseen."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.skip(3)
    t.new_hand(quiet({0: READY_17}))
    t.win(0)
    assert [code for _, code in t.faults()] == ["gap"]
    assert [h.result for h in t.hands()] == ["win", "win"]
