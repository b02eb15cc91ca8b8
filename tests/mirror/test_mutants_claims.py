"""Worked cases for claims.py's survivors of bench/mutation.py (taiwan16.md §3, D1–D4,
D12; replay-format.md). Every expected value comes from the rules text."""

from __future__ import annotations

from tests.mirror.script import Script, quiet


def items(t: Script) -> set[str]:
    return {i.id for i in t.hand().items}


# --- discards out of phase --------------------------------------------------------------


def test_a_discard_during_the_deal_is_impossible() -> None:
    """replay-format.md: an event that cannot happen in this phase is an `impossible`
    fault (what else the mirror makes of it is not pinned here)."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    for code in ("P", "P", "P", "P"):
        t.draw(0, code)
    seq = t.seq + 1
    t.discard(0, "P")
    assert (seq, "impossible") in t.faults()


def test_a_turns_draw_from_the_back_kept_and_discarded_is_that_turns_draw() -> None:
    """Seat 1 takes its turn's tile from the 槓尾 (wrong_end) and plays on with it: its
    hand held 17 and discards to 16, so the discard is no short hand; seat 2 plays next."""
    t = Script(quiet())
    t.discard(0, "2m")
    seq = t.seq + 1
    t.draw(1, "3m", end="back")
    t.discard(1, "3m")
    t.cycle(2)
    assert t.violations() == [(seq, 1, "wrong_end")]
    assert t.seat_state(1)["concealed_count"] == 16
    assert t.seat_state(1)["discards"] == ["3m"]
