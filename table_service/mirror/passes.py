"""補花 in passes (taiwan16.md §2): who may replace a flower when, before the first discard.

The opening 補花 goes round in turn order from the dealer; a flower drawn as a
replacement waits for the next pass, after the other seats have had theirs. A flower's
turn is its place (pass, seat's order from the dealer): a replacement drawn while another
seat still holds a flower of an earlier place takes a tile out of its order. Pure
functions over the hand's picture; drawing.py keeps the passes as the tiles move.
"""

from __future__ import annotations

from table_service.mirror.state import HandState
from table_service.rules.table import SEATS
from table_service.rules.tiles import is_flower_tile

Place = tuple[int, int]  # (pass, the seat's order from the dealer)


def place(hand: HandState, seat: int, pass_no: int) -> Place:
    return pass_no, (seat - hand.dealer) % SEATS


def in_opening(hand: HandState) -> bool:
    """The opening 補花 lasts until the first discard."""
    return hand.phase == "play" and all(s.discards_made == 0 for s in hand.seats)


def first_passes(hand: HandState) -> None:
    """The deal is done: every dealt flower belongs to the first pass."""
    for s in hand.seats:
        for tile in s.concealed:
            if is_flower_tile(tile):
                hand.flower_pass[tile] = 1


def _waiting(hand: HandState, seat: int) -> list[int]:
    """The passes of a seat's flowers still to be replaced: revealed and owed (0 marks one
    out of order, flagged already), or still in its hand."""
    s = hand.seats[seat]
    owed = [p for p in s.owed_passes if p]
    return owed + [hand.flower_pass.get(t, 1) for t in s.concealed if is_flower_tile(t)]


def ahead_of(hand: HandState, seat: int, pass_no: int) -> int | None:
    """A seat whose flower comes before this seat's replacement of a pass-`pass_no` flower,
    or None."""
    mine = place(hand, seat, pass_no)
    for other in range(SEATS):
        if other != seat and any(place(hand, other, p) < mine for p in _waiting(hand, other)):
            return other
    return None


def next_pass(hand: HandState, seat: int, pass_no: int) -> int:
    """The pass a flower drawn as this replacement waits for: the one after the pass going
    round when it is drawn. In order, that is the replaced flower's own; drawn early
    (flagged), an earlier pass is still going round, and the flower waits for the pass
    after that one, not for one more behind it (one early draw, one violation)."""
    others = [p for other in range(SEATS) if other != seat for p in _waiting(hand, other)]
    return min([max(pass_no, 1), *others]) + 1
