"""A seat's tiles during a hand, and the bot's choices over them."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.protocol.catalogue import MeldKind
from table_service.rules.shapes import is_complete, wait_kinds
from table_service.rules.tiles import N_KINDS, kind_code, kind_counts, tile_flower, tile_kind
from table_sim.strategy import best_discards, shanten

MELD_CODES = {
    MeldKind.CHOW: "chi",
    MeldKind.PONG: "pong",
    MeldKind.KONG_EXPOSED: "kong",
    MeldKind.KONG_ADDED: "kong",
    MeldKind.KONG_CONCEALED: "kong",
}


@dataclass
class MeldRecord:
    kind: MeldKind
    tiles: list[int]
    from_seat: int

    def to_json(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": MELD_CODES[self.kind],
            "tiles": [kind_code(tile_kind(t)) for t in self.tiles],
        }
        if self.kind == MeldKind.KONG_CONCEALED:
            data["concealed"] = True
        return data


@dataclass
class Player:
    """One seat's hand. Tiles are physical ids; decisions look at kinds."""

    seat: int
    hand: list[int] = field(default_factory=list)
    melds: list[MeldRecord] = field(default_factory=list)
    flowers: list[int] = field(default_factory=list)
    discards: list[int] = field(default_factory=list)
    declared: str | None = None
    declaration_void: bool = False  # D7: a win passed after declaring
    declared_at: int = -1  # discard index of an 地聽 declaration
    passed_win: bool = False  # 過水 (D1)
    passed_pongs: set[int] = field(default_factory=set)  # 過碰 (D2), this go-round
    no_discard: frozenset[int] = frozenset()  # 禁制 6 after a chow or pong
    last_discard_kind: int = -1
    dead: bool = False  # 相公: may only draw and discard, never claim, win or declare
    void_declared: bool = False  # a void 天聽/地聽 was pressed (injected once per hand)
    shown: set[int] = field(default_factory=set)  # 禁制 8: kinds shown by its own fault
    dazi: tuple[int, ...] = ()  # 禁制 8: a 搭子 (tile ids) shown by its own fault, its wait's

    @property
    def sets_needed(self) -> int:
        return 5 - len(self.melds)

    @property
    def exposed(self) -> bool:
        return any(m.kind != MeldKind.KONG_CONCEALED for m in self.melds)

    def counts(self) -> list[int]:
        return kind_counts(self.hand)

    def held(self) -> list[int]:
        return kind_counts([*self.hand, *(t for m in self.melds for t in m.tiles)])

    def waits(self) -> list[int]:
        """Kinds that complete the hand now (the hand holds 3n+1 tiles)."""
        return wait_kinds(self.counts(), self.held())

    def can_win_with(self, kind: int) -> bool:
        counts = self.counts()
        held = self.held()
        if held[kind] >= 4:
            return False
        return kind in wait_kinds(counts, held)

    def is_complete(self) -> bool:
        """The hand (3n+2 tiles) reads as sets and a pair."""
        return is_complete(self.counts())

    def take(self, kind: int, n: int = 1) -> list[int]:
        """Remove n tiles of a kind from the concealed hand and return their ids."""
        taken = [t for t in self.hand if tile_kind(t) == kind][:n]
        assert len(taken) == n, (kind, n, self.hand)
        for t in taken:
            self.hand.remove(t)
        return taken

    def choose_discard(self, drawn: int | None) -> int:
        """The tile id to discard. A declared ready hand must throw the drawn tile."""
        if self.declared and drawn is not None and drawn in self.hand:
            return drawn
        counts = self.counts()
        allowed = [k for k in range(N_KINDS) if counts[k] and k not in self.no_discard]
        if not allowed:
            allowed = [k for k in range(N_KINDS) if counts[k]]
        kind = best_discards(counts, self.sets_needed, allowed)[0]
        return next(t for t in reversed(self.hand) if tile_kind(t) == kind)

    def shanten_after_best_discard(self, sets_needed: int, counts: list[int]) -> int:
        best = 99
        for kind in range(N_KINDS):
            if counts[kind]:
                counts[kind] -= 1
                best = min(best, shanten(counts, sets_needed))
                counts[kind] += 1
        return best

    def wants_pong(self, kind: int) -> bool:
        counts = self.counts()
        if counts[kind] < 2 or self.declared or self.dead or kind in self.passed_pongs:
            return False
        now = shanten(counts, self.sets_needed)
        counts[kind] -= 2
        after = self.shanten_after_best_discard(self.sets_needed - 1, counts)
        return after < now

    def wants_kong_from_discard(self, kind: int) -> bool:
        counts = self.counts()
        if counts[kind] < 3 or self.declared or self.dead:
            return False
        now = shanten(counts, self.sets_needed)
        counts[kind] -= 3
        return shanten(counts, self.sets_needed - 1) <= now

    def chow_choice(self, kind: int) -> int | None:
        """The lowest kind of the best chow of `kind`, if chowing helps."""
        if self.declared or self.dead:
            return None
        now = shanten(self.counts(), self.sets_needed)
        return self.best_chow(kind, better_than=now)

    def chow_options(self, kind: int) -> list[int]:
        """The lowest kinds of the sequences `kind` makes with two hand tiles (禁制 6 kept:
        not the tile this seat just discarded, nor its 絡; 禁制 8 kept: no tile of a kind
        it showed)."""
        if kind >= 27:
            return []
        last = self.last_discard_kind
        if 0 <= last < 27 and last // 9 == kind // 9 and abs(kind - last) in (0, 3):
            return []
        counts = self.counts()
        options = []
        for low in (kind - 2, kind - 1, kind):
            if low < 0 or low // 9 != kind // 9 or low % 9 > 6:
                continue
            own = [k for k in (low, low + 1, low + 2) if k != kind]
            if all(counts[k] for k in own) and not self.shown.intersection(own):
                options.append(low)
        return options

    def best_chow(self, kind: int, better_than: int = 99) -> int | None:
        """Of `chow_options`, the one leaving the hand closest to ready (first of equals),
        if it leaves the shanten below `better_than`; the default takes any."""
        best: tuple[int, int] | None = None
        counts = self.counts()
        for low in self.chow_options(kind):
            others = [k for k in (low, low + 1, low + 2) if k != kind]
            for k in others:
                counts[k] -= 1
            after = self.shanten_after_best_discard(self.sets_needed - 1, counts)
            for k in others:
                counts[k] += 1
            if after < better_than and (best is None or after < best[0]):
                best = (after, low)
        return None if best is None else best[1]

    def concealed_kong_kind(self) -> int | None:
        """A kind held four times whose kong does not set the hand back."""
        counts = self.counts()
        for kind in range(N_KINDS):
            if counts[kind] == 4:
                now = shanten(counts, self.sets_needed)
                counts[kind] -= 4
                later = shanten(counts, self.sets_needed - 1)
                counts[kind] += 4
                if later <= now:
                    return kind
        return None

    def added_kong_tile(self) -> int | None:
        """A hand tile that completes one of this seat's exposed pongs."""
        pongs = {tile_kind(m.tiles[0]) for m in self.melds if m.kind == MeldKind.PONG}
        return next((t for t in self.hand if tile_kind(t) in pongs), None)

    def flower_numbers(self) -> list[int]:
        return [tile_flower(t) for t in self.flowers]
