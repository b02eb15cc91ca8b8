"""Wins: the buttons, ready declarations, win claims, flower wins, their timing, judging.

A 胡 pressed becomes a `WinClaim` with the rules that bar it; it is judged at its
`hand_revealed`, or at the next event that is neither that reveal nor a rival 胡
(攔胡). judge.py decides what the hand is worth; this part decides when and on what.
"""

from __future__ import annotations

from typing import Any, Final

from table_service.mirror.core import MirrorCore, _codes
from table_service.mirror.judge import (
    FlowerWinKind,
    WinClaim,
    WinHow,
    build_hand,
    flower_only_hand,
    verdict,
)
from table_service.mirror.records import Item, Record
from table_service.mirror.rulings import copies, tile_id
from table_service.mirror.state import HandState, Pending, SeatState
from table_service.rules import Hand
from table_service.rules.items import ITEM_BY_ID
from table_service.rules.shapes import completes
from table_service.rules.table import claim_order
from table_service.rules.tiles import is_flower_tile, tile_code, tile_flower, tile_kind


class WinsMixin(MirrorCore):
    """`seat_button` and `hand_revealed`: declaring, claiming and judging wins."""

    # --- buttons -------------------------------------------------------------------

    def _seat_button(self, body: Any) -> None:
        button = body.button.name
        hand = self.hand
        if button == "WIN":
            if hand is None or hand.phase != "play":
                self._press_out_of_play(hand, body.seat)
                return
            self._declare_win(hand, body.seat)
        elif button == "READY" and hand is not None and hand.phase == "play":
            self._declare_ready(hand, hand.seats[body.seat])
        elif button == "PASS" and hand is not None and hand.phase == "play":
            pending = hand.pending
            if pending is not None and body.seat in pending.winners and not pending.added_kong:
                self._pass_win(hand.seats[body.seat])
                pending.winners.discard(body.seat)
            if hand.turn == body.seat and hand.step == "draw" and hand.drawable == 1:
                self._end_drawn()  # D5: declining the 海底 ends the hand as 荒局

    def _press_out_of_play(self, hand: HandState | None, seat: int) -> None:
        """A 胡 pressed with no hand in play: one that lost on priority to the win just
        decided (the button alone), or an impossible press."""
        if hand is not None and hand.phase == "over" and self._lost_press(seat):
            self._press_after_decision(hand, seat)
        else:
            self._fault("impossible", f"seat {seat} pressed 胡 with no hand in play")

    def _declare_ready(self, hand: HandState, s: SeatState) -> None:
        if s.declared:
            return  # the same declaration pressed again (D7 voids a hand not ready, not this)
        s.declared_key = (self._boot, self._seq)
        nobody_discarded = all(x.discards_made == 0 for x in hand.seats)
        if s.dead:
            self._void(s, "on a dead hand (相公), which cannot win")
        elif nobody_discarded and s.seat != hand.dealer:
            s.declared = "heavenly_ready"  # 天聽: after the 補花, before any discard
            if not (s.size == 16 and s.waits()):
                self._void(s)
        elif s.discards_made == 0 and hand.turn == s.seat and hand.step == "discard":
            s.declared, s.declared_at = "earthly_ready", -2  # judged at the discard
        elif (
            s.discards_made == 1
            and self._last_pending is not None
            and self._last_pending.seat == s.seat
            and not s.exposed
        ):
            s.declared, s.declared_at = "earthly_ready", len(s.river) - 1  # right after it
            if not s.waits():
                self._void(s)
        else:
            self._void(
                s, "when no declaration is open (天聽 before any discard, 地聽 with one's first)"
            )

    def _declare_win(self, hand: HandState, seat: int) -> None:
        s = hand.seats[seat]
        if s.owed and (
            len(s.flowers) == 8
            or (len(s.flowers) == 7 and any(len(o.flowers) == 1 for o in hand.seats))
        ):
            return  # D8: a 花胡 declared before its replacement is invalid, not a 詐胡
        previous = self._claim
        if previous is not None and previous.seat == seat:
            return  # the same 胡 pressed again
        claim = self._win_claim(hand, s)
        if previous is not None and not _rivals(previous, claim):
            self._judge()  # a 胡 of another kind: the first is decided, and ends the hand
            self._press_out_of_play(self.hand, seat)  # so this press came after it
            return
        at = (claim.boot_id, claim.seq)
        if not self._upheld(seat, "false_win", at) and not self._wins(hand, s, claim):
            self._record_bars(seat, [*claim.codes, "false_win"])  # shown with their rulings
            return  # overturned: a 胡 on a hand that does not win, as if never pressed
        self._record_bars(seat, claim.codes)  # a barred declaration, whether it wins or not
        claim.codes = [code for code in claim.codes if self._upheld(seat, code, at)]
        if claim.how in _ON_A_TILE:
            claim.legal = not claim.codes and self._may_win_on(hand, s, hand.pending)
        if previous is not None:  # 攔胡: the better claim stands, the other press loses
            if _rank(previous) <= _rank(claim):
                self._lost_on_priority(hand, claim)
                return
            self._lost_on_priority(hand, previous)
        self._claim = claim
        if claim.flower_win is not None and not s.is_complete():
            self._judge()

    @staticmethod
    def _wins(hand: HandState, s: SeatState, claim: WinClaim) -> bool:
        """Whether the hand is a winning one with the claim's tile, bars aside."""
        if claim.flower_win is not None:
            return True
        if claim.how == "self_draw":
            return s.is_complete()
        return claim.tile >= 0 and s.can_win_with(tile_kind(claim.tile))

    def _record_bars(self, seat: int, codes: list[str]) -> None:
        for code in codes:
            self._violation(seat, code, _BAR_TEXT[code].format(seat=seat))

    def _press_after_decision(self, hand: HandState, seat: int) -> None:
        """A 胡 on the tile just won, after the win was decided: it lost on priority (the
        button alone), but a seat barred from winning on it still declared a barred win."""
        settled = self._settled
        assert settled is not None
        s = hand.seats[seat]
        codes = ["dead_hand_claim"] if s.dead else []
        if s.passed_win:
            codes.append("passed_win")
        if settled.how == "discard" and completes(s.shown_in_hand(), tile_kind(settled.tile)):
            codes.append("restriction_8")
        if not s.can_win_with(tile_kind(settled.tile)):
            codes.append("false_win")
        self._record_bars(seat, codes)

    def _lost_on_priority(self, hand: HandState, claim: WinClaim) -> None:
        """A 胡 that another claim outranks (攔胡): the button alone, settling nothing; but
        a hand that cannot take the tile still declared a false win (its bars are flagged
        at the press already)."""
        self._lost.add(claim.seat)
        if not hand.seats[claim.seat].can_win_with(tile_kind(claim.tile)):
            self._violation(
                claim.seat,
                "false_win",
                _BAR_TEXT["false_win"].format(seat=claim.seat),
                at=(claim.boot_id, claim.seq),
            )

    def _lost_press(self, seat: int) -> bool:
        """Whether a 胡 press (or its reveal) after the win was decided lost on priority to
        it: the button alone, no record (replay-format.md)."""
        settled = self._settled
        return (
            settled is not None
            and settled.how in _ON_A_TILE
            and seat not in (settled.seat, settled.payer)
        )

    def _may_win_on(self, hand: HandState, s: SeatState, pending: Pending | None) -> bool:
        """Whether this seat may still legally win on the open tile, as far as the mirror
        knows: its hand takes it, and no rule bars it (相公, 過水, 禁制 8)."""
        if pending is None or s.seat not in pending.winners or s.dead or s.passed_win:
            return False
        return pending.added_kong or not completes(s.shown_in_hand(), tile_kind(pending.tile))

    def _judge_when_decided(self) -> None:
        """Judge a revealed 胡 on a discard (or a 加槓 tile) as soon as no seat that could
        outrank it is left (攔胡: the nearest legal claimant after the discarder); until
        then its window stays open (D3), whatever the order of the presses."""
        claim, hand = self._claim, self.hand
        if claim is None or claim.revealed is None or hand is None:
            return
        pending = hand.pending
        if claim.how in _ON_A_TILE and pending is not None and pending.tile == claim.tile:
            order = claim_order(pending.seat)
            nearer = order if not claim.legal else order[: order.index(claim.seat)]
            if any(
                seat != claim.seat
                and seat not in self._lost
                and self._may_win_on(hand, hand.seats[seat], pending)
                for seat in nearer
            ):
                return
        self._judge()

    def _win_claim(self, hand: HandState, s: SeatState) -> WinClaim:
        seat = s.seat
        codes: list[str] = []
        if s.dead:
            codes.append("dead_hand_claim")
        flower = self._flower_win(hand, s)
        if flower is not None:
            kind, payer, robbed = flower
            return WinClaim(
                seat,
                "self_draw",
                s.last_drawn if s.last_drawn is not None else -1,
                payer,
                self._seq,
                self._boot,
                codes,
                kind,
                payer if kind == "seven_rob_one" else None,
                robbed,
                replacement=s.last_from_back,
            )
        pending = hand.pending
        drew = hand.turn == seat and hand.step == "discard" and s.last_drawn is not None
        took = next((t for t, who in hand.provisional.items() if who == seat), None)
        if took is not None and not drew:  # 禁制 4: its self-draw began out of turn
            codes.append("restriction_4")
            return WinClaim(seat, "self_draw", took, None, self._seq, self._boot, _once(codes))
        if pending is not None and seat != pending.seat and not (drew and pending.next_drew):
            how: WinHow = "robbing_kong" if pending.added_kong else "discard"
            if pending.closed:
                codes.append("late_claim")
            if s.passed_win:
                codes.append("passed_win")
            if not pending.added_kong and completes(s.shown_in_hand(), tile_kind(pending.tile)):
                codes.append("restriction_8")
            return WinClaim(
                seat,
                how,
                pending.tile,
                pending.seat,
                self._seq,
                self._boot,
                _once(codes),
                timing=self._discard_timing(hand, s, pending),
                declared=_declared(s),
            )
        if drew and s.last_drawn is not None:
            if hand.turn_start == "claimed_kong":
                codes.append("restriction_2")
            elif hand.turn_start == "out_of_turn":
                codes.append("restriction_4")
            if self._needs_go_round_discard(s):
                codes.append("restriction_5")
            after_concealed_kong = s.melds and s.melds[-1].kind == "kong_concealed"
            concealed_kong_replacement = (
                s.last_from_back and hand.kong_this_turn and after_concealed_kong
            )
            if s.passed_win and (
                not self.profile.rules.pass_water_self_draw or concealed_kong_replacement
            ):
                # D1: under 過水 no win at all until it is cleared; the house rule lets a
                # self-draw stand, but never an 暗槓's replacement (an 暗槓 clears nothing)
                codes.append("passed_win")
            timing, declared = self._self_draw_timing(hand, s)
            return WinClaim(
                seat,
                "self_draw",
                s.last_drawn,
                None,
                self._seq,
                self._boot,
                _once(codes),
                replacement=s.last_from_back,  # a 天胡's 槓上開花: the profile's switch (§7)
                timing=timing,
                declared=declared,
            )
        last = self._last_pending
        if (
            last is not None
            and seat != last.seat
            and hand.where.get(last.tile) == ("river", last.seat)
        ):
            codes.append("late_claim")
            return WinClaim(
                seat, "discard", last.tile, last.seat, self._seq, self._boot, _once(codes)
            )
        return WinClaim(seat, "self_draw", -1, None, self._seq, self._boot, _once(codes))

    def _needs_go_round_discard(self, s: SeatState) -> bool:
        """禁制 5: a win on an 暗槓's replacement (its pre-kong draw kept in hand) whose wait
        includes a tile discarded in this go-round."""
        r5 = self._r5
        if not s.last_from_back or r5 is None or r5[0] != s.seat or s.last_drawn is None:
            return False
        return bool(set(s.waits_before_win(s.last_drawn)) & r5[1])

    def _flower_win(
        self, hand: HandState, s: SeatState
    ) -> tuple[FlowerWinKind, int | None, int | None] | None:
        """(kind, payer, robbed flower number) when this 胡 is a 花胡 (§5, D8)."""
        if s.owed or (hand.turn != s.seat and self._robbed is None):
            return None
        if self._robbed is not None and len(s.flowers) == 8:
            victim, _ = self._robbed
            return "seven_rob_one", victim, None
        if len(s.flowers) == 8:
            return "eight_immortals", None, None
        if len(s.flowers) == 7:
            holder = next((o for o in hand.seats if o is not s and len(o.flowers) == 1), None)
            if holder is not None:
                flower = holder.flowers.pop()
                s.flowers.append(flower)
                hand.where[flower] = ("flower", s.seat)
                return "seven_rob_one", holder.seat, tile_flower(flower)
        return None

    def _self_draw_timing(self, hand: HandState, s: SeatState) -> tuple[str | None, str | None]:
        timing: str | None = None
        first_turn = hand.turn_start == "first" and not hand.kong_this_turn
        if s.seat == hand.dealer and first_turn and all(x.discards_made == 0 for x in hand.seats):
            return "heavenly_win", None
        # 地胡 and 人胡 stand "不論他人吃碰與否" (seeds 000–002): another seat's 吃/碰/槓
        # does not break them; the winner's own meld from a discard does (not its first draw)
        own_claim = any(m.from_seat is not None for m in s.melds)
        if s.declared == "heavenly_ready" and s.discards_made == 0:
            timing = None if own_claim else "earthly_win"
        elif s.declared == "earthly_ready" and _within_declaration(s):
            timing = "human_win"
        elif not self._declaration_needed and s.discards_made == 0 and not own_claim:
            timing = "earthly_win"  # §7: a self-drawn 地胡 without 天聽 (a non-dealer's first)
        declared = _declared(s)
        if self._declaration_needed and declared is None and timing in ("human_win", "earthly_win"):
            timing = None
        return timing, declared

    def _discard_timing(self, hand: HandState, s: SeatState, pending: Pending) -> str | None:
        if pending.added_kong:
            return None
        if s.declared == "earthly_ready":
            return "human_win" if _within_declaration(s) else None
        discarder = hand.seats[pending.seat]
        # a player's first discard (D6), whatever others claimed before it (seeds 000–002)
        if s.seat != hand.dealer and discarder.discards_made == 1:
            if s.discards_made == 0:
                return "earthly_win"
            if not self._declaration_needed and s.discards_made == 1:
                return "human_win"  # §7: 人胡 without 地聽, on a first discard of the go-round
        return None

    @property
    def _declaration_needed(self) -> bool:
        """Whether 人胡 needs 地聽 and a self-drawn 地胡 天聽 (taiwan16.md §7)."""
        return self.profile.rules.special_wins_need_declaration

    # --- declarations --------------------------------------------------------------

    def _check_declaration_at_discard(self, hand: HandState, s: SeatState, tile: int) -> None:
        if s.declared == "earthly_ready" and s.declared_at == -2:  # pressed right before
            if s.waits() and not s.exposed and s.discards_made == 1:
                s.declared_at = len(s.river) - 1
            else:
                self._void(s)
        elif (
            s.declared
            and hand.turn_start == "draw"
            and s.last_drawn is not None
            and s.last_drawn != tile
            and s.last_drawn in s.concealed
        ):
            s.declared = None  # D7: kept the drawn tile and threw another (換牌): it lapses

    def _void(self, s: SeatState, why: str = "on a hand that is not ready") -> None:
        """D7: a declaration on a hand that is not ready is void, flagged at its button."""
        self._violation(
            s.seat,
            "void_declaration",
            f"seat {s.seat} declared ready {why}",
            at=s.declared_key,
        )
        s.void_declared = s.declared
        s.declared = None
        s.declared_at = -1
        s.declared_key = None

    def _pass_win(self, s: SeatState) -> None:
        s.passed_win = True
        if s.declared:
            s.declaration_void = True  # D7: the declaration's 台 no longer count

    # --- judging -------------------------------------------------------------------

    def _hand_revealed(self, body: Any) -> None:
        claim, hand = self._claim, self.hand
        if claim is not None and hand is not None and claim.seat == body.seat:
            revealed = list(body.tiles)
            seen = _seen_hand(hand.seats[claim.seat], claim)
            if sorted(revealed) != sorted(seen) and _late_tile(hand, claim, revealed) is None:
                # a misread reveal changes nothing: the re-read (or the mirror's tiles) is judged
                self._fault(
                    "impossible",
                    f"seat {claim.seat} revealed {_codes(revealed)}; the mirror saw {_codes(seen)}",
                )
                return
            claim.revealed = revealed  # judged once no nearer claim can come
            return
        if body.seat in self._lost or self._lost_press(body.seat):
            return  # a 胡 that lost on priority: its reveal changes nothing
        self._fault("impossible", f"seat {body.seat} revealed a hand with no 胡 declared")

    def decide_hand(self, ruling: Any) -> list[Record]:
        """A referee's statement of the hand's result (a `hand` ruling, rulings.py), right
        after the event it names: a win judged on the tiles the referee gives, a 荒局, or
        a void hand (no record; the deal stays). ValueError when no hand is under way there,
        or the tiles given do not make a winning hand with the seat's melds."""
        self._out = []
        hand = self.hand
        if hand is None or hand.phase not in ("dealing", "play"):
            raise ValueError("no hand is under way at that event to decide")
        self._claim = None
        self._lost = set()
        if ruling.result == "drawn":
            self._end_drawn()
        elif ruling.result == "void":
            hand.phase, hand.result, hand.pending = "over", "void", None
        else:
            self._decided_win(hand, ruling)
        return self._out

    def _decided_win(self, hand: HandState, ruling: Any) -> None:
        s = hand.seats[ruling.seat]
        near = s.concealed if ruling.how == "self_draw" else _offered(hand, ruling.payer)
        tile = _pick(ruling.tile, near, set(), hand.where)
        ids: list[int] = []
        for ref in ruling.concealed:
            ids.append(_pick(ref, [tile, *s.concealed], set(ids), hand.where))
        if tile not in ids:
            ids.append(tile)
        payer = getattr(ruling, "payer", None)
        if payer == s.seat:
            raise ValueError(f"seat {s.seat} cannot pay for its own win")
        claim = WinClaim(s.seat, ruling.how, tile, payer, self._seq, self._boot)
        candidate = build_hand(claim, ids, s, hand, self.deal, self.profile)
        if verdict(claim, candidate, self.deal, self.profile).result == "false_win":
            raise ValueError(
                f"{_codes(ids)} with seat {s.seat}'s melds is not a winning hand on "
                f"{tile_code(tile)}"
            )
        self._claim = claim
        self._judge(tiles=ids)

    def _judge(self, tiles: list[int] | None = None) -> None:
        """Judge the 胡 claimed: on the hand the mirror saw, or on `tiles` (a referee's)."""
        claim, self._claim = self._claim, None
        self._lost = set()
        hand = self.hand
        if claim is None or hand is None:
            return
        self._settled = claim
        s = hand.seats[claim.seat]
        if claim.revealed is not None and claim.flower_win is None:
            self._late_win(hand, s, claim, claim.revealed)
        ids = _seen_hand(s, claim) if tiles is None else tiles
        candidate: Hand | None
        if claim.flower_win is not None and not s.is_complete():
            candidate = flower_only_hand(claim, s, self.deal)
        else:
            candidate = build_hand(claim, ids, s, hand, self.deal, self.profile)
        if claim.flower_win is not None and candidate is None:
            candidate = flower_only_hand(claim, s, self.deal)
        v = verdict(claim, candidate, self.deal, self.profile)
        if v.result == "false_win" and "false_win" in v.codes and "false_win" not in claim.codes:
            text = f"seat {claim.seat} declared 胡 on a hand that does not win"
            self._violation(claim.seat, "false_win", text, at=(claim.boot_id, claim.seq))
        if claim.how != "self_draw" and claim.flower_win is None:
            self._move_claimed(hand, claim)
        items = (
            []
            if v.score is None or (v.result == "false_win" and not v.tai)
            else [
                Item(id=i.id, tai=i.tai, name=i.name, en=ITEM_BY_ID[i.id].en) for i in v.score.items
            ]
        )
        self._finish_hand(
            result=v.result,
            kind=v.settle_kind,
            seat=claim.seat,
            payer=claim.payer if v.result != "false_win" else None,
            tai=v.tai,
            items=items,
            codes=list(v.codes),
            payments=v.payments,
            end=v.end,
            winning_tile=winning_code(claim),
        )

    def _late_win(
        self, hand: HandState, s: SeatState, claim: WinClaim, revealed: list[int]
    ) -> None:
        """A 胡 revealed with an earlier discard, not the one it was pressed on: that tile's
        window had closed (D3), so the claim is late; it is judged on that tile."""
        tile = _late_tile(hand, claim, revealed)
        if tile is None:
            return
        place = hand.where[tile]
        claim.how, claim.tile, claim.payer, claim.timing = "discard", tile, place[1], None
        at = (claim.boot_id, claim.seq)
        if "late_claim" not in claim.codes:
            self._violation(  # listed even when overturned: beside its ruling
                s.seat,
                "late_claim",
                f"seat {s.seat} declared 胡 on a discard after its window closed",
                at=at,
            )
            if self._upheld(s.seat, "late_claim", at):
                claim.codes.append("late_claim")

    def _move_claimed(self, hand: HandState, claim: WinClaim) -> None:
        pending = hand.pending
        if pending is not None and pending.tile == claim.tile:
            self._undo_meld(hand, pending)  # 胡 outranks the 吃, 碰 or 槓 made of it (D3)
        place = hand.where.get(claim.tile)
        if place is not None and place[0] == "river":
            hand.seats[place[1]].river.remove(claim.tile)
        elif place is not None and place[0] == "meld":
            for meld in hand.seats[place[1]].melds:
                if claim.tile in meld.tiles and meld.kind == "kong_added":
                    meld.tiles.remove(claim.tile)
                    meld.kind = "pong"  # 搶槓: the kong falls back to its pong
                    hand.seats[place[1]].changed()
        hand.seats[claim.seat].concealed.append(claim.tile)
        hand.seats[claim.seat].changed()
        hand.where[claim.tile] = ("hand", claim.seat)


