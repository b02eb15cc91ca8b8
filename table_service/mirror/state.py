"""The mirror's picture of one hand: every tile's place, each seat's status, whose move.

Mutable on purpose (the mirror is a sans-I/O state machine, like the link's ARQ
code); `snapshot()` gives a plain, JSON-ready copy for anyone outside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from table_service.rules.rulebook import ClaimKind
from table_service.rules.shapes import is_complete, wait_kinds
from table_service.rules.table import NO_CLAIM_DRAWABLE, RESERVE_TILES, TILES, drawable
from table_service.rules.tiles import (
    is_flower_tile,
    is_honour,
    kind_counts,
    tile_code,
    tile_flower,
    tile_kind,
)

MeldName = Literal["chow", "pong", "kong_exposed", "kong_added", "kong_concealed"]
Phase = Literal["idle", "shuffling", "built", "dealing", "play", "over"]
# How the seat's current turn began: it decides 禁制 1–4 and the special wins.
TurnStart = Literal["first", "draw", "claimed", "claimed_kong", "out_of_turn"]
MELD_RULES_NAME: Final = {
    "chow": "chi",
    "pong": "pong",
    "kong_exposed": "kong",
    "kong_added": "kong",
    "kong_concealed": "kong",
}


@dataclass
class MeldState:
    kind: MeldName
    tiles: list[int]
    from_seat: int | None  # the discarder; None for 暗槓 (and a 加槓 keeps its pong's)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "tiles": [tile_code(t) for t in self.tiles],
            "ids": list(self.tiles),
            "from_seat": self.from_seat,
        }


@dataclass
class SeatState:
    """One seat's tiles and standing this hand."""

    seat: int
    concealed: list[int] = field(default_factory=list)  # tile ids, in the order taken
    melds: list[MeldState] = field(default_factory=list)
    flowers: list[int] = field(default_factory=list)  # flower tile ids
    river: list[int] = field(default_factory=list)  # discards still lying (claimed ones leave)
    discards_made: int = 0
    owed: int = 0  # replacements owed from the 槓尾 (flowers revealed, kongs)
    owed_passes: list[int] = field(default_factory=list)  # 補花 passes of the flowers owed
    owed_kongs: int = 0  # of `owed`, the kongs' replacements (drawn first)
    dead: bool = False  # 相公
    passed_win: bool = False  # 過水 (D1)
    passed_pongs: set[int] = field(default_factory=set)  # 過碰 (D2), kinds, this go-round
    no_discard: frozenset[int] = frozenset()  # 禁制 6 after a chow or pong
    last_discard_kind: int = -1  # 禁制 6: no chow of it or its 絡 in the same go-round
    declared: str | None = None  # heavenly_ready / earthly_ready
    declaration_void: bool = False  # D7: a passed win voids the declaration's 台
    declared_at: int = -1  # river length when 地聽 was declared
    declared_key: tuple[int, int] | None = None  # (boot_id, seq) of the ready button
    void_declared: str | None = None  # a declaration judged void (D7): public at the end
    shown: set[int] = field(default_factory=set)  # 禁制 8: tile ids shown by own fault
    flagged: set[int] = field(default_factory=set)  # flowers already flagged as kept in hand
    round_discards: set[int] = field(default_factory=set)  # kinds discarded since own discard
    last_drawn: int | None = None  # the last tile this seat drew (its self-draw's winning tile)
    last_from_back: bool = False  # … and whether it came from the 槓尾
    # What the tiles above give, kept until they change (`changed`): every discard asks
    # each other seat whether it wins on it. Class defaults, so an older snapshot's seat
    # (pickled without them) computes them afresh.
    # its play, for the players' statistics (play.py); plain defaults, as above
    ready_round: int | None = None
    turns: int = 0
    turn_ms: int = 0
    turn_began: float | None = None
    _waits: list[int] | None = None
    _counts: list[int] | None = None
    _held: list[int] | None = None
    _complete: bool | None = None

    def counts(self) -> list[int]:
        """The concealed tiles by kind (shared: copy it before changing it)."""
        if self._counts is None:
            self._counts = kind_counts(self.concealed)
        return self._counts

    def held(self) -> list[int]:
        """Every copy the seat holds, melds included (a kind held four times is no wait);
        shared like `counts`."""
        if self._held is None:
            self._held = kind_counts([*self.concealed, *(t for m in self.melds for t in m.tiles)])
        return self._held

    def changed(self) -> None:
        """The seat's tiles moved (its hand or its melds): what they gave is read anew."""
        self._waits = self._counts = self._held = self._complete = None

    def waits(self) -> list[int]:
        """Kinds that complete a 3n+1 hand (假聽 excluded); cached until the hand changes."""
        if self._waits is None:
            self._waits = wait_kinds(self.counts(), self.held())
        return self._waits

    def can_win_with(self, kind: int) -> bool:
        return kind in self.waits() and self.held()[kind] < 4

    def waits_before_win(self, drawn: int) -> list[int]:
        """The waits the hand had before `drawn` arrived (禁制 5 asks what it waited on)."""
        counts = list(self.counts())
        counts[tile_kind(drawn)] -= 1
        held = list(self.held())
        held[tile_kind(drawn)] -= 1
        return wait_kinds(counts, held)

    def shown_in_hand(self) -> list[int]:
        """禁制 8: the kinds of the tiles this seat showed by its own fault and still holds."""
        return [tile_kind(t) for t in self.concealed if t in self.shown]

    def is_complete(self) -> bool:
        if self._complete is None:
            self._complete = is_complete(self.counts())
        return self._complete

    @property
    def size(self) -> int:
        """Hand tiles counted as the rules do: concealed + 3 per meld (a kong's 4th is extra)."""
        playing = sum(1 for t in self.concealed if not is_flower_tile(t))
        return playing + 3 * len(self.melds)

    @property
    def exposed(self) -> bool:
        return any(m.kind != "kong_concealed" for m in self.melds)

    def snapshot(
        self, concealed: bool = False, *, over: bool = False, laid_down: bool = False
    ) -> dict[str, Any]:
        """The seat as the public (or, `concealed`, the referee) may see it; `over`: the
        hand has ended, which reveals what play kept hidden; `laid_down`: this seat ended
        it by laying its hand down (a win, a 詐胡), so everyone sees its tiles."""
        shown = concealed or over
        data: dict[str, Any] = {
            "seat": self.seat,
            "concealed_count": len(self.concealed),
            # An 暗槓 keeps its place in the list (the board draws four backs there) but
            # not its tiles: it is concealed until the hand ends.
            "melds": [
                m.to_json() if shown or m.kind != "kong_concealed" else {"kind": m.kind}
                for m in self.melds
            ],
            "flowers": [f"h{tile_flower(t)}" for t in self.flowers],
            "discards": [tile_code(t) for t in self.river],
            "dead_hand": self.dead,
            "declared": self._declared_as_seen(shown),
            "owed_replacements": self.owed,
        }
        if laid_down:  # the hand that ended it, as laid on the table: public
            data["laid_down"] = [tile_code(t) for t in self.concealed]
        if concealed:  # what only the referee may see: the tiles, and 過水 (it tells a wait)
            data["passed_win"] = self.passed_win
            data["concealed"] = [tile_code(t) for t in self.concealed]
            data["concealed_ids"] = list(self.concealed)
        return data

    def _declared_as_seen(self, shown: bool) -> str | None:
        """D7: a passed win voids a declaration, and one on a hand not ready is void; the
        public learns either at the hand's end (before, it would tell 過水 and so a wait,
        or that the hand is not ready): it still sees the button pressed."""
        if shown:
            return None if self.declaration_void else self.declared
        return self.declared or self.void_declared


