"""Rulebook rows, part 2: the claim rules of taiwan16.md §3 — priority (胡 over 碰/槓 over
吃), 攔胡, 搶槓 and 過水 (D1, with the profile switch pass_water_self_draw) — each with the
scenarios that test it and their twins, through the mirror and through `mjtable replay`
(see kit_rulebook.py).

The scenarios are in kit_rulebook_claims.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirror.kit_rulebook import (
    ALSO_6S,
    READY_69P,
    Case,
    covered,
    hand_waits,
    params,
    run_case,
)
from tests.mirror.kit_rulebook_claims import ALSO_7P, CASES, KONG_E, ROBBER

# --- the table runs ------------------------------------------------------------------


@pytest.mark.parametrize(("case", "way"), params(CASES))
def test_rulebook(case: Case, way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_case(case, way, tmp_path, capsys)


@pytest.mark.parametrize(
    ("hand", "want"),
    [
        (ALSO_6S, "6s"),
        (READY_69P, "6p 9p"),
        (ROBBER, "7p"),
        (ALSO_7P, "7p"),
        (KONG_E, "6p 9p"),
        ("2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 6s 6s 7p 8p W W", "6p 9p"),
        ("2m 2m 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p 6p 7p", "5p 8p"),
        ("2m 2m 3m 3m 3m 4m 4m 2s 3s 4s 6s 7s 8s 2p 3p 4p", "2m 3m 4m"),
    ],
)
def test_the_hands_wait_as_their_comments_say(hand: str, want: str) -> None:
    assert hand_waits(hand) == set(want.split())


@pytest.mark.parametrize("row", ["priority", "intercepted_win", "robbing_kong", "D1"])
def test_every_row_has_a_scenario_and_a_twin(row: str) -> None:
    assert covered(CASES, row) == (True, True)
