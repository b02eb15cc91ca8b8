"""Drawing: the deal's draws, play draws, a tile put back, draws after the end, flowers.

A tile taken wrongly is placed and marked provisional: drawn again from the front by
the rightful seat, the referee put it back. A draw of a tile the mirror knows is elsewhere
is a sensor's misread: a fault that moves nothing, so the re-read draw that follows is
judged as the draw (replay-format.md); with no re-read, the reading is followed as it came.
Flowers owe a replacement from the 槓尾;
七搶一 (1) lets the seat with seven take the flower just revealed.
"""

from __future__ import annotations

from typing import Any, Final

from table_service.mirror import passes, play
from table_service.mirror.core import MirrorCore, _place_text
from table_service.mirror.state import HandState, TurnStart
from table_service.rules.table import DEAL_ROUNDS, SEATS, Deal, counted_seat
from table_service.rules.tiles import is_flower_tile, tile_code

DEAL_TILES: Final = 4 * DEAL_ROUNDS * SEATS + 1  # 65: 4 tiles at a time ×4 rounds, then 門牌
_ACT: Final = {
    "tile_drawn": "draw",
    "tile_discarded": "discard",
    "flower_revealed": "reveal",
    "meld_exposed": "meld",
}


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
        if place is not None:
            self._hold_misread(hand, "tile_drawn", body, place, "drew")
            return
        self._draw(hand, seat, tile, back)

    # --- misreads ------------------------------------------------------------------

    def _hold_misread(
        self, hand: HandState, kind: str, body: Any, place: tuple[str, int], what: str
    ) -> None:
        """A tile the mirror knows is elsewhere, drawn, discarded or revealed: a sensor's
        misread, not a player's act. The picture stays as it was (the tile where the mirror
        had it, the seat's move still due), so the table's re-read is judged as the act."""
        tile = (
            body.tile
            if kind != "meld_exposed"
            else next(t for t in body.tiles if hand.where.get(t) == place)
        )
        self._fault(
            "tile_twice",
            f"seat {body.seat} {what} {tile_code(tile)} (id {tile}), which is "
            + _place_text(place)
            + f": a misread, the {_ACT[kind]} is still due",
        )
        hand.misread = (kind, body)

    def _settle_misread(self, kind: str, body: Any) -> None:
        """Before each event: the same seat's same act is the misread's re-read; anything
        else means none is coming, and the table's reading is followed as it came."""
        hand = self.hand
        if hand is None or kind == "tiles_left":
            return
        hand.reread = None  # only the count right after a re-read can tell it was none
        if hand.misread is None:
            return
        held_kind, held = hand.misread
        same_end = kind != "tile_drawn" or (held_kind == kind and body.end == held.end)
        if kind == held_kind and body.seat == held.seat and same_end:
            if kind == "tile_drawn":  # the count will tell it from the seat's next draw
                hand.reread = hand.misread
            hand.misread = None
            return
        self._follow_misread(hand)

    def _follow_misread(self, hand: HandState) -> None:
        """Take a misread act as the table reported it, the tile moved from where it was."""
        pending = hand.misread or hand.reread
        hand.misread = hand.reread = None
        if pending is None:
            return
        kind, body = pending
        seat = body.seat
        if kind == "tile_drawn":
            place = hand.where.get(body.tile)
            if place is not None:
                self._unplace(hand, body.tile, place)
            self._draw(hand, seat, body.tile, body.end.name == "BACK")
            return
        tiles = list(body.tiles) if kind == "meld_exposed" else [body.tile]
        for tile in tiles:  # into the seat's hand from where the mirror had them, then the act
            place = hand.where.get(tile)
            if place is None or place == ("hand", seat):
                continue
            if kind == "meld_exposed" and (place[0] == "river" or place[1] == seat):
                continue  # the claimed discard, or the seat's own pong a 加槓 extends
            self._unplace(hand, tile, place)
            hand.seats[seat].concealed.append(tile)
            hand.seats[seat].changed()
            hand.where[tile] = ("hand", seat)
        {
            "tile_discarded": self._tile_discarded,
            "flower_revealed": self._flower_revealed,
            "meld_exposed": self._meld_exposed,
        }[kind](body)

    def _count_after_misread(self, hand: HandState, count: int) -> bool:
        """The table's count around a misread draw; True when it agrees with the mirror's.

        Right after the misread the table counts the tile taken (one fewer than the mirror);
        right after its re-read, the same count as the mirror. One fewer after the "re-read"
        means it was the seat's next draw, and the misread a draw of its own (the deal's
        four in a row): that draw is followed as reported."""
        if hand.misread is not None:
            return count == hand.wall - (hand.misread[0] == "tile_drawn")
        if hand.reread is not None:
            if count == hand.wall - 1:
                hand.misread, hand.reread = hand.reread, None
                self._follow_misread(hand)
            hand.reread = None
        return count == hand.wall

    def _draw(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        hand.provisional.clear()
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
        if hand.deal_draws == 0 and self._deal_uncertain:
            self._learn_dealer(hand, seat)
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
            passes.first_passes(hand)
            play.turn_began(hand.seats[hand.dealer], self._ts)

    def _learn_dealer(self, hand: HandState, seat: int) -> None:
        """After a hand that was not judged, the seat taking the first dealt tiles is the
        dealer: the same one kept the deal (連莊, N + 1: it won or the hand was drawn),
        the next one took it over (連0, the round wind moving on as usual), any other is
        followed at 連0. A non-dealer's 詐胡 keeps the dealer at N, which the deal cannot
        show: the referee's correction sets it right. After a gap between judged hands
        the deal stands unless another seat deals (then at 連0)."""
        unjudged = self._deal_uncertain == "unjudged"
        self._deal_uncertain = None
        deal = self.deal
        if not unjudged:  # the last hand was judged: its deal holds unless the table differs
            following = deal if seat == deal.dealer else None
        elif seat == deal.dealer:
            following = deal.next("draw")
        elif seat == (deal.dealer + 1) % SEATS:
            following = deal.next("other_win")
        else:
            following = None
        if following is None or following.dealer != seat:
            following = Deal(seat, 0, deal.round_wind, deal.first_dealer)
        self.deal = following
        hand.dealer = seat
        if hand.dice is not None:
            hand.opening_seat = counted_seat(seat, sum(hand.dice))

    def _play_draw(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        s = hand.seats[seat]
        if back:
            if s.owed > 0:
                s.owed -= 1
                if s.owed_kongs > 0:
                    s.owed_kongs -= 1
                else:
                    self._replacement_in_pass(hand, seat, tile)
                pending = hand.pending
                if pending is not None and pending.melded_by == seat:  # a 明槓's replacement
                    self._close_claims(hand, pending)
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
            if s.owed_kongs > 0:
                s.owed_kongs -= 1
            elif s.owed_passes:
                pass_no = min(s.owed_passes)
                s.owed_passes.remove(pass_no)
                if is_flower_tile(tile) and passes.in_opening(hand):  # §2: the next pass's
                    hand.flower_pass[tile] = passes.next_pass(hand, seat, pass_no)
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
        self._place(hand, seat, tile)
        self._turn_drawn(hand, seat, tile)

    def _turn_drawn(self, hand: HandState, seat: int, tile: int, how: TurnStart = "draw") -> None:
        """The seat's turn has its draw (`tile`, already in its hand): the discard's window
        closes for 碰/槓 (D3), a winner that reached to draw lets it go (D1)."""
        s = hand.seats[seat]
        pending = hand.pending
        if pending is not None and not pending.added_kong:
            self._pass_pongs(hand, pending, None)
            pending.next_drew = True
            if seat in pending.winners:  # D1: it reached to draw instead of winning
                pending.winners.discard(seat)
                self._pass_win(s)
        hand.step, hand.turn_start, hand.kong_this_turn = "discard", how, False
        s.last_drawn, s.last_from_back = tile, how != "draw"
        play.turn_began(s, self._ts)
        self._r5 = None

    def _draw_after_end(self, hand: HandState, seat: int, tile: int, back: bool) -> None:
        if hand.result == "drawn" and not back:
            place = hand.where.get(tile)
            if place is not None:  # a misread: nothing moves, nobody is blamed
                self._fault("tile_twice", f"{tile_code(tile)} (id {tile}) is {_place_text(place)}")
                return
            self._violation(seat, "reserve_draw", f"seat {seat} drew from the reserve after 荒局")
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
        place = hand.where.get(tile)
        if place is not None and place != ("hand", seat):
            self._hold_misread(hand, "flower_revealed", body, place, "revealed")
            return
        self._take(hand, tile, seat, "revealed")
        s.flowers.append(tile)
        hand.where[tile] = ("flower", seat)
        pass_no = hand.flower_pass.pop(tile, 1)
        if passes.in_opening(hand):
            if any(x.owed for x in hand.seats if x is not s):
                self._violation(
                    seat, "replacement_order", f"seat {seat} revealed a flower out of its 補花 pass"
                )
                pass_no = 0  # flagged once: its replacement is not flagged again
            s.owed_passes.append(pass_no)
        s.owed += 1
        self._last_reveal = (seat, tile)
        if hand.drawable == 0 and hand.phase == "play":
            self._end_drawn()  # D4: no replacement exists for the last drawable tile

    def _replacement_in_pass(self, hand: HandState, seat: int, tile: int) -> None:
        """補花 in passes (§2): the replacement of a flower is drawn in that flower's pass,
        after the seats before it; a flower drawn so waits for the next pass."""
        s = hand.seats[seat]
        if not passes.in_opening(hand) or not s.owed_passes:
            return
        pass_no = min(s.owed_passes)
        s.owed_passes.remove(pass_no)
        if is_flower_tile(tile):
            hand.flower_pass[tile] = passes.next_pass(hand, seat, pass_no)
        ahead = passes.ahead_of(hand, seat, pass_no) if pass_no else None
        if ahead is not None:
            self._violation(
                seat,
                "replacement_order",
                f"seat {seat} drew a 補花 replacement of pass {pass_no} before seat {ahead}"
                " had its turn",
            )

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
        if v.owed_passes:
            v.owed_passes.pop()
        r.flowers.append(flower)
        hand.where[flower] = ("flower", robber)
        self._robbed = (victim, flower)
        return True
