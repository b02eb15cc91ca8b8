"""The worked examples of rules/examples*/ (copied into tests/data), through the CLI path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from table_service.rules import HandInputError, score_json, settle_json

DATA = Path(__file__).resolve().parent.parent / "data"
SCORE_CASES = sorted((DATA / "examples").glob("*.json"))
SETTLE_CASES = sorted((DATA / "examples-settle").glob("*.json"))


def test_examples_are_present() -> None:
    assert len(SCORE_CASES) >= 12 and len(SETTLE_CASES) >= 3


# The worked examples that must be refused say only `"error": true`; the field and the
# reason they are refused for, from score-format.md's rules, are pinned here.
ERRORS = {"057_bad-fifth-copy": ("melds[0].tiles", "a fifth copy of 5m")}


@pytest.mark.parametrize("path", SCORE_CASES, ids=lambda p: p.stem)
def test_score_example(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    expect = case["expect"]
    if expect.get("error"):
        field, message = ERRORS[path.stem]  # each error example names where it is wrong
        with pytest.raises(HandInputError, match=re.escape(message)) as info:
            score_json(case["input"])
        assert info.value.field == field
        return
    got = score_json(case["input"])
    assert got["valid"] == expect["valid"]
    assert got["tai"] == expect["tai"]
    assert {i["id"]: i["tai"] for i in got["items"]} == expect["items"]  # type: ignore[attr-defined]
    assert got["dealer_tai"] == expect["dealer_tai"]


@pytest.mark.parametrize("path", SETTLE_CASES, ids=lambda p: p.stem)
def test_settle_example(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    got = settle_json(case["input"])

    def key(p: dict[str, int]) -> tuple[int, int, int, int, int]:
        return (p["from"], p["to"], p["amount"], p["tai"], p["dealer_tai"])

    assert got["net"] == case["expect"]["net"]
    assert sorted(map(key, got["payments"])) == sorted(map(key, case["expect"]["payments"]))  # type: ignore[arg-type]
