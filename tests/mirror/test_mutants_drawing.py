"""Worked cases for drawing.py's survivors of bench/mutation.py (taiwan16.md §2, D4, D8;
replay-format.md faults). Every expected value comes from the rules text."""

from __future__ import annotations

from table_service.rules.tiles import FLOWER_BASE
from tests.mirror.script import QUIET, Script, quiet


def test_a_flower_revealed_that_another_seat_already_revealed_is_a_misread() -> None:
    """replay-format.md: one physical tile in two places is `tile_twice`; nobody is blamed
    and nothing moves: the flower stays the dealer's."""
    t = Script(quiet({0: QUIET[0] + " h1"}))
    t.flower(0, "h1")
    t.replacement(0, "2m")
    seq = t.seq + 1
    out = t.emit({"kind": "flower_revealed", "seat": 1, "tile": FLOWER_BASE})  # h1's id
    assert t.faults(out) == [(seq, "tile_twice")]
    assert t.violations(out) == []
    assert t.seat_state(0)["flowers"] == ["h1"]
    assert t.seat_state(1)["flowers"] == []
