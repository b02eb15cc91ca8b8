"""The game mirror: one table's events in, the referee's judgements out (replay-format.md).

Sans-I/O and incremental: `apply(event)` takes one bridge event and returns the
records it concluded (violations, faults, a finished hand); `snapshot()` shows the
state at any moment. No clock, no network, no database: the live service and
`mjtable replay` drive the same object.

How it reads the table (taiwan16.md §2–§3):
- a player's breach is a `Violation` and the mirror keeps following the tiles;
- an impossible stream (a tile in two places, an event out of phase, a gap in seq,
  the table's count disagreeing) is a `Fault`, and no player is blamed;
- a tile taken wrongly (out of turn, from the wrong end) and then drawn again from
  the front by the rightful seat was put back by the referee: the mirror moves it
  without a second fault;
- 相公 (the seat broke one of `DEAD_HAND_CODES`) is followed: the seat may still draw
  and discard, but any claim or win of it is `dead_hand_claim`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from firmware_bridge.messages import Event
from table_service.mirror.judge import (
    FlowerWinKind,
    WinClaim,
    WinHow,
    build_hand,
    flower_only_hand,
    verdict,
)
from table_service.mirror.records import (
    DEAD_HAND_CODES,
    Fault,
    FaultCode,
    HandRecord,
    HandResultKind,
    Item,
    NextDeal,
    PaymentRecord,
    Record,
    SettleKindName,
    Violation,
    ViolationCode,
)
from table_service.mirror.session import WINDS, SessionStart
from table_service.mirror.state import HandState, MeldState, Pending, SeatState
from table_service.rules import Hand, Profile
from table_service.rules.items import ENGLISH
from table_service.rules.table import (
    DEAL_ROUNDS,
    NO_CLAIM_DRAWABLE,
    SEATS,
    Deal,
    HandEnd,
    claim_order,
    counted_seat,
    forbidden_after_chow,
    upper_seat,
)
from table_service.rules.tiles import (
    FIRST_HONOUR,
    TILE_IDS,
    is_flower_tile,
    tile_code,
    tile_flower,
    tile_kind,
)

DEAL_TILES: Final = 4 * DEAL_ROUNDS * SEATS + 1  # 65: 4 tiles at a time ×4 rounds, then 門牌
WALL_TILES: Final = TILE_IDS


class TableMirror:
    """The referee of one table. Feed it events in seq order; read what it concludes."""

    def __init__(self, table: str, session: SessionStart | None = None) -> None:
        self.table = table
        self.session: SessionStart | None = None
        self.profile = Profile()
        self.deal = Deal(0)
        self.hand: HandState | None = None
        self.last_hand: HandState | None = None  # the hand the latest hand record closed
        self.hands = 0
        self.totals = [0] * SEATS
        self.events = 0
        self.duplicates = 0
        self.gaps = 0
        self.violations = 0
        self.faults = 0
        self.jiang_over = False
        self._seen: dict[int, tuple[int, set[int]]] = {}  # boot → (top seq, holes below it)
        self._out: list[Record] = []
        self._boot = 0
        self._seq = 0
        self._claim: WinClaim | None = None
        self._last_pending: Pending | None = None
        self._last_reveal: tuple[int, int] | None = None  # (seat, flower) just revealed
        self._robbed: tuple[int, int] | None = None  # 七搶一 (1): (robbed seat, flower id)
        self._r5: tuple[int, frozenset[int]] | None = None  # 禁制 5 after an 暗槓
        self._handlers: dict[str, Callable[[Any], None]] = {
            "shuffle_started": self._shuffle_started,
            "shuffle_finished": self._shuffle_finished,
            "wall_built": self._wall_built,
            "dice_rolled": self._dice_rolled,
            "tile_drawn": self._tile_drawn,
            "tile_discarded": self._tile_discarded,
            "meld_exposed": self._meld_exposed,
            "flower_revealed": self._flower_revealed,
            "seat_button": self._seat_button,
            "hand_revealed": self._hand_revealed,
            "tiles_shown": self._tiles_shown,
            "tiles_left": self._tiles_left,
            "invalid": self._invalid,
            "fault": _ignore,
            "state": _ignore,
        }
        if session is not None:
            self.start_session(session)

    # --- the public face -----------------------------------------------------------

    def correct_deal(self, dealer: int, streak: int, round_wind: int) -> None:
        """The referee's correction of who deals next (after a sensor fault misled a verdict).

        A correction is a new fact, not an edit: the hand records already given stand.
        """
        self.deal = Deal(dealer, streak, round_wind, self.deal.first_dealer)
        self.jiang_over = False
        if self.hand is not None and self.hand.phase in ("shuffling", "built"):
            self.hand.dealer = dealer

    def start_session(self, session: SessionStart) -> list[Record]:
        """Start (or restart) the session; a hand in progress ends without a record."""
        self._out = []
        self.session = session
        self.profile = session.rule_profile()
        self.deal = session.deal()
        self.hand = None
        self.hands = 0
        self.totals = [0] * SEATS
        self.jiang_over = False
        self._claim = None
        return self._out

    def apply(self, event: Event) -> list[Record]:
        """One event in (any order of boots, seq order within one), the records it caused."""
        self._out = []
        self._boot, self._seq = event.boot_id, event.seq
        if not self._admit(event.boot_id, event.seq):
            self.duplicates += 1
            return self._out
        self.events += 1
        if self.session is None:
            self.start_session(SessionStart(table=self.table))
            self._out = []
        body = event.body
        kind = body.kind
        if self._claim is not None and not self._continues_claim(kind, body):
            self._judge(None)
        self._handlers.get(kind, _ignore)(body)
        if kind not in ("flower_revealed", "tile_drawn", "tiles_left"):
            self._last_reveal = None
        return self._out

    def _continues_claim(self, kind: str, body: Any) -> bool:
        """Whether an event belongs to the 胡 being judged: its reveal, or a rival 胡 (攔胡)."""
        assert self._claim is not None
        if kind == "hand_revealed":
            return bool(body.seat == self._claim.seat)
        return kind == "seat_button" and body.button.name == "WIN"

    def fault(self, boot_id: int, seq: int, code: str, detail: str) -> list[Record]:
        """Record a fault found outside the mirror (an unreadable body keeps its seq)."""
        self._out = []
        self._boot, self._seq = boot_id, seq
        if self._admit(boot_id, seq):
            self.events += 1
            self._fault(code, detail)
        else:
            self.duplicates += 1
        return self._out

    def finish(self) -> list[Record]:
        """The stream ended: judge a win still waiting for its reveal, close a 荒局."""
        self._out = []
        if self._claim is not None:
            self._judge(None)
        hand = self.hand
        if hand is not None and hand.phase == "play" and hand.drawable == 0 and hand.step == "draw":
            self._end_drawn()
        return self._out

    def snapshot(self, concealed: bool = False) -> dict[str, Any]:
        """The table as the mirror sees it now; concealed tiles only when asked."""
        session = self.session or SessionStart(table=self.table)
        return {
            "table": self.table,
            "players": list(session.players),
            "dealer": self.deal.dealer,
            "streak": self.deal.streak,
            "round_wind": WINDS[self.deal.round_wind],
            "start_seat": self.deal.first_dealer,
            "hands": self.hands,
            "totals": list(self.totals),
            "hand": None if self.hand is None else self.hand.snapshot(concealed),
        }

    # --- bookkeeping ---------------------------------------------------------------

    def _admit(self, boot_id: int, seq: int) -> bool:
        """False for a duplicate; a jump in seq is a `gap` fault (the events are missing)."""
        seen = self._seen.get(boot_id)
        if seen is None:
            if seq > 1:
                self._gap(f"boot {boot_id} begins at seq {seq}: events 1–{seq - 1} are missing")
            self._seen[boot_id] = (seq, set(range(1, seq)))
            return True
        top, holes = seen
        if seq <= top:
            if seq in holes:
                holes.discard(seq)
                return True
            return False
        if seq > top + 1:
            self._gap(f"seq jumped from {top} to {seq} (boot {boot_id})")
            holes.update(range(top + 1, seq))
        self._seen[boot_id] = (seq, holes)
        return True

    def _gap(self, detail: str) -> None:
        self.gaps += 1
        self._fault("gap", detail)

    def _fault(self, code: str, detail: str) -> None:
        self.faults += 1
        self._out.append(
            Fault(
                table=self.table,
                boot_id=self._boot,
                seq=self._seq,
                code=cast(FaultCode, code),
                detail=detail,
            )
        )

    def _violation(
        self, seat: int, code: str, detail: str, at: tuple[int, int] | None = None
    ) -> None:
        """Record a breach by `seat`, at the current event or at the earlier event `at`."""
        boot_id, seq = at if at is not None else (self._boot, self._seq)
        self.violations += 1
        self._out.append(
            Violation(
                table=self.table,
                boot_id=boot_id,
                seq=seq,
                seat=seat,
                code=cast(ViolationCode, code),
                detail=detail,
            )
        )
        if code in DEAD_HAND_CODES and self.hand is not None:
            self.hand.seats[seat].dead = True

    def _in_play(self, what: str) -> HandState | None:
        """The hand, if `what` can happen now; otherwise an `impossible` fault."""
        hand = self.hand
        if hand is not None and hand.phase == "over" and hand.result == "drawn":
            return hand  # after 荒局 the tiles are still followed (a claim there is a breach)
        if hand is None or hand.phase not in ("dealing", "play"):
            phase = "no hand" if hand is None else hand.phase
            self._fault("impossible", f"{what} while {phase}")
            return None
        return hand

    # --- tiles moving --------------------------------------------------------------

    def _take(self, hand: HandState, tile: int, seat: int, what: str) -> bool:
        """Take `tile` out of seat's concealed hand; a tile elsewhere is a fault, then followed."""
        place = hand.where.get(tile)
        if place == ("hand", seat):
            hand.seats[seat].concealed.remove(tile)
            hand.seats[seat].changed()
            return True
        self._fault(
            "tile_twice" if place else "impossible",
            f"seat {seat} {what} {tile_code(tile)} (id {tile}), which is "
            + (_place_text(place) if place else "still in the wall"),
        )
        self._unplace(hand, tile, place)
        if place is None:
            hand.wall -= 1
        return False

    def _unplace(self, hand: HandState, tile: int, place: tuple[str, int] | None) -> None:
        if place is None:
            return
        where, seat = place
        s = hand.seats[seat]
        if where == "hand" and tile in s.concealed:
            s.concealed.remove(tile)
            s.changed()
        elif where == "river" and tile in s.river:
            s.river.remove(tile)
        elif where == "flower" and tile in s.flowers:
            s.flowers.remove(tile)
        elif where == "meld":
            for meld in s.melds:
                if tile in meld.tiles:
                    meld.tiles.remove(tile)

    # --- hand lifecycle ------------------------------------------------------------

    def _shuffle_started(self, body: Any) -> None:
        hand = self.hand
        if hand is not None and hand.phase not in ("over",):
            if hand.phase == "play" and hand.drawable == 0:
                self._end_drawn()
            else:
                self._fault("impossible", f"a new shuffle while the hand is in {hand.phase}")
        if self.jiang_over:
            self.deal = Deal(self.deal.first_dealer, 0, 0, self.deal.first_dealer)
            self.jiang_over = False
        self.hand = HandState([SeatState(s) for s in range(SEATS)], self.deal.dealer)

    def _shuffle_finished(self, body: Any) -> None:
        if self.hand is None or self.hand.phase != "shuffling":
            self._fault("impossible", "shuffle finished with no shuffle started")

    def _wall_built(self, body: Any) -> None:
        stacks = body.stacks_0 + body.stacks_1 + body.stacks_2 + body.stacks_3
        if self.hand is None or self.hand.phase != "shuffling":
            self._fault("impossible", "a wall built with no shuffle before it")
            self.hand = HandState([SeatState(s) for s in range(SEATS)], self.deal.dealer)
        if stacks * 2 != WALL_TILES:
            self._fault("count_mismatch", f"the wall has {stacks} stacks, not {WALL_TILES // 2}")
        self.hand.phase = "built"
        self.hand.wall = stacks * 2

    def _dice_rolled(self, body: Any) -> None:
        roll = body.roll.name
        total = body.die_1 + body.die_2 + body.die_3
        between = self.hand is None or self.hand.phase == "over"
        if roll in ("SEATING", "DEALER"):
            if not between:
                self._fault("impossible", f"a {roll.lower()} roll in the middle of a hand")
                return
            if roll == "DEALER":  # 定莊: rolled at seat 0, the 東 seat of the 搬風
                first = counted_seat(0, total)
                self.deal = Deal(first, 0, 0, first)
                self.jiang_over = False
                if self.hand is not None:
                    self.hand.dealer = first
            return
        hand = self.hand
        if hand is None or hand.phase != "built":
            self._fault("impossible", "a deal roll with no wall built")
            if hand is None or hand.phase == "over":
                if self.jiang_over:
                    self.deal = Deal(self.deal.first_dealer, 0, 0, self.deal.first_dealer)
                    self.jiang_over = False
                hand = self.hand = HandState([SeatState(s) for s in range(SEATS)], self.deal.dealer)
        hand.dealer = self.deal.dealer
        hand.dice = (body.die_1, body.die_2, body.die_3)
        hand.opening_seat = counted_seat(self.deal.dealer, total)
        hand.phase = "dealing"

    def _tiles_left(self, body: Any) -> None:
        hand = self.hand
        if hand is not None and body.count != hand.wall:
            self._fault(
                "count_mismatch",
                f"the table counts {body.count} tiles left, the mirror {hand.wall}",
            )
            hand.wall = body.count  # the wall is the table's to count: follow it from here

    def _invalid(self, body: Any) -> None:
        code = "unknown_tile" if "tile" in body.error.lower() else "impossible"
        self._fault(code, f"the controller sent a frame the catalogue refused: {body.error}")

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
        hand.seats[seat].concealed.remove(tile)
        hand.seats[seat].changed()
        del hand.where[tile]
        hand.wall += 1
        if hand.phase == "dealing":
            hand.deal_draws -= 1

    def _place(self, hand: HandState, seat: int, tile: int) -> None:
        s = hand.seats[seat]
        s.concealed.append(tile)
        s.changed()
        hand.where[tile] = ("hand", seat)
        hand.wall -= 1

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

    # --- discarding ----------------------------------------------------------------

    def _tile_discarded(self, body: Any) -> None:
        hand = self._in_play("a discard")
        if hand is None:
            return
        if hand.phase == "dealing":
            self._fault("impossible", "a discard during the deal")
        seat, tile = body.seat, body.tile
        s = hand.seats[seat]
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
        elif s.owed > 0:
            self._violation(
                seat, "replacement_order", f"seat {seat} discarded before its replacement"
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
        kept = [t for t in s.concealed if is_flower_tile(t) and t not in s.flagged]
        if not flower and s.owed == 0 and kept:
            s.flagged.update(kept)  # once per flower: the breach is keeping it, not each turn
            self._violation(seat, "replacement_order", f"seat {seat} kept a flower in hand")
        if sum(x.discards_made for x in hand.seats) == 1:
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
            self._close_claims(hand, hand.pending, claimer=None, lose_wins=True)
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

    def _void(self, s: SeatState) -> None:
        """D7: a declaration on a hand that is not ready is void, flagged at its button."""
        self._violation(
            s.seat,
            "void_declaration",
            f"seat {s.seat} declared ready on a hand that is not ready",
            at=s.declared_key,
        )
        s.declared = None
        s.declared_at = -1
        s.declared_key = None

    def _pass_win(self, s: SeatState) -> None:
        s.passed_win = True
        if s.declared:
            s.declaration_void = True  # D7: the declaration's 台 no longer count

    def _close_claims(
        self,
        hand: HandState,
        pending: Pending,
        claimer: int | None,
        lose_wins: bool = False,
        by_chow: bool = False,
    ) -> None:
        """A discard's window closes (a draw, a claim): 過碰 for who let a pair go (D2) (all
        before a pong's claimer; everyone before a chow, which comes last); a winner who let
        it go has 過水 (D1) once its 胡 would be late."""
        if pending.closed:
            return
        if (
            not pending.next_drew
            and not pending.added_kong
            and pending.drawable_then > NO_CLAIM_DRAWABLE
        ):
            kind = tile_kind(pending.tile)
            for seat in claim_order(pending.seat):
                if seat == claimer and not by_chow:
                    break
                if hand.seats[seat].counts()[kind] >= 2:
                    hand.seats[seat].passed_pongs.add(kind)
        if lose_wins or claimer is not None:
            for seat in pending.winners:
                if seat != claimer or lose_wins:
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
                for tile in tiles:
                    self._take(hand, tile, seat, "melded")
                self._add_meld(hand, s, meld, tiles, None)
                return
        else:
            late = (
                pending.closed
                or (meld != "chow" and pending.next_drew)
                or (meld == "chow" and pending.next_drew)
            )
        tile = pending.tile
        kind = tile_kind(tile)
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
            if meld == "chow" and _same_or_luo(s.last_discard_kind, kind):
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
            if kind in s.shown:
                self._violation(
                    seat, "restriction_8", f"seat {seat} claimed a tile it had shown (禁制 8)"
                )
        kinds = sorted(tile_kind(t) for t in tiles)
        if not _meld_shape(meld, kinds):
            self._fault("impossible", f"{' '.join(tile_code(t) for t in tiles)} is not a {meld}")
        if pending.chowed_by is not None and meld != "chow":
            self._undo_chow(hand, pending)  # 碰/槓 outrank a 吃 not yet followed by its discard
        if meld != "chow":  # a chow's window closes at the chower's discard (D3)
            self._close_claims(hand, pending, claimer=seat)
        discarder = hand.seats[pending.seat]
        if tile in discarder.river:
            discarder.river.remove(tile)
        for own in tiles:
            if own != tile:
                self._take(hand, own, seat, "melded")
        self._add_meld(hand, s, meld, tiles, pending.seat)
        if meld == "chow":  # D3: a 碰 or 胡 on it is on time until the chower's discard
            pending.chowed_by = seat
        else:
            hand.pending = None
        hand.claims_made = True
        hand.turn, hand.step = seat, "discard"
        hand.turn_start = "claimed_kong" if meld == "kong_exposed" else "claimed"
        hand.kong_this_turn = meld == "kong_exposed"
        s.last_drawn = None
        if meld == "pong":
            s.no_discard = frozenset({kind})
        elif meld == "chow":
            s.no_discard = forbidden_after_chow(kind, kinds[0])
        else:
            self._kong_replacement(hand, s)

    def _undo_chow(self, hand: HandState, pending: Pending) -> None:
        """A 碰, 槓 or 胡 took the tile of a 吃 still waiting for its discard: the chow's
        tiles go back into the chower's hand and the tile back to the discards."""
        chower = hand.seats[pending.chowed_by]  # type: ignore[index]
        pending.chowed_by = None
        meld = next((m for m in chower.melds if m.kind == "chow" and pending.tile in m.tiles), None)
        if meld is None:
            return
        chower.melds.remove(meld)
        for tile in meld.tiles:
            if tile != pending.tile:
                chower.concealed.append(tile)
                hand.where[tile] = ("hand", chower.seat)
        chower.changed()
        chower.no_discard = frozenset()
        hand.seats[pending.seat].river.append(pending.tile)
        hand.where[pending.tile] = ("river", pending.seat)
        hand.claims_made = any(m.from_seat is not None for x in hand.seats for m in x.melds)

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

    def _own_kong_checks(self, hand: HandState, seat: int, what: str) -> bool:
        s = hand.seats[seat]
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
        self._own_kong_checks(hand, seat, "暗槓")
        kinds = sorted(tile_kind(t) for t in tiles)
        if not _meld_shape("kong_concealed", kinds):
            self._fault("impossible", f"{' '.join(tile_code(t) for t in tiles)} is not a kong")
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
        self._own_kong_checks(hand, seat, "加槓")
        kinds = {tile_kind(t) for t in tiles}
        pong = next((m for m in s.melds if m.kind == "pong" and set(m.tiles) <= set(tiles)), None)
        extra = [t for t in tiles if pong is None or t not in pong.tiles]
        if pong is None or len(kinds) != 1 or len(extra) != 1:
            self._fault(
                "impossible", f"seat {seat}'s 加槓 {tiles} does not extend one of its pongs"
            )
            return
        tile = extra[0]
        self._take(hand, tile, seat, "added")
        pong.kind = "kong_added"
        pong.tiles.append(tile)
        hand.where[tile] = ("meld", seat)
        s.changed()
        kind = tile_kind(tile)
        if s.passed_win and kind not in s.waits():
            s.passed_win = False  # D1: a 加槓 of a tile that is not a winning tile clears it
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
        for tile in body.tiles:
            if hand.where.get(tile) != ("hand", body.seat):
                self._fault(
                    "impossible", f"seat {body.seat} showed {tile_code(tile)}, not in its hand"
                )
            elif not is_flower_tile(tile):
                s.shown.add(tile_kind(tile))

    # --- buttons -------------------------------------------------------------------

    def _seat_button(self, body: Any) -> None:
        button = body.button.name
        hand = self.hand
        if button == "WIN":
            if hand is None or hand.phase != "play":
                self._fault("impossible", f"seat {body.seat} pressed 胡 with no hand in play")
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

    def _declare_ready(self, hand: HandState, s: SeatState) -> None:
        s.declared_key = (self._boot, self._seq)
        nobody_discarded = all(x.discards_made == 0 for x in hand.seats)
        if s.declared or s.dead:
            self._void(s)
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
            self._void(s)

    def _declare_win(self, hand: HandState, seat: int) -> None:
        s = hand.seats[seat]
        if s.owed and (
            len(s.flowers) == 8
            or (len(s.flowers) == 7 and any(len(o.flowers) == 1 for o in hand.seats))
        ):
            return  # D8: a 花胡 declared before its replacement is invalid, not a 詐胡
        previous = self._claim
        claim = self._win_claim(hand, s)
        if previous is not None:
            if previous.how == "discard" and claim.how == "discard" and previous.tile == claim.tile:
                order = claim_order(previous.payer if previous.payer is not None else seat)
                if order.index(seat) > order.index(previous.seat):
                    return  # 攔胡: the nearer claimant keeps the win; this press loses
            else:
                self._judge(None)
        for code in claim.codes:
            self._violation(seat, code, _BAR_TEXT[code].format(seat=seat))
        self._claim = claim
        if claim.flower_win is not None and not s.is_complete():
            self._judge(None)

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
            if tile_kind(pending.tile) in s.shown and not pending.added_kong:
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
            if s.last_from_back and hand.kong_this_turn and after_concealed_kong and s.passed_win:
                codes.append("passed_win")  # an 暗槓 under 過水: its replacement cannot win
            timing, declared = self._self_draw_timing(hand, s)
            heavenly = timing == "heavenly_win"
            return WinClaim(
                seat,
                "self_draw",
                s.last_drawn,
                None,
                self._seq,
                self._boot,
                _once(codes),
                replacement=s.last_from_back and not heavenly,
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
        if s.declared == "heavenly_ready" and s.discards_made == 0:
            timing = None if hand.claims_made else "earthly_win"
        elif s.declared == "earthly_ready" and _within_declaration(s):
            timing = "human_win"
        declared = _declared(s)
        if declared is None and timing in ("human_win", "earthly_win"):
            timing = None
        return timing, declared

    def _discard_timing(self, hand: HandState, s: SeatState, pending: Pending) -> str | None:
        if pending.added_kong:
            return None
        if s.declared == "earthly_ready":
            return "human_win" if _within_declaration(s) else None
        discarder = hand.seats[pending.seat]
        if (
            s.seat != hand.dealer
            and s.discards_made == 0
            and discarder.discards_made == 1
            and not hand.claims_made
        ):
            return "earthly_win"
        return None

    # --- judging -------------------------------------------------------------------

    def _hand_revealed(self, body: Any) -> None:
        claim = self._claim
        if claim is None or claim.seat != body.seat:
            self._fault("impossible", f"seat {body.seat} revealed a hand with no 胡 declared")
            return
        self._judge(list(body.tiles))

    def _judge(self, revealed: list[int] | None) -> None:
        claim, self._claim = self._claim, None
        hand = self.hand
        if claim is None or hand is None:
            return
        s = hand.seats[claim.seat]
        ids = list(s.concealed)
        if revealed is not None and claim.flower_win is None:
            self._late_win(hand, s, claim, revealed)
        if claim.how != "self_draw" and claim.tile not in ids:
            ids.append(claim.tile)
        if revealed is not None and sorted(revealed) != sorted(ids):
            self._fault(
                "impossible",
                f"seat {claim.seat} revealed {_codes(revealed)}; the mirror saw {_codes(ids)}",
            )
            ids = list(revealed)
            if claim.how != "self_draw" and claim.tile not in ids:
                ids.append(claim.tile)
        candidate: Hand | None
        if claim.flower_win is not None and not s.is_complete():
            candidate = flower_only_hand(claim, s, self.deal)
        else:
            candidate = build_hand(claim, ids, s, hand, self.deal, self.profile)
        if claim.flower_win is not None and candidate is None:
            candidate = flower_only_hand(claim, s, self.deal)
        v = verdict(claim, candidate, self.deal, self.profile)
        if v.result == "false_win" and "false_win" in v.codes and "false_win" not in claim.codes:
            self.violations += 1
            self._out.append(
                Violation(
                    table=self.table,
                    boot_id=claim.boot_id,
                    seq=claim.seq,
                    seat=claim.seat,
                    code="false_win",
                    detail=f"seat {claim.seat} declared 胡 on a hand that does not win",
                )
            )
        if claim.how != "self_draw" and claim.flower_win is None:
            self._move_claimed(hand, claim)
        items = (
            []
            if v.score is None or (v.result == "false_win" and not v.tai)
            else [
                Item(id=i.id, tai=i.tai, name=i.name, en=ENGLISH.get(i.id)) for i in v.score.items
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
        )

    def _late_win(
        self, hand: HandState, s: SeatState, claim: WinClaim, revealed: list[int]
    ) -> None:
        """A 胡 revealed with an earlier discard, not the one it was pressed on: that tile's
        window had closed (D3), so the claim is late; it is judged on that tile."""
        extra = [t for t in revealed if t not in s.concealed]
        if len(extra) != 1 or extra[0] == claim.tile or len(revealed) != len(s.concealed) + 1:
            return
        place = hand.where.get(extra[0])
        if place is None or place[0] != "river" or place[1] == s.seat:
            return
        claim.how, claim.tile, claim.payer, claim.timing = "discard", extra[0], place[1], None
        if "late_claim" not in claim.codes:
            claim.codes.append("late_claim")
            self._violation(
                s.seat,
                "late_claim",
                f"seat {s.seat} declared 胡 on a discard after its window closed",
                at=(claim.boot_id, claim.seq),
            )

    def _move_claimed(self, hand: HandState, claim: WinClaim) -> None:
        pending = hand.pending
        if pending is not None and pending.tile == claim.tile and pending.chowed_by is not None:
            self._undo_chow(hand, pending)  # 胡 outranks the 吃 shown on it (D3)
        place = hand.where.get(claim.tile)
        if place is not None and place[0] == "river":
            hand.seats[place[1]].river.remove(claim.tile)
        elif place is not None and place[0] == "meld":
            for meld in hand.seats[place[1]].melds:
                if claim.tile in meld.tiles and meld.kind == "kong_added":
                    meld.tiles.remove(claim.tile)
                    meld.kind = "pong"  # 搶槓: the kong falls back to its pong
        hand.seats[claim.seat].concealed.append(claim.tile)
        hand.where[claim.tile] = ("hand", claim.seat)

    def _end_drawn(self) -> None:
        if self.hand is None or self.hand.phase == "over":
            return
        pending = self.hand.pending
        self._finish_hand(
            result="drawn",
            kind=None,
            seat=None,
            payer=None,
            tai=0,
            items=[],
            codes=[],
            payments=(),
            end="draw",
        )
        self.hand.pending = pending  # a claim of the last discard is still judged

    def _finish_hand(
        self,
        *,
        result: str,
        kind: str | None,
        seat: int | None,
        payer: int | None,
        tai: int,
        items: list[Item],
        codes: list[str],
        payments: Any,
        end: HandEnd,
    ) -> None:
        hand = self.hand
        assert hand is not None
        net = [0] * SEATS
        for p in payments:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
        for i in range(SEATS):
            self.totals[i] += net[i]
        dealer_tai = max((p.dealer_tai for p in payments), default=0)
        nxt = self.deal.next(end)
        self.hands += 1
        self._out.append(
            HandRecord(
                table=self.table,
                boot_id=self._boot,
                seq=self._seq,
                hand=self.hands,
                round_wind=WINDS[self.deal.round_wind],
                dealer=self.deal.dealer,
                streak=self.deal.streak,
                result=cast(HandResultKind, result),
                kind=cast(SettleKindName | None, kind),
                seat=seat,
                payer=payer,
                tai=tai,
                dealer_tai=dealer_tai,
                items=items,
                codes=codes,
                net=net,
                payments=[PaymentRecord.model_validate(p.to_json()) for p in payments],
                next=None
                if nxt is None
                else NextDeal(
                    dealer=nxt.dealer,
                    streak=nxt.streak,
                    round_wind=WINDS[nxt.round_wind],
                ),
            )
        )
        hand.phase = "over"
        hand.result = result
        self.last_hand = hand
        hand.pending = None
        self._robbed = None
        self._r5 = None
        if nxt is None:
            self.jiang_over = True
        else:
            self.deal = nxt


_BAR_TEXT: Final = {
    "dead_hand_claim": "seat {seat} is 相公 and declared 胡",
    "late_claim": "seat {seat} declared 胡 on a discard after its window closed",
    "passed_win": "seat {seat} declared 胡 while 過水 (D1)",
    "restriction_2": "seat {seat} self-drew on a 碰槓 replacement (禁制 2)",
    "restriction_4": "seat {seat}'s self-draw did not begin with a draw in turn (禁制 4)",
    "restriction_5": "seat {seat}'s 暗槓 replacement win waits on a tile discarded this go-round"
    " (禁制 5)",
    "restriction_8": "seat {seat} won on a discard of a tile it had shown (禁制 8)",
}


def _ignore(body: Any) -> None:
    """Controller status events (`fault`, `state`) change nothing in the game."""


def _once(codes: list[str]) -> list[str]:
    return list(dict.fromkeys(codes))


def _declared(s: SeatState) -> str | None:
    return s.declared if s.declared and not s.declaration_void else None


def _within_declaration(s: SeatState) -> bool:
    """人胡's window (D6): one discard since the 地聽 declaration, none after it."""
    return not s.declaration_void and s.declared_at >= 0 and len(s.river) == s.declared_at + 1


def _same_or_luo(last: int, kind: int) -> bool:
    """禁制 6: the tile just discarded, or its 絡 (three apart in the same suit)."""
    if last < 0 or kind >= FIRST_HONOUR or last >= FIRST_HONOUR:
        return False
    return last // 9 == kind // 9 and abs(kind - last) in (0, 3)


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


def _place_text(place: tuple[str, int]) -> str:
    where, seat = place
    return {
        "hand": f"in seat {seat}'s hand",
        "river": f"in seat {seat}'s discards",
        "meld": f"in a meld of seat {seat}",
        "flower": f"among seat {seat}'s flowers",
    }.get(where, where)


def _codes(ids: list[int]) -> str:
    return " ".join(tile_code(t) for t in sorted(ids))
