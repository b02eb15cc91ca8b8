"""Judging a declared win from what the mirror saw: the rules engine's Hand, its 台, the money.

Pure functions over the mirror's state; the mirror decides *when* to judge, this
module decides *what* the hand is worth and who pays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from table_service.mirror.state import MELD_RULES_NAME, HandState, SeatState
from table_service.rules import HandOutcome, Profile, score, settle
from table_service.rules.hand import Hand, HandInputError, Meld, check_hand
from table_service.rules.scoring import ScoreResult
from table_service.rules.settlement import Payment
from table_service.rules.table import Deal, seat_position
from table_service.rules.tiles import is_flower_tile, tile_flower, tile_kind

WinHow = Literal["discard", "self_draw", "robbing_kong"]
FlowerWinKind = Literal["eight_immortals", "seven_rob_one"]
HandEndKind = Literal["dealer_win", "other_win", "dealer_false_win", "other_false_win"]


@dataclass
class WinClaim:
    """A 胡 pressed, waiting for its `hand_revealed` (or judged at once when none follows)."""

    seat: int
    how: WinHow
    tile: int  # the winning tile id (the discard, the added kong tile, or the seat's draw)
    payer: int | None
    seq: int
    boot_id: int
    codes: list[str] = field(default_factory=list)  # the rules that bar this win
    flower_win: FlowerWinKind | None = None
    robbed_from: int | None = None  # 七搶一: the seat that loses a flower and pays
    robbed_flower: int | None = None  # 七搶一 case (2): the flower number taken at the win
    replacement: bool = False
    timing: str | None = None
    declared: str | None = None
    revealed: list[int] | None = None  # its hand_revealed, kept until the window closes (D3)
    legal: bool = True  # a seat that may win on the tile (攔胡 ranks legal claims first)


@dataclass(frozen=True)
class Verdict:
    """What a judged win comes to; `end` drives the next deal (Deal.next)."""

    result: Literal["win", "flower_win", "false_win"]
    settle_kind: str
    tai: int
    score: ScoreResult | None
    payments: tuple[Payment, ...]
    codes: tuple[str, ...]
    end: HandEndKind


def build_hand(
    claim: WinClaim,
    concealed_ids: list[int],
    seat: SeatState,
    hand: HandState,
    deal: Deal,
    profile: Profile,
) -> Hand | None:
    """The rules engine's declaration for this win, or None when the tiles cannot make one.

    `concealed_ids` are the seat's concealed tiles with the winning tile among them.
    """
    kinds = [tile_kind(t) for t in concealed_ids if not is_flower_tile(t)]
    if any(len(m.tiles) not in (3, 4) for m in seat.melds):
        return None  # a meld the stream left broken (a tile taken out of it): no hand
    win_kind = tile_kind(claim.tile)
    if is_flower_tile(claim.tile) or win_kind not in kinds:
        return None
    kinds.remove(win_kind)
    melds = tuple(
        Meld(
            MELD_RULES_NAME[m.kind],  # type: ignore[arg-type]
            tuple(sorted(tile_kind(t) for t in m.tiles)),
            m.kind == "kong_concealed",
        )
        for m in seat.melds
    )
    if len(kinds) + 3 * len(melds) != 16:
        return None
    position = seat_position(seat.seat, hand.opening_seat or 0, deal.dealer, profile.seat_order)
    flowers = frozenset(tile_flower(f) for f in seat.flowers)
    declared = claim.declared if not any(m.exposed for m in melds) else None
    candidate = Hand(
        concealed=tuple(kinds),
        melds=melds,
        winning_tile=win_kind,
        win=claim.how,
        flowers=flowers,
        seat_wind=position - 1,
        round_wind=deal.round_wind,
        dealer=seat.seat == deal.dealer,
        streak=deal.streak,
        replacement=claim.replacement and claim.how == "self_draw",
        last_tile=claim.how == "self_draw" and hand.drawable == 0,
        declared=declared,  # type: ignore[arg-type]
        timing=claim.timing,  # type: ignore[arg-type]
        flower_win=claim.flower_win,
        robbed_flower=claim.robbed_flower,
    )
    try:
        check_hand(candidate, profile.rules)
    except HandInputError:
        # A special timing the tiles do not support (e.g. after an exposed meld): drop it.
        candidate = dataclasses.replace(candidate, timing=None, declared=None)
        try:
            check_hand(candidate, profile.rules)
        except HandInputError:
            return None
    return candidate


def flower_only_hand(claim: WinClaim, seat: SeatState, deal: Deal) -> Hand:
    """A 花胡 whose replacement did not complete the hand: 8 台 alone, the hand unrevealed."""
    assert claim.flower_win is not None
    return Hand(
        concealed=(),
        melds=(),
        winning_tile=None,
        win="self_draw",
        flowers=frozenset(range(1, 9)),
        dealer=seat.seat == deal.dealer,
        streak=deal.streak,
        flower_win=claim.flower_win,
        robbed_flower=claim.robbed_flower,
    )


def verdict(claim: WinClaim, candidate: Hand | None, deal: Deal, profile: Profile) -> Verdict:
    """Score and settle a win; a barred or impossible one is a 詐胡 (taiwan16.md §3)."""
    result = score(candidate, profile) if candidate is not None else None
    valid = result is not None and result.valid
    stakes = profile.stakes()
    dealer_party = claim.seat == deal.dealer
    if claim.codes or not valid:
        codes = list(claim.codes) + ([] if valid else ["false_win"])
        tai = result.tai if result is not None and valid else 0
        outcome = HandOutcome(
            kind="false_win",
            winner=claim.seat,
            tai=tai,
            dealer=deal.dealer,
            streak=deal.streak,
            stakes=stakes,
        )
        end: HandEndKind = "dealer_false_win" if dealer_party else "other_false_win"
        return Verdict("false_win", "false_win", tai, result, settle(outcome), tuple(codes), end)
    assert result is not None
    kind: str = claim.how
    if claim.flower_win is not None:
        completed = candidate is not None and candidate.revealed
        kind = claim.flower_win
        if claim.robbed_flower is not None and completed:
            kind = "seven_rob_one_self_draw"
    outcome = HandOutcome(
        kind=kind,  # type: ignore[arg-type]
        winner=claim.seat,
        tai=result.tai,
        dealer=deal.dealer,
        streak=deal.streak,
        payer=claim.payer,
        stakes=stakes,
    )
    return Verdict(
        "flower_win" if claim.flower_win else "win",
        kind,
        result.tai,
        result,
        settle(outcome),
        (),
        "dealer_win" if dealer_party else "other_win",
    )
