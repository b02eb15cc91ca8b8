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

Where each part lives (`TableMirror` is one object made of these mixins):
- mirror.py: the public face, dispatch of events, seq bookkeeping (duplicates, gaps),
  the hand lifecycle (shuffle, wall, dice, tiles_left, invalid) and finishing a hand;
- core.py: the state, recording faults and violations, moving tiles between places;
- drawing.py: deal and play draws, a tile put back, draws after the end, flowers,
  七搶一 robbing;
- claims.py: discards, claims (吃, 碰, 明槓), own kongs, tiles shown;
- wins.py: buttons, ready declarations, win claims, flower wins, timings, judging;
- judge.py (what a hand is worth), state.py, records.py, session.py, replay.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, cast

from firmware_bridge.messages import Event
from table_service.mirror.claims import ClaimsMixin
from table_service.mirror.drawing import DEAL_TILES, DrawingMixin
from table_service.mirror.play import hand_play
from table_service.mirror.records import (
    HandRecord,
    HandResultKind,
    Item,
    NextDeal,
    PaymentRecord,
    Record,
    SettleKindName,
    unreadable_fault_code,
)
from table_service.mirror.seqs import BootSeqs
from table_service.mirror.session import WINDS, SessionStart
from table_service.mirror.state import HandState, SeatState
from table_service.mirror.wins import WinsMixin
from table_service.rules import HandOutcome, settle
from table_service.rules.settlement import net
from table_service.rules.table import SEATS, Deal, HandEnd, counted_seat, seat_position
from table_service.rules.tiles import TILE_IDS

__all__ = ["DEAL_TILES", "WALL_TILES", "TableMirror"]

WALL_TILES: Final = TILE_IDS


