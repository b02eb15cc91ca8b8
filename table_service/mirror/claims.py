"""Discards and what they open: claims (吃, 碰, 明槓), own kongs (暗槓, 加槓), tiles shown.

A discard opens a window (`Pending`) that a draw or a claim closes; closing it gives
過碰 (D2) and 過水 (D1). 禁制 1, 3, 6, 7 and 8 are checked here, as the melds are made.
"""

from __future__ import annotations

from typing import Any

from table_service.mirror import play
from table_service.mirror.core import MirrorCore, _codes
from table_service.mirror.state import HandState, MeldState, Pending, SeatState
from table_service.rules.table import (
    NO_CLAIM_DRAWABLE,
    SEATS,
    claim_order,
    forbidden_after_chow,
    upper_seat,
)
from table_service.rules.tiles import (
    FIRST_HONOUR,
    FLOWER_BASE,
    is_flower_tile,
    tile_code,
    tile_kind,
)


class ClaimsMixin(MirrorCore):
    """`tile_discarded`, `meld_exposed` and `tiles_shown`."""

    # --- discarding ----------------------------------------------------------------

    def _tile_discarded(self, body: Any) -> None:
        hand = self._in_play("a discard")
        if hand is None:
            return
        if hand.phase == "dealing":
            self._fault("impossible", "a discard during the deal")
            return
        seat, tile = body.seat, body.tile
        place = hand.where.get(tile)
        if place is not None and place != ("hand", seat):
            self._hold_misread(hand, "tile_discarded", body, place, "discarded")
            return
        s = hand.seats[seat]
        took = next((t for t, who in hand.provisional.items() if who == seat), None)
        if took is not None and hand.turn == seat and hand.step == "draw":
            # its turn's tile taken from the wrong end (flagged then) and kept: its draw
            self._turn_drawn(hand, seat, took, "out_of_turn")
        hand.provisional.clear()
        complete_before = s.is_complete() and hand.turn_start != "claimed"
        if not (hand.turn == seat and hand.step == "discard"):
            self._violation(
                seat, "hand_size", f"seat {seat} discarded with no tile to spare (short hand)"
            )
        flower = is_flower_tile(tile)
        if flower:
            self._violation(
                seat, "flower_discarded", f"seat {seat} discarded a flower ({tile_code(tile)})"
            )
        elif s.owed > s.owed_kongs:
            self._violation(
                seat, "replacement_order", f"seat {seat} discarded before its replacement"
            )
        elif s.owed > 0:  # a kong's replacement not drawn: the hand is a tile short
            self._violation(
                seat, "hand_size", f"seat {seat} discarded before its kong's replacement (short)"
            )
        kind = tile_kind(tile)
        if not flower and kind in s.no_discard:
            self._violation(
                seat,
                "restriction_6",
                f"seat {seat} discarded {tile_code(tile)} right after claiming it (禁制 6)",
            )
        self._take(hand, tile, seat, "discarded")
        s.river.append(tile)
        hand.where[tile] = ("river", seat)
        s.discards_made += 1
        play.discarded(s, self._ts)
        kept = [] if flower or s.owed else [t for t in s.concealed if t >= FLOWER_BASE]
        kept = [t for t in kept if t not in s.flagged]
        if kept:
            s.flagged.update(kept)  # once per flower: the breach is keeping it, not each turn
            self._violation(seat, "replacement_order", f"seat {seat} kept a flower in hand")
        if s.discards_made == 1 and sum(x.discards_made for x in hand.seats) == 1:
            for other in hand.seats:
                if other is not s and any(is_flower_tile(t) for t in other.concealed):
                    self._violation(
                        other.seat,
                        "replacement_order",
                        f"seat {other.seat} kept a dealt flower (補花)",
                    )
        self._check_declaration_at_discard(hand, s, tile)
        if complete_before and not flower:
            self._pass_win(s)  # D1: it could have won on its own draw
        if s.passed_win and (flower or kind not in s.waits()):
            s.passed_win = False  # D1: cleared by discarding a tile that is not a winning tile
        if hand.pending is not None:
            self._close_claims(hand, hand.pending)
        s.round_discards = set()
        s.passed_pongs.clear()
        s.no_discard = frozenset()
        s.last_discard_kind = -1 if flower else kind
        winners: set[int] = set()
        if not flower:
            for other in hand.seats:
                if other is not s:
                    other.round_discards.add(kind)
                    if other.can_win_with(kind):
                        winners.add(other.seat)
        hand.pending = None if flower else Pending(tile, seat, hand.drawable, winners)
        self._last_pending = hand.pending
        hand.turn, hand.step = (seat + 1) % SEATS, "draw"
        if hand.drawable == 0 and not winners:
            self._end_drawn()  # the last discard and nobody can win on it: 荒局

    def _pass_pongs(self, hand: HandState, pending: Pending, claimer: int | None) -> None:
        """過碰 (D2), once a tile: who let it go holding a pair may not pong another copy in
        this go-round: every seat before a 碰's or 槓's claimer, or all of them (a draw, a
        discard, a 吃, which comes last)."""
        if (
            pending.pongs_passed
            or pending.next_drew
            or pending.added_kong
            or pending.drawable_then <= NO_CLAIM_DRAWABLE
        ):
            pending.pongs_passed = True
            return
        kind = tile_kind(pending.tile)
        for seat in claim_order(pending.seat):
            if seat == claimer:
                break
            if hand.seats[seat].counts()[kind] >= 2:
                hand.seats[seat].passed_pongs.add(kind)
        pending.pongs_passed = True

    def _close_claims(self, hand: HandState, pending: Pending) -> None:
        """A discard's window closes (its claimer's or the next discard, a 明槓's replacement,
        a 加槓): 過碰 for who let a pair go, 過水 (D1) for a winner who let it go."""
        if pending.closed:
            return
        self._pass_pongs(hand, pending, None)
        for seat in pending.winners:  # a claimer among them passed at its claim
            self._pass_win(hand.seats[seat])
        pending.closed = True
        hand.pending = None

    # --- claims and kongs ----------------------------------------------------------

    def _meld_exposed(self, body: Any) -> None:
        hand = self._in_play("a meld")
        if hand is None:
            return
        tiles = list(body.tiles)
        if len(set(tiles)) != len(tiles):
            self._fault("tile_twice", f"a meld lists one tile id twice: {tiles}")
            return
        if any(is_flower_tile(t) for t in tiles):
            self._fault("impossible", f"a meld with a flower in it: {_codes(tiles)}")
            return
        offered = {p.tile for p in (hand.pending, self._last_pending) if p is not None}
        stray = [t for t in tiles if t not in offered and _elsewhere(hand.where.get(t), body.seat)]
        if stray:  # a tile the seat cannot hold: a misread, its re-read is the meld
            self._hold_misread(hand, "meld_exposed", body, hand.where[stray[0]], "melded")
            return
        meld = body.meld.name.lower()
        meld = "pong" if meld == "pung" else meld
        if meld in ("chow", "pong", "kong_exposed"):
            self._claim_meld(hand, body.seat, meld, tiles)
        elif meld == "kong_concealed":
            self._concealed_kong(hand, body.seat, tiles)
        else:
            self._added_kong(hand, body.seat, tiles)

    def _claim_meld(self, hand: HandState, seat: int, meld: str, tiles: list[int]) -> None:
        s = hand.seats[seat]
        pending = hand.pending
        if pending is None or pending.added_kong or pending.tile not in tiles:
            last = self._last_pending
            if (
                last is not None
                and last.tile in tiles
                and hand.where.get(last.tile) == ("river", last.seat)
            ):
                pending = last
                late = True
            else:
                self._fault("impossible", f"seat {seat} exposed a {meld} with no discard to claim")
                return
        else:
            late = pending.closed or pending.next_drew or pending.melded_by is not None
        tile = pending.tile
        kind = tile_kind(tile)
        kinds = sorted(tile_kind(t) for t in tiles)
        if not _meld_shape(meld, kinds):
            self._fault("impossible", f"{_codes(tiles)} is not a {meld}")
            return
        if s.dead:
            self._violation(seat, "dead_hand_claim", f"seat {seat} is 相公 and claimed a {meld}")
        else:
            if late:
                self._violation(
                    seat, "late_claim", f"seat {seat} claimed a {meld} after its window closed"
                )
            if meld == "chow" and upper_seat(seat) != pending.seat:
                self._violation(
                    seat, "chow_not_from_left", f"seat {seat} chowed seat {pending.seat}'s discard"
                )
            if pending.drawable_then <= NO_CLAIM_DRAWABLE:
                self._violation(
                    seat,
                    "restriction_7",
                    f"seat {seat} claimed with {pending.drawable_then} drawable left (禁制 7)",
                )
            lowest = min(tile_kind(t) for t in tiles)
            if meld == "chow" and s.last_discard_kind in forbidden_after_chow(kind, lowest):
                self._violation(
                    seat,
                    "restriction_6",
                    f"seat {seat} chowed the tile it discarded, or its 絡 (禁制 6)",
                )
            if meld == "pong" and kind in s.passed_pongs and not late:  # late: the same copy
                self._violation(
                    seat,
                    "passed_pong",
                    f"seat {seat} let a {tile_code(tile)} go and ponged another (過碰)",
                )
            if s.shown & set(tiles):
                self._violation(
                    seat,
                    "restriction_8",
                    f"seat {seat} made a {meld} with tiles it had shown (禁制 8)",
                )
        if pending.chowed_by is not None and meld != "chow":
            self._undo_meld(hand, pending)  # 碰/槓 outrank a 吃 not yet followed by its discard
        if seat in pending.winners:  # D1: it could win on the tile and claimed a meld instead
            pending.winners.discard(seat)
            self._pass_win(s)
        if meld != "chow":  # 過碰 now; a 胡 on the tile still outranks it until its discard
            self._pass_pongs(hand, pending, claimer=seat)
        discarder = hand.seats[pending.seat]
        if tile in discarder.river:
            discarder.river.remove(tile)
        for own in tiles:
            if own != tile:
                self._take(hand, own, seat, "melded")
        self._add_meld(hand, s, meld, tiles, pending.seat)
        if meld == "chow":  # D3: a 碰 or 胡 on it is on time until the chower's discard
            pending.chowed_by = seat
        else:  # 胡 over 碰/槓: a 胡 on it is on time until the claimer's discard
            pending.melded_by = seat
        hand.turn, hand.step = seat, "discard"
        hand.turn_start = "claimed_kong" if meld == "kong_exposed" else "claimed"
        play.turn_began(s, self._ts)
        hand.kong_this_turn = meld == "kong_exposed"
        s.last_drawn = None
        if meld == "pong":
            s.no_discard = frozenset({kind})
        elif meld == "chow":
            s.no_discard = forbidden_after_chow(kind, kinds[0])
        else:
            self._kong_replacement(hand, s)

    def _undo_meld(self, hand: HandState, pending: Pending) -> None:
        """A claim that outranks a meld still waiting for its discard took its tile (碰/槓
        over 吃, 胡 over either): the meld's tiles go back into the claimer's hand (a 明槓's
        replacement no longer owed) and the tile back to the discards."""
        by = pending.chowed_by if pending.chowed_by is not None else pending.melded_by
        pending.chowed_by = pending.melded_by = None
        if by is None:
            return
        claimer = hand.seats[by]
        meld = next((m for m in claimer.melds if pending.tile in m.tiles), None)
        if meld is None:
            return
        claimer.melds.remove(meld)
        for tile in meld.tiles:
            if tile != pending.tile:
                claimer.concealed.append(tile)
                hand.where[tile] = ("hand", claimer.seat)
        if meld.kind == "kong_exposed" and claimer.owed_kongs > 0:
            claimer.owed -= 1
            claimer.owed_kongs -= 1
        claimer.changed()
        claimer.no_discard = frozenset()
        hand.seats[pending.seat].river.append(pending.tile)
        hand.where[pending.tile] = ("river", pending.seat)

    def _add_meld(
        self, hand: HandState, s: SeatState, meld: str, tiles: list[int], src: int | None
    ) -> None:
        s.melds.append(MeldState(meld, list(tiles), src))  # type: ignore[arg-type]
        for tile in tiles:
            hand.where[tile] = ("meld", s.seat)
        s.changed()

    def _kong_replacement(self, hand: HandState, s: SeatState) -> None:
        if hand.drawable == 0:
            self._violation(
                s.seat,
                "kong_without_replacement",
                f"seat {s.seat} made a kong with no drawable tile left (D4)",
            )
        s.owed += 1
        s.owed_kongs += 1

    def _own_kong_checks(
        self, hand: HandState, seat: int, what: str, own: list[int] | None = None
    ) -> bool:
        s = hand.seats[seat]
        pending = hand.pending
        if pending is not None and seat in (pending.melded_by, pending.chowed_by):
            self._close_claims(hand, pending)
        if own is not None and s.shown & set(own):
            self._violation(
                seat,
                "restriction_8",
                f"seat {seat} made an {what} with tiles it had shown (禁制 8)",
            )
        if not (hand.turn == seat and hand.step == "discard"):
            self._violation(
                seat, "out_of_turn", f"seat {seat} made an {what} when it was not its move"
            )
            return False
        if hand.turn_start == "claimed":
            self._violation(
                seat, "restriction_1", f"seat {seat} made an {what} right after a claim (禁制 1)"
            )
        elif hand.turn_start == "claimed_kong":
            self._violation(
                seat,
                "restriction_3",
                f"seat {seat} made an {what} after a 碰槓 replacement (禁制 3)",
            )
        del s
        return True

    def _concealed_kong(self, hand: HandState, seat: int, tiles: list[int]) -> None:
        s = hand.seats[seat]
        if not _meld_shape("kong_concealed", sorted(tile_kind(t) for t in tiles)):
            self._fault("impossible", f"{_codes(tiles)} is not a kong")
            return
        self._own_kong_checks(hand, seat, "暗槓", tiles)
        for tile in tiles:
            self._take(hand, tile, seat, "melded")
        self._add_meld(hand, s, "kong_concealed", tiles, None)
        # 禁制 5: the pre-kong draw went into the hand; a replacement win may not need a
        # tile discarded in this go-round.
        drawn_kept = s.last_drawn is not None and s.last_drawn not in tiles
        self._r5 = (seat, frozenset(s.round_discards)) if drawn_kept else None
        self._kong_replacement(hand, s)
        hand.kong_this_turn = True

    def _added_kong(self, hand: HandState, seat: int, tiles: list[int]) -> None:
        s = hand.seats[seat]
        kinds = {tile_kind(t) for t in tiles}
        pong = next((m for m in s.melds if m.kind == "pong" and set(m.tiles) <= set(tiles)), None)
        extra = [t for t in tiles if pong is None or t not in pong.tiles]
        if pong is None or len(kinds) != 1 or len(extra) != 1:
            self._fault(
                "impossible", f"seat {seat}'s 加槓 {_codes(tiles)} does not extend one of its pongs"
            )
            return
        tile = extra[0]
        self._own_kong_checks(hand, seat, "加槓", [tile] if tile in s.concealed else [])
        self._take(hand, tile, seat, "added")
        pong.kind = "kong_added"
        pong.tiles.append(tile)
        hand.where[tile] = ("meld", seat)
        s.changed()
        kind = tile_kind(tile)
        if s.passed_win and kind not in s.waits():
            s.passed_win = False  # D1: a 加槓 of a tile that is not a winning tile clears it
        if hand.pending is not None:  # the discard before it: who let a win go has 過水 (D1)
            self._close_claims(hand, hand.pending)
        winners = {o.seat for o in hand.seats if o is not s and o.can_win_with(kind)}
        hand.pending = Pending(tile, seat, hand.drawable, winners, added_kong=True)
        self._kong_replacement(hand, s)
        hand.kong_this_turn = True
        self._r5 = None

    def _tiles_shown(self, body: Any) -> None:
        hand = self._in_play("tiles shown")
        if hand is None:
            return
        s = hand.seats[body.seat]
        stray = [t for t in body.tiles if hand.where.get(t) != ("hand", body.seat)]
        if stray:  # a misread: the whole event changes nothing
            self._fault("impossible", f"seat {body.seat} showed {_codes(stray)}, not in its hand")
            return
        s.shown.update(t for t in body.tiles if not is_flower_tile(t))


def _elsewhere(place: tuple[str, int] | None, seat: int) -> bool:
    """A meld's tile the mirror knows is neither in the seat's hand or melds nor lying
    among the discards (the claimed tile): a misread."""
    return place is not None and place[0] != "river" and place[1] != seat


def _meld_shape(meld: str, kinds: list[int]) -> bool:
    if meld == "chow":
        return (
            len(kinds) == 3
            and kinds[0] < FIRST_HONOUR
            and kinds[0] // 9 == kinds[2] // 9
            and kinds[1] == kinds[0] + 1
            and kinds[2] == kinds[0] + 2
        )
    size = 3 if meld == "pong" else 4
    return len(kinds) == size and len(set(kinds)) == 1
