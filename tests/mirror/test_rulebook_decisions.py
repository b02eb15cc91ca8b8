"""Rulebook rows, part 3: the decisions D2–D12 of taiwan16.md §3 (D1, 過水, is in
test_rulebook_claims.py), each with the scenarios that test it and their twins, through
the mirror and through `mjtable replay` (see kit_rulebook.py).

The scenarios are in kit_rulebook_decisions.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mirror.kit_rulebook import Case, covered, params, run_case
from tests.mirror.kit_rulebook_decisions import CASES

# --- the table runs --------------------------------------------------------------------


@pytest.mark.parametrize(("case", "way"), params(CASES))
def test_rulebook(case: Case, way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_case(case, way, tmp_path, capsys)


@pytest.mark.parametrize("row", [f"D{n}" for n in range(2, 13)])
def test_every_decision_has_its_scenarios(row: str) -> None:
    """Every decision has a twin (a legal play it allows); those that forbid have a
    breaking scenario too."""
    breach, twin = covered(CASES, row)
    assert twin, row
    assert breach or row in ("D5", "D6", "D8", "D11"), row