class TableMirror(DrawingMixin, ClaimsMixin, WinsMixin):
    """The referee of one table. Feed it events in seq order; read what it concludes."""

    def __init__(self, table: str, session: SessionStart | None = None) -> None:
        super().__init__(table)
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
        }  # any other kind changes nothing in the game (see _ignore)
        if session is not None:
            self.start_session(session)

    # --- the public face -----------------------------------------------------------

    def correct_deal(self, dealer: int, streak: int, round_wind: int) -> None:
        """The referee's ruling on who deals next. It applies from the next hand: a hand
        under way keeps its dealer, streak and round (its record's `next` says the ruled
        deal); one still shuffling or built, whose tiles have not moved, is the next hand."""
        ruled = Deal(dealer, streak, round_wind, self.deal.first_dealer)
        hand = self.hand
        if hand is not None and hand.phase in ("dealing", "play"):
            self._ruled_deal = ruled
            return
        self._take_deal(ruled)

    def pay(self, ledger: list[tuple[int, int]]) -> None:
        """Money a ruling moved (a penalty): in the session's totals, like a hand's."""
        for seat, amount in ledger:
            self.totals[seat] += amount

    def penalty(self, seat: int, tai: int) -> list[tuple[int, int]]:
        """包賠 / 眼牌: the offender pays each other seat 底 + 台 (+ the dealer's 台), at the
        deal this point of the log stands at. Derived where it stands, never kept: a ruling
        on an earlier hand that changes the dealer changes the penalty with it."""
        deal = self.deal
        outcome = HandOutcome(
            kind="penalty",
            winner=seat,
            tai=tai,
            dealer=deal.dealer,
            streak=deal.streak,
            stakes=self.profile.stakes(),
        )
        return list(enumerate(net(settle(outcome))))

    def _take_deal(self, deal: Deal) -> None:
        self.deal = deal
        self.jiang_over = False
        self._deal_uncertain = None  # the referee tells the deal
        self._ruled_deal = None
        if self.hand is not None and self.hand.phase in ("shuffling", "built"):
            self.hand.dealer = deal.dealer

    def start_session(self, session: SessionStart) -> list[Record]:
        """Start (or restart) the session. One asked for while a hand's tiles are moving
        begins at the next shuffle: the hand under way is finished, judged and paid in the
        session it began in. A hand still shuffling or built is the new session's, dealt
        by its dealer."""
        self._out = []
        hand = self.hand
        if hand is not None and hand.phase in ("dealing", "play"):
            self.next_session = session
        else:
            self._begin_session(session)
        return self._out

    @property
    def seating_open(self) -> bool:
        """Whether the session's seats may still change hands: it has been asked for and
        no shuffle has begun a hand of it yet (a seat taken later would change who played)."""
        if self.next_session is not None:
            return True
        return self.session is not None and self.hands == 0 and self.hand is None

    @property
    def seated_session(self) -> SessionStart | None:
        """The session whose seats are taken now: the one waiting for the next shuffle, if
        one waits, else the table's."""
        return self.next_session or self.session

    def seat_player(self, seat: int, name: str, player_id: int | None) -> None:
        """Who sits at `seat` for the session being seated: by name, and by the club's list
        when listed."""
        session = self.seated_session
        if session is None or not 0 <= seat < SEATS:
            return
        names = list(session.players)
        ids = list(session.player_ids or (None,) * SEATS)
        names[seat], ids[seat] = name, player_id
        seated = session.model_copy(update={"players": tuple(names), "player_ids": tuple(ids)})
        if self.next_session is not None:
            self.next_session = seated
        else:
            self.session = seated

    def session_deal(self) -> dict[str, Any]:
        """Where the 將 stands now, as a session start names it."""
        deal = self.deal
        return {
            "dealer": deal.dealer,
            "streak": deal.streak,
            "round_wind": WINDS[deal.round_wind],
            "start_seat": deal.first_dealer,
        }

    def end_session(self) -> None:
        """The session ends now; a session asked for and not yet begun never begins."""
        self.next_session = None

    def _begin_session(self, session: SessionStart) -> None:
        """The session takes the table: its players, stakes, profile and deal. A deal the
        start leaves open is the table's own as it stands (as a referee ruled it)."""
        self.session = session
        self.next_session = None
        self.profile = session.rule_profile()
        self.deal = session.deal(self._ruled_deal or self.deal)
        self._deal_uncertain = None  # the session tells the deal
        self._ruled_deal = None
        self.jiang_over = False
        hand = self.hand
        if hand is not None and hand.phase in ("shuffling", "built"):
            hand.dealer = self.deal.dealer  # no tile has moved: the hand is the session's
        else:
            self.hand = None
        self.hands = 0
        self.totals = [0] * SEATS
        self._claim = None

    def pass_over(self, event: Event) -> list[Record]:
        """An event a referee's ruling says did not happen: its seq is taken (so no gap is
        seen after it) and nothing else changes."""
        self._out = []
        self._boot, self._seq = event.boot_id, event.seq
        self._admit(event.boot_id, event.seq)
        return self._out

    def apply(self, event: Event, inserted: bool = False) -> list[Record]:
        """One event in (any order of boots, seq order within one), the records it caused.
        `inserted`: an event a referee's ruling says is missing, after the event whose key
        it carries (it has no seq of its own, so no duplicate or gap is counted)."""
        if self.session is None:  # a stream with no session start plays by the defaults
            self.session = SessionStart(table=self.table)  # (a ruling made before it stands)
        self._out = []
        self._boot, self._seq, self._ts = event.boot_id, event.seq, event.ts
        gaps = self.gaps
        if not inserted and not self._admit(event.boot_id, event.seq):
            self.duplicates += 1
            return self._out
        self.events += 1
        body = event.body
        kind = body.kind
        self._after_gap(self.gaps > gaps, kind)
        self._settle_misread(kind, body)
        if self._claim is not None and not self._continues_claim(kind, body):
            self._judge()
        self._handlers.get(kind, _ignore)(body)
        self._judge_when_decided()
        if kind not in ("flower_revealed", "tiles_left"):  # 七搶一 (1) robs the flower just shown
            self._last_reveal = None
        return self._out

    def _after_gap(self, gap: bool, kind: str) -> None:
        """Events are missing: a hand in progress is no longer seen whole, and one that
        begins beyond the hole (its tiles moving with no shuffle seen) was never seen from
        its start. Either is followed without judging until the next shuffle; the dealer
        of the next deal is learnt from it."""
        if gap and not self._deal_uncertain:
            self._deal_uncertain = "gap"  # a whole hand may be in the hole
        if kind == "shuffle_started":
            self._start_lost = False
            return
        if gap:
            hand = self.hand
            if hand is not None and hand.phase not in ("over", "idle"):
                self._unseen(f"events before seq {self._seq} are missing")
                return
            self._start_lost = True
        if self._start_lost and kind in _MID_HAND:
            self._start_lost = False
            self._unseen(f"events before seq {self._seq} are missing, the hand's start with them")

    def _continues_claim(self, kind: str, body: Any) -> bool:
        """Whether an event leaves the 胡 being judged open (D3): a reveal, any seat's button
        (a rival 胡, or a 碰/槓 press that 胡 outranks), a count. Anything else (a tile moving,
        a new shuffle) closes its window."""
        return kind in ("hand_revealed", "seat_button", "tiles_left")

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
        """The stream ended: follow a misread with no re-read, judge a win still waiting for
        its reveal, close a 荒局."""
        self._out = []
        if self.hand is not None:
            self._follow_misread(self.hand)
        if self._claim is not None:
            self._judge()
        hand = self.hand
        if hand is not None and hand.phase == "play" and hand.drawable == 0 and hand.step == "draw":
            self._end_drawn()
        return self._out

    def snapshot(self, concealed: bool = False) -> dict[str, Any]:
        """The table as the mirror sees it now; concealed tiles only when asked."""
        session = self.session or SessionStart(table=self.table)
        seated = self.seated_session if self.seating_open else None
        return {
            "table": self.table,
            "players": list(session.players),
            # the seats of the session being seated, while they may still change hands
            "seating": None if seated is None else list(seated.players),
            "profile": self.profile.label,
            "seat_order": self.profile.seat_order,  # whom the seat winds count from (§2)
            "dealer": self.deal.dealer,
            "streak": self.deal.streak,
            "round_wind": WINDS[self.deal.round_wind],
            "start_seat": self.deal.first_dealer,
            "deal_in_round": (self.deal.dealer - self.deal.first_dealer) % SEATS + 1,
            "hands": self.hands,
            "totals": list(self.totals),
            "hand": None if self.hand is None else self._hand_snapshot(self.hand, concealed),
            "ruled_deal": _deal_shown(self._ruled_deal),
        }

    def _hand_snapshot(self, hand: HandState, concealed: bool) -> dict[str, Any]:
        """The hand's picture, each seat with its wind this hand (開門序 or the profile's)."""
        data = hand.snapshot(concealed)
        for seat in data["seats"]:
            seat["wind"] = None
            if hand.opening_seat is not None:
                position = seat_position(
                    seat["seat"], hand.opening_seat, hand.dealer, self.profile.seat_order
                )
                seat["wind"] = WINDS[position - 1]
        return data

    # --- bookkeeping ---------------------------------------------------------------

    def _admit(self, boot_id: int, seq: int) -> bool:
        """False for a duplicate; a jump in seq is a `gap` fault (the events are missing).

        The holes are ranges (seqs.py): a boot that begins at seq 2**63 - 1 costs nothing.
        """
        seqs = self._boot_seqs()
        boot = seqs.get(boot_id)
        if boot is None:
            if seq > 1:
                self._gap(f"boot {boot_id} begins at seq {seq}: events 1–{seq - 1} are missing")
            seqs[boot_id] = BootSeqs(seq, [(1, seq - 1)] if seq > 1 else [])
            return True
        if seq > boot.top + 1:
            self._gap(f"seq jumped from {boot.top} to {seq} (boot {boot_id})")
        return boot.admit(seq)

    def _boot_seqs(self) -> dict[int, BootSeqs]:
        """Each boot's seqs seen; a mirror pickled when holes were sets is converted once."""
        seqs: dict[int, BootSeqs] | None = self.__dict__.get("_seqs")
        if seqs is None:
            old = self._seen.items()
            seqs = {boot: BootSeqs.from_set(top, holes) for boot, (top, holes) in old}
            self._seen.clear()
            self._seqs = seqs
        return seqs

    def _gap(self, detail: str) -> None:
        self.gaps += 1
        self._fault("gap", detail)

    # --- hand lifecycle ------------------------------------------------------------

    def _shuffle_started(self, body: Any) -> None:
        hand = self.hand
        if hand is not None and hand.phase not in ("over",):
            if hand.phase == "play" and hand.drawable == 0:
                self._end_drawn()
            else:
                self._fault("impossible", f"a new shuffle while the hand is in {hand.phase}")
        self._new_hand()

    def _new_hand(self) -> HandState:
        """A hand begins; after the last hand of a 將 a new 將 begins at its first dealer."""
        if self.jiang_over:
            self.deal = Deal(self.deal.first_dealer, 0, 0, self.deal.first_dealer)
            self.jiang_over = False
        if self.hand is not None and self.hand.unseen and self.hand.phase != "over":
            # who won it is not known: the deal will tell (a hand that ended said so then,
            # unless a referee has told the deal since)
            self._deal_uncertain = "unjudged"
        if self.next_session is not None:  # asked for while the last hand was under way
            self._begin_session(self.next_session)
        self.hand = HandState([SeatState(s) for s in range(SEATS)], self.deal.dealer)
        self.hand.began = self._ts
        if self._ruled_deal is not None:  # a ruling made while the last hand was under way
            self._take_deal(self._ruled_deal)
        self._settled = None
        return self.hand

    def _shuffle_finished(self, body: Any) -> None:
        if self.hand is None or self.hand.phase != "shuffling":
            self._fault("impossible", "shuffle finished with no shuffle started")

    def _wall_built(self, body: Any) -> None:
        stacks = body.stacks_0 + body.stacks_1 + body.stacks_2 + body.stacks_3
        hand = self.hand
        if hand is None or hand.phase != "shuffling":
            self._fault("impossible", "a wall built with no shuffle before it")
            hand = self._new_hand()
        if stacks * 2 != WALL_TILES:
            self._fault("count_mismatch", f"the wall has {stacks} stacks, not {WALL_TILES // 2}")
        hand.phase = "built"
        hand.wall = stacks * 2

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
                hand = self._new_hand()
        hand.dealer = self.deal.dealer
        hand.dice = (body.die_1, body.die_2, body.die_3)
        hand.opening_seat = counted_seat(self.deal.dealer, total)
        hand.phase = "dealing"

    def _tiles_left(self, body: Any) -> None:
        hand = self.hand
        if self._start_lost:
            return  # a count of a hand whose start the gap swallowed: nothing to check
        if hand is not None and self._count_after_misread(hand, body.count):
            return
        if hand is not None and body.count != hand.wall:
            self._fault(
                "count_mismatch",
                f"the table counts {body.count} tiles left, the mirror {hand.wall}",
            )
            hand.wall = body.count  # the wall is the table's to count: follow it from here

    def _invalid(self, body: Any) -> None:
        why = f"the controller sent a frame the catalogue refused: {body.error}"
        self._fault(unreadable_fault_code(body.error), why)

    # --- finishing a hand ----------------------------------------------------------

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
        winning_tile: str | None = None,
    ) -> None:
        hand = self.hand
        assert hand is not None
        ruled, self._ruled_deal = self._ruled_deal, None
        if hand.unseen:  # not judged: no record, no money, the deal learnt from the next
            hand.phase, hand.result, hand.pending = "over", result, None
            self._deal_uncertain = "unjudged"
            if ruled is not None:  # unless a referee said it
                self._take_deal(ruled)
            return
        net = [0] * SEATS
        for p in payments:
            net[p.payer] -= p.amount
            net[p.payee] += p.amount
        for i in range(SEATS):
            self.totals[i] += net[i]
        dealer_tai = max((p.dealer_tai for p in payments), default=0)
        nxt = self.deal.next(end) if ruled is None else ruled
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
                winning_tile=winning_tile,
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
                play=hand_play(hand, self._ts, seat, payer, kind, winning_tile),
            )
        )
        hand.phase = "over"
        hand.result = result
        hand.shown_by = seat if result in LAID_DOWN else None
        self.last_hand = hand
        hand.pending = None
        self._robbed = None
        self._r5 = None
        if nxt is None:
            self.jiang_over = True
        else:
            self.deal = nxt


# The results that end a hand by a seat laying its hand down: everyone sees its tiles.
LAID_DOWN: Final = frozenset({"win", "false_win"})

# Events that only happen within a hand, after its deal has begun.
_MID_HAND: Final = frozenset(
    {
        "tile_drawn",
        "tile_discarded",
        "meld_exposed",
        "flower_revealed",
        "seat_button",
        "hand_revealed",
        "tiles_shown",
    }
)


def _deal_shown(deal: Deal | None) -> dict[str, Any] | None:
    """A referee's deal ruling waiting for the hand under way to end, as the state shows it."""
    if deal is None:
        return None
    return {"dealer": deal.dealer, "streak": deal.streak, "round_wind": WINDS[deal.round_wind]}


def _ignore(body: Any) -> None:
    """Controller status events (`fault`, `state`) change nothing in the game, and a
    `command_refused` is for the command's sender (the bridge answers it)."""
