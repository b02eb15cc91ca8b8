"""Settlement (taiwan16.md §6) through `settle_json`: every kind by name, literal payments.

Found by mutation testing (bench/mutation.py). Stakes are the defaults: 底 100, 台錢 20;
dealer 台 = 作莊 1 + 連N拉N 2N on a payment the dealer is party to.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from table_service.rules import HandOutcome, SettleInputError, Stakes, settle, settle_json
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


# --- malformed requests: score-format.md's `mjtable settle` names the field ---------
# The message is part of the interface (the CLI prints it and exits 2): each is literal.

KINDS = (
    "discard, self_draw, robbing_kong, eight_immortals, seven_rob_one, "
    "seven_rob_one_self_draw, false_win, penalty"
)
SELF_DRAW = {"kind": "self_draw", "winner": 1, "dealer": 0, "tai": 3}
DISCARD = {"kind": "discard", "winner": 1, "payer": 3, "dealer": 0, "tai": 3}


def rejection(request: object) -> tuple[str, str]:
    with pytest.raises(SettleInputError) as info:
        settle_json(request)
    return info.value.field, str(info.value)


@pytest.mark.parametrize(
    ("request_", "field", "message"),
    [
        ([1, 2], "input", "input: expected a JSON object"),
        ({**SELF_DRAW, "zeta": 1, "alpha": 2}, "alpha", "alpha: unknown key"),
        ({**SELF_DRAW, "kind": "jackpot"}, "kind", f"kind: expected one of {KINDS}, got 'jackpot'"),
        ({"winner": 1, "dealer": 0, "tai": 3}, "kind", f"kind: expected one of {KINDS}, got None"),
        ({"kind": "self_draw", "dealer": 0, "tai": 3}, "winner", "winner: missing"),
        ({**SELF_DRAW, "winner": None}, "winner", "winner: missing"),
        ({**SELF_DRAW, "winner": 4}, "winner", "winner: expected a seat 0–3, got 4"),
        ({**SELF_DRAW, "winner": -1}, "winner", "winner: expected a seat 0–3, got -1"),
        ({**SELF_DRAW, "winner": True}, "winner", "winner: expected a seat 0–3, got True"),
        ({**SELF_DRAW, "winner": "1"}, "winner", "winner: expected a seat 0–3, got '1'"),
        ({"kind": "self_draw", "winner": 1, "tai": 3}, "dealer", "dealer: missing"),
        ({**SELF_DRAW, "dealer": 7}, "dealer", "dealer: expected a seat 0–3, got 7"),
        ({**DISCARD, "payer": None}, "payer", "payer: missing"),
        ({**DISCARD, "payer": 1}, "payer", "payer: the payer cannot be the winner"),
        ({**DISCARD, "payer": 4}, "payer", "payer: expected a seat 0–3, got 4"),
        ({**SELF_DRAW, "payer": 2}, "payer", "payer: a self_draw settlement has no single payer"),
        (
            {**SELF_DRAW, "kind": "penalty", "payer": 0},
            "payer",
            "payer: a penalty settlement has no single payer",
        ),
        ({"kind": "self_draw", "winner": 1, "dealer": 0}, "tai", "tai: missing"),
        ({**SELF_DRAW, "tai": None}, "tai", "tai: missing"),
        ({**SELF_DRAW, "tai": -1}, "tai", "tai: expected a whole number ≥ 0, got -1"),
        ({**SELF_DRAW, "tai": 2.0}, "tai", "tai: expected a whole number ≥ 0, got 2.0"),
        ({**SELF_DRAW, "tai": True}, "tai", "tai: expected a whole number ≥ 0, got True"),
        (
            {**DISCARD, "kind": "seven_rob_one_self_draw", "tai": 7},
            "tai",
            "tai: seven_rob_one_self_draw includes the 8 of 七搶一",
        ),
        ({**SELF_DRAW, "streak": -1}, "streak", "streak: expected a whole number ≥ 0, got -1"),
        ({**SELF_DRAW, "streak": None}, "streak", "streak: missing"),
        (
            {**SELF_DRAW, "stakes": [100, 20]},
            "stakes",
            "stakes: expected an object with base and per_tai",
        ),
        (
            {**SELF_DRAW, "stakes": {"base": 100, "zeta": 1, "ante": 5}},
            "stakes.ante",
            "stakes.ante: unknown key",
        ),
        (
            {**SELF_DRAW, "stakes": {"base": -5}},
            "stakes.base",
            "stakes.base: expected a whole number ≥ 0, got -5",
        ),
        ({**SELF_DRAW, "stakes": {"base": None}}, "stakes.base", "stakes.base: missing"),
        (
            {**SELF_DRAW, "stakes": {"per_tai": "x"}},
            "stakes.per_tai",
            "stakes.per_tai: expected a whole number ≥ 0, got 'x'",
        ),
        ({**SELF_DRAW, "stakes": {"per_tai": None}}, "stakes.per_tai", "stakes.per_tai: missing"),
    ],
)
def test_malformed_request_names_field_and_says_why(
    request_: object, field: str, message: str
) -> None:
    assert rejection(request_) == (field, message)


def test_seven_rob_one_tai_message_uses_the_profiles_value() -> None:
    """A profile whose 七搶一 is 10 (§7) names 10 and accepts exactly 10 台."""
    request = {**DISCARD, "kind": "seven_rob_one_self_draw", "tai": 9}
    with pytest.raises(SettleInputError) as info:
        settle_json(request, Stakes(seven_rob_one_tai=10))
    assert str(info.value) == "tai: seven_rob_one_self_draw includes the 10 of 七搶一"
    got = settle_json({**request, "tai": 10}, Stakes(seven_rob_one_tai=10))
    # The robbed seat 3 pays 10 台; seats 0 (dealer: +1 台) and 2 pay the hand's own 0.
    assert got["payments"] == [
        {"from": 0, "to": 1, "amount": 120, "tai": 0, "dealer_tai": 1},
        {"from": 2, "to": 1, "amount": 100, "tai": 0, "dealer_tai": 0},
        {"from": 3, "to": 1, "amount": 300, "tai": 10, "dealer_tai": 0},
    ]


@pytest.mark.parametrize(
    ("request_", "paid"),
    [
        # The smallest accepted values: 0 台, streak 0, base 0, per_tai 0; 8 台 for 七搶一 (2).
        ({**SELF_DRAW, "tai": 0}, {(0, 1): 120, (2, 1): 100, (3, 1): 100}),
        ({**SELF_DRAW, "streak": 0}, {(0, 1): 180, (2, 1): 160, (3, 1): 160}),
        ({**SELF_DRAW, "stakes": {"base": 0}}, {(0, 1): 80, (2, 1): 60, (3, 1): 60}),
        ({**SELF_DRAW, "stakes": {"per_tai": 0}}, {(0, 1): 100, (2, 1): 100, (3, 1): 100}),
        ({**SELF_DRAW, "stakes": {}}, {(0, 1): 180, (2, 1): 160, (3, 1): 160}),
        (
            {**DISCARD, "kind": "seven_rob_one_self_draw", "tai": 8},
            {(0, 1): 120, (2, 1): 100, (3, 1): 260},
        ),
        # A payer of null where the kind has none is the same as no payer.
        ({**SELF_DRAW, "payer": None}, {(0, 1): 180, (2, 1): 160, (3, 1): 160}),
        # Seats at both ends of 0–3.
        ({**DISCARD, "winner": 0, "payer": 3, "dealer": 3}, {(3, 0): 180}),
    ],
)
def test_boundary_values_are_accepted(request_: dict[str, Any], paid: dict[Any, int]) -> None:
    assert payments(**request_) == paid


def test_outcome_payer_defaults_to_none() -> None:
    """`HandOutcome` is public (the service and the judge build it, by name): no payer
    means None, no streak 0, no stakes the default's."""
    outcome = HandOutcome(kind="false_win", winner=2, tai=3, dealer=0)
    assert outcome.payer is None
    assert outcome == HandOutcome(
        kind="false_win", winner=2, tai=3, dealer=0, streak=0, payer=None, stakes=Stakes()
    )
    with pytest.raises(TypeError):
        HandOutcome("false_win", 2, 3, 0)  # type: ignore[misc]
