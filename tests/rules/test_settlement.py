"""Settlement (§6): each win kind with and without the dealer, streaks, 詐胡, 包賠."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.rules import (
    HandOutcome,
    SettleInputError,
    Stakes,
    net,
    session_totals,
    settle,
    settle_json,
)


def pays(**kw: Any) -> dict[tuple[int, int], tuple[int, int]]:
    """{(from, to): (amount, dealer_tai)} for one hand."""
    payments = settle(HandOutcome(**kw))
    assert sum(net(payments)) == 0
    return {(p.payer, p.payee): (p.amount, p.dealer_tai) for p in payments}


def test_discard_between_non_dealers_has_no_dealer_tai() -> None:
    assert pays(kind="discard", winner=1, payer=3, tai=5, dealer=0, streak=4) == {(3, 1): (200, 0)}


def test_discard_dealer_wins_collects_dealer_tai() -> None:
    assert pays(kind="discard", winner=0, payer=2, tai=2, dealer=0, streak=1) == {
        (2, 0): (100 + (2 + 3) * 20, 3)
    }


def test_discard_by_the_dealer_pays_dealer_tai() -> None:
    assert pays(kind="discard", winner=1, payer=0, tai=0, dealer=0) == {(0, 1): (120, 1)}


def test_self_draw_by_dealer_collects_from_each() -> None:
    got = pays(kind="self_draw", winner=2, tai=3, dealer=2, streak=2)
    assert got == {(s, 2): (100 + (3 + 5) * 20, 5) for s in (0, 1, 3)}


def test_self_draw_by_non_dealer() -> None:
    got = pays(kind="self_draw", winner=3, tai=4, dealer=1, streak=0)
    assert got == {(0, 3): (180, 0), (1, 3): (200, 1), (2, 3): (180, 0)}


def test_robbing_kong_adder_pays_like_a_discarder() -> None:
    got = pays(kind="robbing_kong", winner=1, payer=2, tai=3, dealer=2, streak=0)
    assert got == {(2, 1): (100 + 4 * 20, 1)}


def test_seven_rob_one_robbed_pays_alone() -> None:
    assert pays(kind="seven_rob_one", winner=0, payer=3, tai=8, dealer=1) == {(3, 0): (260, 0)}


def test_eight_immortals_all_three_pay() -> None:
    got = pays(kind="eight_immortals", winner=0, tai=8, dealer=0, streak=0)
    assert got == {(s, 0): (100 + 9 * 20, 1) for s in (1, 2, 3)}


def test_seven_rob_one_case_two_self_draw() -> None:
    """Robbed seat pays the hand plus 8; the other two pay the hand's own 台 only."""
    got = pays(kind="seven_rob_one_self_draw", winner=0, payer=2, tai=8 + 3, dealer=3)
    assert got == {(2, 0): (100 + 11 * 20, 0), (1, 0): (160, 0), (3, 0): (100 + 4 * 20, 1)}


def test_false_win_by_non_dealer_pays_dealer_more() -> None:
    got = pays(kind="false_win", winner=1, tai=2, dealer=3, streak=1)
    assert got == {(1, 0): (140, 0), (1, 2): (140, 0), (1, 3): (100 + 5 * 20, 3)}


def test_penalty_with_no_hand_uses_tai_zero() -> None:
    """D9: a 包賠 with no declared hand is 底 plus dealer 台."""
    got = pays(kind="penalty", winner=0, tai=0, dealer=0, streak=0)
    assert got == {(0, s): (120, 1) for s in (1, 2, 3)}


def test_stakes_change_amounts() -> None:
    got = pays(kind="discard", winner=1, payer=3, tai=5, dealer=0, stakes=Stakes(50, 10))
    assert got == {(3, 1): (100, 0)}


def test_session_tally_sums_to_zero() -> None:
    hands = [
        settle(HandOutcome(kind="self_draw", winner=0, tai=3, dealer=0, streak=0)),
        settle(HandOutcome(kind="discard", winner=2, payer=0, tai=1, dealer=0, streak=1)),
        settle(HandOutcome(kind="false_win", winner=3, tai=0, dealer=1)),
    ]
    totals = session_totals(hands)
    assert sum(totals) == 0
    assert totals[0] == 3 * 180 - 180 + 100  # wins a dealer self-draw, pays, is paid a 詐胡


BASE = {"stakes": {"base": 100, "per_tai": 20}, "dealer": 0, "streak": 0, "winner": 1, "tai": 2}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "discard"}, "payer"),
        ({"kind": "self_draw", "payer": 2}, "payer"),
        ({"kind": "discard", "payer": 1}, "payer"),
        ({"kind": "discard", "payer": 4}, "payer"),
        ({"kind": "discard", "payer": 2, "winner": -1}, "winner"),
        ({"kind": "self_draw", "tai": -1}, "tai"),
        ({"kind": "self_draw", "stakes": {"base": -5, "per_tai": 20}}, "stakes.base"),
        ({"kind": "self_draw", "stakes": {"base": 5, "per_tai": "x"}}, "stakes.per_tai"),
        ({"kind": "jackpot"}, "kind"),
        ({"kind": "self_draw", "dealer": 7}, "dealer"),
        ({"kind": "self_draw", "bonus": 1}, "bonus"),
        ({"kind": "seven_rob_one_self_draw", "payer": 2, "tai": 3}, "tai"),
    ],
)
def test_malformed_settlement_names_the_field(change: dict[str, Any], field: str) -> None:
    with pytest.raises(SettleInputError) as info:
        settle_json({**BASE, **change})
    assert info.value.field == field
