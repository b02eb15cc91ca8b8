"""What a hand's event stream must show, judged from the events alone (real table or simulator).

These checks need no ground truth, so the HIL suite runs them against hardware too:
the deal follows the dice, every tile is drawn once, the 8-墩 reserve is never
touched, flowers and kongs are replaced from the 槓尾, play goes in turn order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from table_service.rules.table import RESERVE_TILES, SEATS, counted_seat

Body = dict[str, Any]
DEAL_TILES = 16 * 4 + 1


def split_hands(bodies: Sequence[Body]) -> list[list[Body]]:
    """Cut a table's stream into hands at each shuffle (the bodies before the first are dropped)."""
    hands: list[list[Body]] = []
    for body in bodies:
        if body["kind"] == "shuffle_started":
            hands.append([])
        if hands:
            hands[-1].append(body)
    return hands


@dataclass(frozen=True)
class HandView:
    """A hand as the far end sees it."""

    dealer: int
    dice_total: int
    opening_seat: int
    ended_in_win: bool
    winner: int | None


def view(hand: Sequence[Body]) -> HandView:
    dice = next(b for b in hand if b["kind"] == "dice_rolled" and b["roll"] == "deal")
    total = dice["die_1"] + dice["die_2"] + dice["die_3"]
    dealer = next(b["seat"] for b in hand if b["kind"] == "tile_drawn")
    wins = [b["seat"] for b in hand if b["kind"] == "seat_button" and b["button"] == "win"]
    return HandView(
        dealer, total, counted_seat(dealer, total), bool(wins), wins[-1] if wins else None
    )


def problems(hand: Sequence[Body]) -> list[str]:
    """Everything in this hand's stream that breaks the table's order (empty when it is clean)."""
    found: list[str] = []
    draws = [b for b in hand if b["kind"] == "tile_drawn"]
    if len(draws) < DEAL_TILES:
        return [f"only {len(draws)} draws: not a whole deal"]
    dealer = draws[0]["seat"]
    expected = [(dealer + k) % SEATS for k in range(SEATS) for _ in range(4)] * 4 + [dealer]
    if [d["seat"] for d in draws[:DEAL_TILES]] != expected:
        found.append("the deal is not 4 tiles at a time in turn order from the dealer, then 門牌")
    if any(d["end"] != "front" for d in draws[:DEAL_TILES]):
        found.append("a dealt tile came from the 槓尾")
    tiles = [d["tile"] for d in draws]
    if len(set(tiles)) != len(tiles):
        found.append("a tile id was drawn twice")
    lefts = [b["count"] for b in hand if b["kind"] == "tiles_left"]
    if lefts and min(lefts) < RESERVE_TILES:
        found.append(f"the reserve was drawn: {min(lefts)} tiles left")
    found += _replacements(hand)
    found += _turn_order(hand)
    return found


def _replacements(hand: Sequence[Body]) -> list[str]:
    """After a flower or a kong, that seat's next draw comes from the 槓尾."""
    found = []
    for i, body in enumerate(hand):
        replaced = body["kind"] == "flower_revealed" or (
            body["kind"] == "meld_exposed" and body["meld"].startswith("kong")
        )
        if not replaced:
            continue
        later = [b for b in hand[i + 1 :] if b["kind"] in ("tile_drawn", "seat_button")]
        nxt = next((b for b in later if b["kind"] == "tile_drawn"), None)
        won = any(b["kind"] == "seat_button" and b["button"] == "win" for b in later[:1])
        if nxt is not None and not won and nxt["end"] != "back":
            found.append(f"no 槓尾 replacement after the {body['kind']} of seat {body['seat']}")
    return found


def _turn_order(hand: Sequence[Body]) -> list[str]:
    """A discard nobody claims is followed by the next seat's draw from the front."""
    found = []
    for i, body in enumerate(hand):
        if body["kind"] != "tile_discarded":
            continue
        rest = hand[i + 1 :]
        nxt = next(
            (b for b in rest if b["kind"] in ("tile_drawn", "meld_exposed", "seat_button")), None
        )
        drawn = nxt is not None and nxt["kind"] == "tile_drawn" and nxt["end"] == "front"
        if drawn and nxt is not None and nxt["seat"] != (body["seat"] + 1) % SEATS:
            found.append(f"seat {nxt['seat']} drew after seat {body['seat']} discarded")
    return found
