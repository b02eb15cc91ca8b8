"""Settlement (taiwan16.md §6) through `settle_json`: every kind by name, literal payments.

Found by mutation testing (bench/mutation.py). Stakes are the defaults: 底 100, 台錢 20;
dealer 台 = 作莊 1 + 連N拉N 2N on a payment the dealer is party to.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from table_service.rules import settle, settle_json
from table_service.rules.settlement import parse_outcome


def payments(**request: Any) -> dict[tuple[int, int], int]:
    got = settle_json(request)
    return {(p["from"], p["to"]): p["amount"] for p in got["payments"]}  # type: ignore[attr-defined]


@pytest.mark.parametrize("kind", ["discard", "robbing_kong", "seven_rob_one"])
def test_one_payer_kinds(kind: str) -> None:
    """§6: a discard, 搶槓 or 七搶一 is paid by one seat: 100 + 3 × 20 = 160."""
    assert payments(kind=kind, winner=1, payer=3, dealer=0, tai=3) == {(3, 1): 160}


@pytest.mark.parametrize("kind", ["self_draw", "eight_immortals"])
def test_all_three_pay_kinds(kind: str) -> None:
    """§6: a self-draw or 八仙過海 is paid by each other seat; the dealer (seat 0) adds 1 台."""
    assert payments(kind=kind, winner=1, dealer=0, tai=3) == {(0, 1): 180, (2, 1): 160, (3, 1): 160}


@pytest.mark.parametrize("kind", ["false_win", "penalty"])
def test_offender_pays_each_kinds(kind: str) -> None:
    """§3 詐胡 and 包賠: the offender pays each of the three; the dealer gets 1 台 more."""
    assert payments(kind=kind, winner=2, dealer=0, tai=3) == {(2, 0): 180, (2, 1): 160, (2, 3): 160}


def test_seven_rob_one_self_draw_by_name() -> None:
    """§5 case (2): the robbed seat pays 9 台 (自摸 1 + 8), the other two 1 台."""
    got = payments(kind="seven_rob_one_self_draw", winner=1, payer=3, dealer=1, tai=9)
    assert got == {(3, 1): 100 + 10 * 20, (0, 1): 140, (2, 1): 140}


def test_values_are_immutable() -> None:
    """The engine's values are immutable: stakes, an outcome and a payment."""
    outcome = parse_outcome({"kind": "self_draw", "winner": 1, "dealer": 0, "tai": 3})
    assert outcome.payer is None  # an all-three-pay kind has no single payer
    payment = settle(outcome)[0]
    for value, field in ((outcome, "tai"), (outcome.stakes, "base"), (payment, "amount")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, field, 0)
