"""Table order (taiwan16.md §2–§3): dice counting, seat positions, the reserve, the deal's rotation.

Seats are 0–3 in turn order (counter-clockwise seen from above: seat s+1 is the
下家 of seat s). Pure functions shared by the simulator and the service's mirror,
so both count the dice and pass the deal the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from table_service.rules.profile import SeatOrder

SEATS: Final = 4
WALL_STACKS: Final = 18  # 墩 per side
TILES: Final = 144
RESERVE_TILES: Final = 16  # 殘牌: 8 墩 always left undrawn
DEAL_ROUNDS: Final = 4  # 2 墩 (4 tiles) per player per round
HAND_SIZE: Final = 16
NO_CLAIM_DRAWABLE: Final = 3  # 禁制 7: no 吃/碰/碰槓 with this many drawable tiles or fewer


def counted_seat(roller: int, total: int) -> int:
    """The seat a dice total points at: the roller is 1, then onward in turn order."""
    return (roller + total - 1) % SEATS


def seat_position(seat: int, opening_seat: int, dealer: int, order: SeatOrder = "opening") -> int:
    """A seat's position 1–4 this hand (東 = 1): from the 開門位, or from the dealer."""
    first = opening_seat if order == "opening" else dealer
    return (seat - first) % SEATS + 1


def drawable(tiles_in_wall: int) -> int:
    """Tiles that may still be drawn from the front: the wall minus the 8-墩 reserve."""
    return max(0, tiles_in_wall - RESERVE_TILES)


def upper_seat(seat: int) -> int:
    """上家: the player before `seat` in turn order, the only one whose discard it may chow."""
    return (seat - 1) % SEATS


def claim_order(discarder: int) -> tuple[int, int, int]:
    """The other seats nearest-first after the discarder: 攔胡 goes to the first winner."""
    return tuple((discarder + k) % SEATS for k in (1, 2, 3))  # type: ignore[return-value]


def winner_of(discarder: int, claimants: set[int]) -> int | None:
    """Of several seats claiming 胡 on one discard, the one nearest after the discarder."""
    return next((s for s in claim_order(discarder) if s in claimants), None)


def forbidden_after_chow(claimed: int, lowest: int) -> frozenset[int]:
    """禁制 6: after chowing `claimed` into a sequence starting at `lowest`, kinds not discardable.

    The claimed kind itself and its 絡: the tile at the other end making the same shape
    (chow 3 with 4-5: not 3, not 6; chow 4 with 2-3: not 4, not 1; a middle chow has none).
    """
    forbidden = {claimed}
    if claimed == lowest and lowest % 9 <= 5:
        forbidden.add(claimed + 3)
    elif claimed == lowest + 2 and lowest % 9 >= 1:
        forbidden.add(lowest - 1)
    return frozenset(forbidden)


HandEnd = Literal["dealer_win", "other_win", "draw", "dealer_false_win", "other_false_win"]


@dataclass(frozen=True, slots=True)
class Deal:
    """Who deals, the streak, the round wind (0 東 … 3 北) and how many deals left 起莊位."""

    dealer: int
    streak: int = 0
    round_wind: int = 0
    first_dealer: int = 0

    def next(self, end: HandEnd) -> Deal | None:
        """The next hand's deal (§2 連莊); None when the 將 is over (北 round finished)."""
        if end in ("dealer_win", "draw"):
            return Deal(self.dealer, self.streak + 1, self.round_wind, self.first_dealer)
        if end == "other_false_win":
            return self  # the dealer keeps the deal; the streak does not grow
        dealer = (self.dealer + 1) % SEATS
        round_wind = self.round_wind + (1 if dealer == self.first_dealer else 0)
        if round_wind >= 4:
            return None
        return Deal(dealer, 0, round_wind, self.first_dealer)
