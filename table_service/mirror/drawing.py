"""Drawing: the deal's draws, play draws, a tile put back, draws after the end, flowers.

A tile taken wrongly is placed and marked provisional: drawn again from the front by
the rightful seat, the referee put it back. Flowers owe a replacement from the 槓尾;
七搶一 (1) lets the seat with seven take the flower just revealed.
"""

from __future__ import annotations

from typing import Any, Final

from table_service.mirror.core import MirrorCore, _place_text
from table_service.mirror.state import HandState
from table_service.rules.table import DEAL_ROUNDS, SEATS
from table_service.rules.tiles import tile_code

DEAL_TILES: Final = 4 * DEAL_ROUNDS * SEATS + 1  # 65: 4 tiles at a time ×4 rounds, then 門牌


class DrawingMixin(MirrorCore):
    """`tile_drawn` and `flower_revealed`."""

    # --- drawing -------------------------------------------------------------------

    def _tile_drawn(self, body: Any) -> None:
        seat, tile, back = body.seat, body.tile, body.end.name == "BACK"
        hand = self.hand
        if hand is not None and hand.phase == "over":
            self._draw_after_end(hand, seat, tile, back)
            return
        hand = self._in_play("a tile drawn")
        if hand is None:
            return
        place = hand.where.get(tile)
        if place is not None and hand.provisional.get(tile) == place[1] and not back:
            self._put_back(hand, tile, place[1])  # the referee put a wrongly taken tile back
            place = None
        hand.provisional.clear()
        if place is not None:
            self._fault(
                "tile_twice",
                f"seat {seat} drew {tile_code(tile)} (id {tile}), which is " + _place_text(place),
            )
            self._unplace(hand, tile, place)
        if hand.phase == "dealing":
            self._deal_draw(hand, seat, tile, back)
        else:
            self._play_draw(hand, seat, tile, back)

    def _put_back(self, hand: HandState, tile: int, seat: int) -> None:
        """Undo a provisional take (never counted as a dealt tile or a turn's draw)."""
        hand.seats[seat].concealed.remove(tile)
        hand.seats[seat].changed()
        del hand.where[tile]
        hand.wall += 1

    def _deal_draw(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        i = hand.deal_draws
        expected = hand.dealer if i == DEAL_TILES - 1 else (hand.dealer + i // 4) % SEATS
        wrong = False
        if seat != expected:
            self._violation(
                seat, "out_of_turn", f"seat {seat} took a dealt tile; seat {expected}'s turn"
            )
            wrong = True
        elif back:
            self._violation(seat, "wrong_end", f"seat {seat} took a dealt tile from the 槓尾")
            wrong = True
        self._place(hand, seat, tile)
        if wrong:
            hand.provisional[tile] = seat
            return
        hand.deal_draws += 1
        hand.seats[seat].last_drawn = tile
        hand.seats[seat].last_from_back = False
        if hand.deal_draws == DEAL_TILES:
            hand.phase = "play"
            hand.turn, hand.step, hand.turn_start = hand.dealer, "discard", "first"

    def _play_draw(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        s = hand.seats[seat]
        if back:
            if s.owed > 0:
                s.owed -= 1
            elif self._rob_flower(hand, seat):
                pass
            else:
                mine = hand.turn == seat and hand.step == "draw"
                code = "wrong_end" if mine else "out_of_turn"
                self._violation(
                    seat, code, f"seat {seat} drew from the 槓尾 with no replacement owed"
                )
                self._place(hand, seat, tile)
                hand.provisional[tile] = seat
                return
            self._place(hand, seat, tile)
            s.last_drawn, s.last_from_back = tile, True
            return
        if hand.drawable == 0:
            self._violation(seat, "reserve_draw", f"seat {seat} drew from the 8-墩 reserve")
            self._place(hand, seat, tile)
            return
        if s.owed > 0:
            self._violation(seat, "wrong_end", f"seat {seat} took a replacement from the front")
            s.owed -= 1
            self._place(hand, seat, tile)
            s.last_drawn, s.last_from_back = tile, False
            return
        if not (hand.turn == seat and hand.step == "draw"):
            whose = hand.turn if hand.step == "draw" else None
            detail = f"seat {seat} drew " + (
                f"in seat {whose}'s turn" if whose is not None else "with no draw due"
            )
            self._violation(seat, "out_of_turn", detail)
            self._place(hand, seat, tile)
            hand.provisional[tile] = seat
            return
        pending = hand.pending
        if pending is not None and not pending.added_kong:
            self._close_claims(hand, pending, claimer=None)
            pending.next_drew = True
            if seat in pending.winners:  # D1: it reached to draw instead of winning
                pending.winners.discard(seat)
                self._pass_win(s)
        self._place(hand, seat, tile)
        hand.step, hand.turn_start, hand.kong_this_turn = "discard", "draw", False
        s.last_drawn, s.last_from_back = tile, False
        self._r5 = None

    def _draw_after_end(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        if hand.result == "drawn" and not back:
            self._violation(seat, "reserve_draw", f"seat {seat} drew from the reserve after 荒局")
            place = hand.where.get(tile)
            if place is not None:
                self._fault("tile_twice", f"{tile_code(tile)} (id {tile}) is {_place_text(place)}")
                self._unplace(hand, tile, place)
            self._place(hand, seat, tile)
            return
        self._fault("impossible", f"seat {seat} drew a tile after the hand ended")

    # --- flowers -------------------------------------------------------------------

    def _flower_revealed(self, body: Any) -> None:
        hand = self._in_play("a flower revealed")
        if hand is None:
            return
        seat, tile = body.seat, body.tile
        s = hand.seats[seat]
        self._take(hand, tile, seat, "revealed")
        s.flowers.append(tile)
        hand.where[tile] = ("flower", seat)
        opening = all(x.discards_made == 0 for x in hand.seats)
        if opening and any(x.owed for x in hand.seats if x is not s):
            self._violation(
                seat, "replacement_order", f"seat {seat} revealed a flower out of its 補花 pass"
            )
        s.owed += 1
        self._last_reveal = (seat, tile)
        if hand.drawable == 0 and hand.phase == "play":
            self._end_drawn()  # D4: no replacement exists for the last drawable tile

    def _rob_flower(self, hand: HandState, robber: int) -> bool:
        """七搶一 (1): the seat with seven takes the flower just revealed and draws for it."""
        if self._last_reveal is None:
            return False
        victim, flower = self._last_reveal
        r = hand.seats[robber]
        if victim == robber or len(r.flowers) != 7 or hand.seats[victim].owed == 0:
            return False
        v = hand.seats[victim]
        v.flowers.remove(flower)
        v.owed -= 1
        r.flowers.append(flower)
        hand.where[flower] = ("flower", robber)
        self._robbed = (victim, flower)
        return True