def _offered(hand: HandState, payer: int | None) -> list[int]:
    """The tiles a payer offered: its discards, newest first, then its kongs' added tiles."""
    if payer is None:
        return []
    seat = hand.seats[payer]
    added = [m.tiles[-1] for m in seat.melds if m.kind == "kong_added"]
    return [*reversed(seat.river), *added]


def _pick(ref: int | str, near: list[int], taken: set[int], placed: dict[int, Any]) -> int:
    """A tile a referee named: an id as given; a code, its first copy among `near` not
    taken yet, else a copy that is nowhere yet (in the wall)."""
    if isinstance(ref, int):
        return ref
    wanted = copies(ref)
    found = next((t for t in near if t in wanted and t not in taken), None)
    return found if found is not None else tile_id(ref, {**placed, **dict.fromkeys(taken)})


def _seen_hand(s: SeatState, claim: WinClaim) -> list[int]:
    """The hand a 胡 is judged on, as the mirror saw it: the concealed tiles and the tile
    won on."""
    ids = list(s.concealed)
    if claim.how != "self_draw" and claim.tile not in ids:
        ids.append(claim.tile)
    return ids


def _late_tile(hand: HandState, claim: WinClaim, revealed: list[int]) -> int | None:
    """The earlier discard a reveal shows the 胡 was made on, when it is not the tile
    pressed on (a late claim), or None."""
    concealed = hand.seats[claim.seat].concealed
    extra = [t for t in revealed if t not in concealed]
    if len(extra) != 1 or extra[0] == claim.tile or len(revealed) != len(concealed) + 1:
        return None
    place = hand.where.get(extra[0])
    if place is None or place[0] != "river" or place[1] == claim.seat:
        return None
    return extra[0]


