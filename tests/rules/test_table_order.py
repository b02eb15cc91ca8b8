"""Table order (taiwan16.md §2–§3) at its edges: found by mutation testing (bench/mutation.py).

Every expectation is worked by hand from the rules text and written as a literal.
"""

from __future__ import annotations

import dataclasses

import pytest

from table_service.rules import table
from table_service.rules.table import Deal, forbidden_after_chow, seat_position
from table_service.rules.tiles import parse_kind


def test_table_constants_are_the_rules_numbers() -> None:
    """§1–§3: 4 walls of 18 墩 = 144; 殘牌 8 墩 = 16; 4 deal rounds to 16 tiles; 禁制 7's 3."""
    assert (table.SEATS, table.WALL_STACKS, table.TILES) == (4, 18, 144)
    assert table.WALL_STACKS * 2 * table.SEATS == table.TILES
    assert (table.RESERVE_TILES, table.DEAL_ROUNDS, table.HAND_SIZE) == (16, 4, 16)
    assert table.NO_CLAIM_DRAWABLE == 3


@pytest.mark.parametrize(
    ("claimed", "low", "forbidden"),
    [
        ("6m", "6m", {"6m", "9m"}),  # 6 with 7-8: the lowest end 6 still has its 絡 9
        ("7m", "7m", {"7m"}),  # 7 with 8-9: no 絡 past 9
        ("4p", "2p", {"4p", "1p"}),  # 4 with 2-3: 絡 1 (the sequence starting at 2)
        ("3p", "1p", {"3p"}),  # 3 with 1-2: no 絡 below 1
        ("3s", "3s", {"3s", "6s"}),
        ("9s", "7s", {"9s", "6s"}),
    ],
)
def test_luo_at_the_suit_edges(claimed: str, low: str, forbidden: set[str]) -> None:
    """禁制 6: the 絡 exists only while it stays inside the suit."""
    got = forbidden_after_chow(parse_kind(claimed), parse_kind(low))
    assert got == {parse_kind(k) for k in forbidden}


def test_seat_position_counts_from_the_opening_seat_by_default() -> None:
    """§2 合開門序: positions from the 開門位 unless the profile says from the dealer."""
    assert [seat_position(s, 1, 3) for s in range(4)] == [4, 1, 2, 3]
    assert [seat_position(s, 1, 3, "opening") for s in range(4)] == [4, 1, 2, 3]
    assert [seat_position(s, 1, 3, "dealer") for s in range(4)] == [2, 3, 4, 1]


def test_a_deal_starts_with_no_streak_in_the_east_round_from_seat_0() -> None:
    assert Deal(2) == Deal(2, 0, 0, 0)
    assert Deal(2).next("other_win") == Deal(3, 0, 0, 0)
    assert Deal(3).next("other_win") == Deal(0, 0, 1, 0)  # back at seat 0: 南 round


def test_the_last_round_ends_only_after_its_last_dealer() -> None:
    """§2: the 將 ends when the deal returns to the first dealer after the 北 round."""
    assert Deal(1, 0, 3, 2).next("other_win") is None
    assert Deal(0, 0, 3, 2).next("other_win") == Deal(1, 0, 3, 2)
    assert Deal(3, 0, 2, 0).next("other_win") == Deal(0, 0, 3, 0)


def test_a_deal_is_an_immutable_value() -> None:
    """The simulator and the mirror share deals: frozen, so hashable and never edited."""
    deal = Deal(1, 2, 0, 1)
    assert {deal: "x"}[Deal(1, 2, 0, 1)] == "x"
    with pytest.raises(dataclasses.FrozenInstanceError):
        deal.streak = 3  # type: ignore[misc]