@dataclass
class Pending:
    """A discard (or a 加槓 tile) others may still claim."""

    tile: int
    seat: int  # the discarder, or the kong adder
    drawable_then: int  # D12: 禁制 7 counts the drawable tiles when the discard is made
    winners: set[int]  # seats whose hand this tile completes (過水 if they let it go)
    added_kong: bool = False
    next_drew: bool = False  # the next seat has drawn: pongs and kongs are late (D3)
    closed: bool = False  # a 胡 on it is late too (D3)
    chowed_by: int | None = None  # a 吃 shown, not yet followed by its discard (D3)
    # a 碰 or 明槓 made, not yet followed by its discard (or replacement): 胡 still outranks it
    melded_by: int | None = None
    pongs_passed: bool = False  # 過碰 (D2) already given out for this tile


def open_claims(pending: Pending, dead: list[bool]) -> list[list[ClaimKind]]:
    """Each seat's claims on the open discard (or 加槓 tile), by the rules alone and from
    public facts only: never the concealed tiles, so a seat listed may hold nothing to
    claim with. None for the discarder or a 相公 seat, nor once the window has closed (D3).
    吃: the discarder's 下家 alone, on a suited tile, before it draws (§3; none once a 吃 of
    it is shown). 碰/槓: any other seat until the next seat's draw is recorded (D3). Neither
    with three drawable tiles or fewer when the discard was made (禁制 7, D12), nor on a
    加槓 tile (搶槓: 胡 alone). 胡: any other seat while the window is open, but not the
    next seat once it has drawn (its draw let the tile go, D1), nor a seat that has shown
    a 吃 of it. A 碰 or 明槓 made of it leaves 胡 alone to the others until the claimer's
    discard (胡 outranks it)."""
    seats = len(dead)
    after = (pending.seat + 1) % seats
    melds = (
        not pending.added_kong
        and not pending.next_drew
        and pending.melded_by is None
        and pending.drawable_then > NO_CLAIM_DRAWABLE
    )
    chow = melds and pending.chowed_by is None and not is_honour(tile_kind(pending.tile))
    out: list[list[ClaimKind]] = []
    for seat in range(seats):
        claims: list[ClaimKind] = []
        if not (
            pending.closed
            or seat == pending.seat
            or dead[seat]
            or seat == pending.chowed_by
            or seat == pending.melded_by
            or (pending.next_drew and seat == after)
        ):
            if chow and seat == after:
                claims.append("chow")
            if melds:
                claims += ["pong", "kong"]
            claims.append("win")
        out.append(claims)
    return out


