"""The mirror's common base: its state, how it records faults and violations, tiles moving.

`MirrorCore` holds what every part of the referee shares; the parts are mixins over it
(drawing.py, claims.py, wins.py) and `TableMirror` (mirror.py) puts them together.
Calls from one part into another are declared here, for the type checker only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal, cast

from table_service.mirror.judge import WinClaim
from table_service.mirror.records import (
    DEAD_HAND_CODES,
    Fault,
    FaultCode,
    Item,
    Record,
    Violation,
    ViolationCode,
)
from table_service.mirror.session import SessionStart
from table_service.mirror.state import HandState, Pending, SeatState, TurnStart
from table_service.rules import Profile
from table_service.rules.table import SEATS, Deal, HandEnd
from table_service.rules.tiles import tile_code

# The mirror's pickled form: bumped when a field is renamed or changes its meaning, so a
# snapshot written by another version is not read (the table is folded from its log).
MIRROR_FORMAT: Final = 2


class MirrorCore:
    """The state of one table's referee and the helpers every part of it uses."""

    _ts: float = 0.0  # (a mirror pickled before it had one reads this)

    def __init__(self, table: str) -> None:
        self.table = table
        self.session: SessionStart | None = None
        self.next_session: SessionStart | None = None  # begins at the next shuffle
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
        self._ts = 0.0  # the event's time (the bridge's): the play's figures (play.py)
        self._claim: WinClaim | None = None
        self._lost: set[int] = set()  # seats whose 胡 lost on priority to the claim (攔胡)
        self._settled: WinClaim | None = None  # the claim that ended the hand last judged
        self._last_pending: Pending | None = None
        self._last_reveal: tuple[int, int] | None = None  # (seat, flower) just revealed
        self._robbed: tuple[int, int] | None = None  # 七搶一 (1): (robbed seat, flower id)
        self._r5: tuple[int, frozenset[int]] | None = None  # 禁制 5 after an 暗槓
        self._ruled_deal: Deal | None = None  # a deal ruling waiting for the hand's end
        # Violations a referee overturned (rulings.py): (boot_id, seq, seat, code) of each;
        # set by the fold before each event, never decided here.
        self.overturned: frozenset[tuple[int, int, int, str]] = frozenset()
        # The next deal is learnt from who takes its first tiles: "unjudged" after a hand
        # whose result is not known, "gap" when a whole hand may have been lost (drawing.py)
        self._deal_uncertain: Literal["unjudged", "gap"] | None = None
        self._start_lost = False  # a gap between hands: the next hand may begin unseen

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A mirror pickled by an earlier revision gets what was added since at its start."""
        self.__dict__.update(MirrorCore(str(state.get("table", ""))).__dict__)
        self.__dict__.update(state)

    # --- recording -----------------------------------------------------------------

    def _fault(self, code: str, detail: str) -> None:
        if self._unjudged() and code not in _STREAM_FAULTS:
            return  # a hand not seen from its start: followed, not judged
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
        if self._unjudged():
            return  # nobody is blamed in a hand the mirror did not see from its start
        boot_id, seq = at if at is not None else (self._boot, self._seq)
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
        if not self._upheld(seat, code, (boot_id, seq)):
            return  # flagged, but a referee overturned it: it causes nothing (no 相公)
        self.violations += 1
        if code in DEAD_HAND_CODES and self.hand is not None:
            self.hand.seats[seat].dead = True

    def _upheld(self, seat: int, code: str, at: tuple[int, int]) -> bool:
        """Whether a breach stands: False when a referee's ruling overturned it."""
        return (*at, seat, code) not in self.overturned

    def _unjudged(self) -> bool:
        return self.hand is not None and self.hand.unseen

    def _unseen(self, why: str) -> HandState:
        """The hand's beginning is gone (a gap, a session or a mirror started mid-hand): its
        tiles are followed without judging until the next shuffle, and one fault says so."""
        hand = self.hand
        if hand is None or hand.phase in ("over", "idle"):
            hand = self._new_hand()
            hand.phase = "play"  # what is left of it: its tiles as they come
        if not hand.unseen:
            self._fault(
                "hand_unseen",
                f"{why}: the hand is followed without judging until the next shuffle",
            )
            hand.unseen = True
        return hand

    def _in_play(self, what: str) -> HandState | None:
        """The hand, if `what` can happen now; otherwise an `impossible` fault (or, with no
        hand seen at all, a hand joined in its middle)."""
        hand = self.hand
        if hand is None:
            return self._unseen(f"{what} with no hand seen before it")
        if hand.phase == "over" and hand.result == "drawn":
            return hand  # after 荒局 the tiles are still followed (a claim there is a breach)
        if hand.phase not in ("dealing", "play"):
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

    def _place(self, hand: HandState, seat: int, tile: int) -> None:
        s = hand.seats[seat]
        s.concealed.append(tile)
        s.changed()
        hand.where[tile] = ("hand", seat)
        hand.wall -= 1

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
                    s.changed()

    # --- calls across the parts ----------------------------------------------------

    if TYPE_CHECKING:

        def _end_drawn(self) -> None: ...  # mirror.py

        def _new_hand(self) -> HandState: ...  # mirror.py

        def _hold_misread(
            self, hand: HandState, kind: str, body: Any, place: tuple[str, int], what: str
        ) -> None: ...  # drawing.py

        def _tile_discarded(self, body: Any) -> None: ...  # claims.py

        def _turn_drawn(
            self, hand: HandState, seat: int, tile: int, how: TurnStart = "draw"
        ) -> None: ...  # drawing.py

        def _flower_revealed(self, body: Any) -> None: ...  # drawing.py

        def _meld_exposed(self, body: Any) -> None: ...  # claims.py

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
        ) -> None: ...  # mirror.py

        def _close_claims(self, hand: HandState, pending: Pending) -> None: ...  # claims.py

        def _pass_pongs(
            self, hand: HandState, pending: Pending, claimer: int | None
        ) -> None: ...  # claims.py

        def _undo_meld(self, hand: HandState, pending: Pending) -> None: ...  # claims.py

        def _pass_win(self, s: SeatState) -> None: ...  # wins.py

        def _check_declaration_at_discard(
            self, hand: HandState, s: SeatState, tile: int
        ) -> None: ...  # wins.py


# Faults about the stream itself, still told in a hand that is not judged.
_STREAM_FAULTS: Final = frozenset({"gap", "hand_unseen"})


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
