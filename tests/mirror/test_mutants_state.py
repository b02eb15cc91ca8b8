"""Worked cases for state.py's survivors of bench/mutation.py: a seat's picture as the
public and the referee see it (its flags are true or false, a declaration none until made)."""

from __future__ import annotations

from tests.mirror.script import Script, quiet


def test_a_fresh_seat_is_not_dead_and_has_declared_nothing() -> None:
    t = Script(quiet())
    referee = t.seat_state(2)
    assert referee["dead_hand"] is False
    assert referee["declared"] is None
    assert referee["passed_win"] is False
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    public = hand["seats"][2]
    assert public["dead_hand"] is False
    assert public["declared"] is None