@dataclass
class HandState:
    """The tiles of one hand; `where` maps each tile id out of the wall to its place."""

    seats: list[SeatState]
    dealer: int
    phase: Phase = "shuffling"
    wall: int = TILES
    where: dict[int, tuple[str, int]] = field(default_factory=dict)
    dice: tuple[int, int, int] | None = None
    opening_seat: int | None = None
    deal_draws: int = 0
    turn: int = 0
    step: Literal["draw", "discard"] = "draw"
    turn_start: TurnStart = "first"
    kong_this_turn: bool = False
    drawn: int | None = None  # the tile this turn's draw brought (a replacement included)
    drawn_from_back: bool = False
    pending: Pending | None = None
    provisional: dict[int, int] = field(default_factory=dict)  # tile → seat that took it wrongly
    # (kind, body) of an act on a tile the mirror knows is elsewhere, a misread whose re-read
    # is due; then of a misread draw whose re-read came, until the count confirms it
    misread: tuple[str, Any] | None = None
    reread: tuple[str, Any] | None = None
    result: str | None = None  # how it ended, once phase is "over"
    shown_by: int | None = None  # the seat that laid its hand down to end it (a win, a 詐胡)
    unseen: bool = False  # its beginning was not seen: followed, never judged (replay-format)
    flower_pass: dict[int, int] = field(default_factory=dict)  # 補花: a flower's pass (passes.py)
    began: float | None = None  # its shuffle's time (the bridge's), for its length

    @property
    def drawable(self) -> int:
        return drawable(self.wall)

    @property
    def reserve(self) -> int:
        return min(self.wall, RESERVE_TILES)

    def snapshot(self, concealed: bool = False) -> dict[str, Any]:
        """The hand for the public, or (`concealed`) the referee; once it is over the
        public sees its concealed kongs too."""
        over = self.phase == "over"
        return {
            "phase": self.phase,
            "judged": not self.unseen,  # False: not seen from its start, followed only
            "dealer": self.dealer,
            "dice": list(self.dice) if self.dice else None,
            "opening_seat": self.opening_seat,
            "turn": self.turn,
            "step": self.step,
            "tiles_left": self.wall,
            "drawable": self.drawable,
            "reserve": self.reserve,
            "claimable": None
            if self.pending is None or self.pending.closed
            else {
                "tile": tile_code(self.pending.tile),
                "from_seat": self.pending.seat,
                "claims": open_claims(self.pending, [s.dead for s in self.seats]),
            },
            "seats": [
                s.snapshot(concealed, over=over, laid_down=over and s.seat == self.shown_by)
                for s in self.seats
            ],
        }
