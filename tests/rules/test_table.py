"""Table order (§2–§3): dice counting, seat positions, the reserve, 禁制 6, the deal's rotation."""

from __future__ import annotations

import pytest

from table_service.rules.table import (
    Deal,
    claim_order,
    counted_seat,
    drawable,
    forbidden_after_chow,
    seat_position,
    upper_seat,
    winner_of,
)
from table_service.rules.tiles import parse_kind


@pytest.mark.parametrize(
    ("roller", "total", "seat"),
    [(0, 1, 0), (0, 2, 1), (0, 5, 0), (2, 3, 0), (3, 18, 0), (1, 10, 2)],
)
def test_dice_count_from_the_roller_in_turn_order(roller: int, total: int, seat: int) -> None:
    assert counted_seat(roller, total) == seat


def test_seat_positions_from_the_opening_seat_or_the_dealer() -> None:
    assert [seat_position(s, opening_seat=2, dealer=0) for s in range(4)] == [3, 4, 1, 2]
    assert [seat_position(s, 2, 0, "dealer") for s in range(4)] == [1, 2, 3, 4]


def test_reserve_of_eight_stacks() -> None:
    assert drawable(144) == 128 and drawable(17) == 1 and drawable(16) == 0 and drawable(3) == 0


def test_claims_go_to_the_nearest_after_the_discarder() -> None:
    assert claim_order(3) == (0, 1, 2)
    assert winner_of(1, {0, 3}) == 3 and winner_of(1, {0, 2}) == 2 and winner_of(1, set()) is None
    assert upper_seat(0) == 3


@pytest.mark.parametrize(
    ("claimed", "low", "forbidden"),
    [("3m", "3m", {"3m", "6m"}), ("6m", "4m", {"6m", "3m"}), ("5m", "4m", {"5m"}),
     ("7p", "7p", {"7p"}), ("3s", "1s", {"3s"})],
)  # fmt: skip
def test_no_discard_of_the_chowed_tile_or_its_luo(
    claimed: str, low: str, forbidden: set[str]
) -> None:
    """禁制 6: chow 3 with 4-5: not 3, not 6; 7-8-9 has no 絡 beyond the suit's end."""
    got = forbidden_after_chow(parse_kind(claimed), parse_kind(low))
    assert got == {parse_kind(k) for k in forbidden}


def test_dealer_keeps_the_deal_on_a_win_or_a_draw() -> None:
    deal = Deal(dealer=1, streak=0, round_wind=0, first_dealer=1)
    assert deal.next("dealer_win") == Deal(1, 1, 0, 1)
    assert deal.next("draw") == Deal(1, 1, 0, 1)


def test_a_non_dealer_win_passes_the_deal_and_resets_the_streak() -> None:
    assert Deal(1, 3, 0, 1).next("other_win") == Deal(2, 0, 0, 1)


def test_false_wins() -> None:
    """A non-dealer's 詐胡 keeps the dealer without adding to N; a dealer's passes the deal."""
    assert Deal(1, 2, 0, 1).next("other_false_win") == Deal(1, 2, 0, 1)
    assert Deal(1, 2, 0, 1).next("dealer_false_win") == Deal(2, 0, 0, 1)


def test_the_round_wind_advances_back_at_the_first_dealer_and_the_jiang_ends() -> None:
    assert Deal(0, 0, 0, 1).next("other_win") == Deal(1, 0, 1, 1)
    assert Deal(0, 0, 3, 1).next("other_win") is None  # after 北 round: the 將 is over
