"""Rulebook rows, part 1: every violation code of taiwan16.md §3 ("Violation codes"), each
with scenarios that break the rule and their legal twins, through the mirror and through
`mjtable replay` (see kit_rulebook.py). 行牌禁制 1–8 are the codes restriction_1 … restriction_8.

The scenarios are in kit_rulebook_codes.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_service.mirror.records import VIOLATION_CODES
from tests.mirror.kit_rulebook import (
    READY_8S,
    READY_25M,
    READY_69S,
    SHANPON_2M_6P,
    Case,
    covered,
    hand_waits,
    params,
    run_case,
)
from tests.mirror.kit_rulebook_codes import CASES, KEEPER, KONG_8S

# --- the table runs --------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "way"), params(CASES))
def test_rulebook(case: Case, way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_case(case, way, tmp_path, capsys)


@pytest.mark.parametrize(
    ("hand", "want"),
    [
        (READY_69S, "6s 9s"),
        (READY_8S, "8s"),
        (READY_25M, "2m 5m"),
        (SHANPON_2M_6P, "2m 6p"),
        (KONG_8S[1], "8s"),
        (KEEPER[1].replace("3p 3p 3p 3p", "3p 3p 3p") + " 8p", "2s 5s"),
    ],
)
def test_the_hands_wait_as_their_comments_say(hand: str, want: str) -> None:
    """The scenarios' premises, by the rules engine's shapes (the 3p kong of KEEPER as a
    triplet, its 8p drawn)."""
    assert hand_waits(hand) == set(want.split())


def test_every_code_has_a_breach_and_a_twin() -> None:
    for code in VIOLATION_CODES:
        assert covered(CASES, code) == (True, True), code
