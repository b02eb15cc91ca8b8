"""What only the sensors see of a hand's play, for the players' statistics: how long each
turn took, the go-round (巡) in which each hand became ready, the winner's wait and the
go-round a winning tile was dealt in at.

Times are the events' own (`ts`, the bridge's receive time), so folding the same log again
gives the same figures; a clock stepping back counts as no time.
"""

from __future__ import annotations

from typing import Final

from table_service.mirror.records import HandPlay, SeatPlay
from table_service.mirror.state import HandState, SeatState
from table_service.rules.shapes import wait_kinds, wait_shape
from table_service.rules.tiles import kind_code, parse_kind

# 放槍: a win one seat paid for with its discard (or its kong, robbed)
DEAL_IN_KINDS: Final = frozenset({"discard", "robbing_kong"})


def turn_began(s: SeatState, ts: float) -> None:
    """Its turn has its tile (a draw in turn, a claim, the dealer's opening tiles)."""
    s.turn_began = ts


def discarded(s: SeatState, ts: float) -> None:
    """A discard ends the seat's turn, and may leave its hand ready."""
    if s.turn_began is not None:
        s.turns += 1
        s.turn_ms += max(0, round((ts - s.turn_began) * 1000))
        s.turn_began = None
    if s.ready_round is None and s.waits():
        s.ready_round = s.discards_made


def hand_play(
    hand: HandState,
    ts: float,
    seat: int | None,
    payer: int | None,
    kind: str | None,
    winning_tile: str | None,
) -> HandPlay:
    """The hand's play at its end (`seat`, `payer`, `kind` as its record gives them)."""
    wait, waits = None, []
    if seat is not None and winning_tile is not None and kind != "false_win":
        winner = hand.seats[seat]
        won = parse_kind(winning_tile)
        counts, held = list(winner.counts()), list(winner.held())
        if counts[won] > 0:  # the winning tile is in the hand (a ruling may say otherwise)
            counts[won] -= 1
            held[won] -= 1
            wait = wait_shape(counts, won, held)
            waits = [kind_code(k) for k in wait_kinds(counts, held)]
    deal_in = None
    if payer is not None and kind in DEAL_IN_KINDS:
        made = hand.seats[payer].discards_made
        deal_in = made if kind == "discard" else made + 1  # a robbed kong: its next turn
    return HandPlay(
        seconds=0.0 if hand.began is None else round(max(0.0, ts - hand.began), 3),
        go_rounds=max(s.discards_made for s in hand.seats),
        wait=wait,
        waits=waits,
        deal_in_round=deal_in,
        seats=[
            SeatPlay(ready_round=s.ready_round, turns=s.turns, turn_ms=s.turn_ms)
            for s in hand.seats
        ],
    )