_BAR_TEXT: Final = {
    "dead_hand_claim": "seat {seat} is 相公 and declared 胡",
    "late_claim": "seat {seat} declared 胡 on a discard after its window closed",
    "passed_win": "seat {seat} declared 胡 while 過水 (D1)",
    "restriction_2": "seat {seat} self-drew on a 碰槓 replacement (禁制 2)",
    "restriction_4": "seat {seat}'s self-draw did not begin with a draw in turn (禁制 4)",
    "restriction_5": "seat {seat}'s 暗槓 replacement win waits on a tile discarded this go-round"
    " (禁制 5)",
    "restriction_8": "seat {seat} won on a discard that completes tiles it had shown (禁制 8)",
    "false_win": "seat {seat} declared 胡 on a hand that does not win",
}


_ON_A_TILE: Final = ("discard", "robbing_kong")  # wins several seats may claim at once


def _rivals(a: WinClaim, b: WinClaim) -> bool:
    """Two 胡 claims on the same discard (or 加槓 tile): only one of them wins (攔胡)."""
    return a.how in _ON_A_TILE and b.how == a.how and a.tile == b.tile and a.payer == b.payer


def _rank(claim: WinClaim) -> tuple[int, int]:
    """攔胡's order: a legal claim before a barred one, then nearest after the discarder."""
    order = claim_order(claim.payer if claim.payer is not None else claim.seat)
    return (0 if claim.legal else 1, order.index(claim.seat) if claim.seat in order else 3)


def _once(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _declared(s: SeatState) -> str | None:
    return s.declared if s.declared and not s.declaration_void else None


def _within_declaration(s: SeatState) -> bool:
    """人胡's window (D6): one discard since the 地聽 declaration, none after it."""
    return not s.declaration_void and s.declared_at >= 0 and len(s.river) == s.declared_at + 1


def winning_code(claim: WinClaim) -> str | None:
    """The code of the tile a 胡 was declared on (none for a 花胡 that did not complete)."""
    if claim.tile < 0 or is_flower_tile(claim.tile):
        return None
    return tile_code(claim.tile)
