"""A scripted table for the mirror's rule tests: hands as text codes in, bridge events out.

    t = Script({0: "1m 1m …17 codes", 1: "…16", 2: "…16", 3: "…16"}, wall="5p 6s", back="C")
    t.discard(0, "9m"); t.draw(1); t.discard(1, "5p"); t.pong(2, 1)

The Script owns a `TableMirror`, gives every code a distinct physical id (copy 0–3 of its
kind; flowers h1–h8 are 136–143), emits the events a real table would (`Event`, boot 1,
seq from 1) and keeps each seat's concealed ids, so `reveal` can lay a hand down. Every
step returns the records the mirror made for it; `records` keeps them all.

Wall accounting is the table's: 144 tiles, every draw (front or back) takes one, and a
`tiles_left` follows each draw; drawable = wall − 16. `burn` plays quick draw/discard
cycles of safe tiles (none completes a hand; pairs are avoided while they can be) down to
a chosen count.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, HandRecord, Record, Violation
from table_service.mirror.rulings import in_force, parse_ruling
from table_service.mirror.session import SessionStart
from table_service.rules.settlement import settle_json
from table_service.rules.shapes import wait_kinds
from table_service.rules.table import RESERVE_TILES, SEATS, TILES
from table_service.rules.tiles import (
    FLOWER_BASE,
    N_KINDS,
    is_flower_tile,
    parse_flower,
    parse_kind,
    tile_code,
    tile_kind,
)

TABLE = "t1"
DEALT = 16
FULL_WALL: Final = {f"stacks_{i}": 18 for i in range(SEATS)}  # wall_built's body: 72 stacks
FLOWER_NAMES: Final = frozenset("春夏秋冬梅蘭菊竹")


# Quiet seats: four quads each, never ready, nothing to claim (their kinds are all held).
# Test hands use the other kinds: 2–4 and 6–8 of each suit.
QUIET: Final = {
    0: "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 5s 5s 5s 5s",
    1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p 9p",
    2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s 9s",
    3: "C C C C F F F F 1m 1m 1m 1m 9m 9m 9m 9m",
}


def quiet(
    hands: Mapping[int, str] | None = None, dealer: int = 0, extra: str = "2m"
) -> dict[int, str]:
    """Dealt hands: `hands` for the seats under test, quiet quads for the rest (a quiet
    dealer gets `extra` as its 門牌, its natural first discard)."""
    out = {s: QUIET[s] + (f" {extra}" if s == dealer else "") for s in range(SEATS)}
    out.update(hands or {})
    return out


def codes(text: str) -> list[str]:
    """ "1m 1m E h3" → ["1m", "1m", "E", "h3"]."""
    return text.split()


class Script:
    """A scripted table: the events of one or more hands, fed to one `TableMirror`."""

    def __init__(
        self,
        hands: Mapping[int, str] | None = None,
        *,
        dealer: int = 0,
        dice: tuple[int, int, int] = (1, 2, 2),
        wall: str = "",
        back: str = "",
        deal: bool = True,
        table: str = TABLE,
        **session: Any,
    ) -> None:
        """`hands`: each seat's dealt codes in dealing order (17 for the dealer, its last is
        the 門牌); `wall`/`back`: the next front and 槓尾 draws; `session`: SessionStart keys.
        The default dice (total 5) make the dealer the 開門位, so the dealer sits 東."""
        self.table = table
        self.session = SessionStart(table=table, dealer=dealer, **session)
        self.mirror = TableMirror(table, self.session)
        self.records: list[Record] = []
        self.events: list[Event] = []
        self.seq = 0
        self.deal_records: list[Record] = []
        self._reset()
        if hands is not None and deal:
            self.deal_records = self.new_hand(hands, dealer=dealer, dice=dice, wall=wall, back=back)

    # --- tiles ---------------------------------------------------------------------

    def _reset(self) -> None:
        self.used: set[int] = set()
        self.concealed: list[list[int]] = [[] for _ in range(SEATS)]
        self.melds: list[list[tuple[str, list[int]]]] = [[] for _ in range(SEATS)]
        self.front: list[int] = []
        self.back: list[int] = []
        self.wall = TILES
        self.offered: int | None = None  # the last discard or 加槓 tile (a claim's tile)
        self.next_seat = 0

    def alloc(self, code: str) -> int:
        """A fresh physical id for a code (the next unused copy)."""
        if code.startswith("h") or code in FLOWER_NAMES:
            tile = FLOWER_BASE + parse_flower(code) - 1
            if tile in self.used:
                raise ValueError(f"flower {code} is already on the table")
        else:
            kind = parse_kind(code)
            free = [kind * 4 + c for c in range(4) if kind * 4 + c not in self.used]
            if not free:
                raise ValueError(f"all four {code} are already on the table")
            tile = free[0]
        self.used.add(tile)
        return tile

    def ids(self, seat: int, text: str) -> list[int]:
        """Ids of `text`'s codes from the seat's concealed tiles (latest taken first)."""
        pool = list(reversed(self.concealed[seat]))
        out: list[int] = []
        for code in codes(text):
            want = self._match(code)
            tile = next((t for t in pool if want(t)), None)
            if tile is None:
                raise ValueError(f"seat {seat} holds no {code}: {self.hand_codes(seat)}")
            pool.remove(tile)
            out.append(tile)
        return out

    @staticmethod
    def _match(code: str) -> Callable[[int], bool]:
        if code.startswith("h") or code in FLOWER_NAMES:
            flower = FLOWER_BASE + parse_flower(code) - 1
            return lambda t: t == flower
        kind = parse_kind(code)
        return lambda t: not is_flower_tile(t) and tile_kind(t) == kind

    def hand_codes(self, seat: int) -> str:
        """The seat's concealed tiles as codes, in the order taken."""
        return " ".join(tile_code(t) for t in self.concealed[seat])

    @property
    def drawable(self) -> int:
        return max(0, self.wall - RESERVE_TILES)

    # --- events --------------------------------------------------------------------

    def emit(self, body: Mapping[str, Any]) -> list[Record]:
        """Feed one event with the next seq; its records."""
        self.seq += 1
        event = Event(
            table=self.table,
            boot_id=1,
            seq=self.seq,
            ts=self.seq / 4,
            body=EVENT_BODY.validate_python(dict(body)),
        )
        return self.feed(event)

    def feed(self, event: Event) -> list[Record]:
        self.events.append(event)
        out = self.mirror.apply(event)
        self.records += out
        return out

    def skip(self, n: int = 1) -> None:
        """Lose the next `n` seqs (a gap)."""
        self.seq += n

    def resend(self, index: int = -1) -> list[Record]:
        """Feed an event already sent again (a duplicate)."""
        return self.feed(self.events[index])

    def finish(self) -> list[Record]:
        out = self.mirror.finish()
        self.records += out
        return out

    # --- a hand --------------------------------------------------------------------

    def new_hand(
        self,
        hands: Mapping[int, str],
        *,
        dealer: int | None = None,
        dice: tuple[int, int, int] = (1, 2, 2),
        wall: str = "",
        back: str = "",
    ) -> list[Record]:
        """Shuffle, build, roll and deal a hand (dealer: the mirror's next dealer by default)."""
        dealer = self.mirror.deal.dealer if dealer is None else dealer
        self._reset()
        dealt = {s: [self.alloc(c) for c in codes(hands[s])] for s in range(SEATS)}
        for s, tiles in dealt.items():
            want = DEALT + 1 if s == dealer else DEALT
            if len(tiles) != want:
                raise ValueError(f"seat {s} is dealt {len(tiles)} tiles, not {want}")
        self.front = [self.alloc(c) for c in codes(wall)]
        self.back = [self.alloc(c) for c in codes(back)]
        out = self.open_hand(dice)
        for r in range(4):
            for k in range(SEATS):
                seat = (dealer + k) % SEATS
                for tile in dealt[seat][4 * r : 4 * r + 4]:
                    out += self._take(seat, tile, "front")
        out += self._take(dealer, dealt[dealer][DEALT], "front")
        self.next_seat = dealer
        return out

    def open_hand(self, dice: tuple[int, int, int] = (1, 2, 2)) -> list[Record]:
        """Shuffle, build a full wall and roll the deal: the events before any tile moves."""
        out = self.emit({"kind": "shuffle_started"})
        out += self.emit({"kind": "shuffle_finished"})
        out += self.emit({"kind": "wall_built", **FULL_WALL})
        d1, d2, d3 = dice
        return out + self.emit(
            {"kind": "dice_rolled", "roll": "deal", "die_1": d1, "die_2": d2, "die_3": d3}
        )

    def _take(
        self, seat: int, tile: int, end: str, count: bool = True, returned: bool = False
    ) -> list[Record]:
        for other in self.concealed:
            if tile in other:
                other.remove(tile)
        self.concealed[seat].append(tile)
        if not returned:
            self.wall -= 1
        out = self.emit({"kind": "tile_drawn", "seat": seat, "tile": tile, "end": end})
        if count:
            out += self.emit({"kind": "tiles_left", "count": self.wall})
        return out

    def draw(
        self,
        seat: int,
        code: str | None = None,
        *,
        tile: int | None = None,
        end: str = "front",
        count: bool = True,
        returned: bool = False,
    ) -> list[Record]:
        """A draw from the front: the next wall tile (a safe one once the queue is empty), a
        fresh `code`, or the id `tile`
        (`returned`: the referee put it back first, so the wall does not shrink twice)."""
        if tile is None:
            tile = self._next(code, self.front)
        return self._take(seat, tile, end, count, returned)

    def _next(self, code: str | None, queue: list[int]) -> int:
        if code is not None:
            return self.alloc(code)
        return queue.pop(0) if queue else self._safe_tile()

    def replacement(self, seat: int, code: str | None = None, *, end: str = "back") -> list[Record]:
        """A replacement from the 槓尾: the next back tile (or a safe one), or a fresh `code`."""
        return self._take(seat, self._next(code, self.back), end)

    def discard(self, seat: int, code: str) -> list[Record]:
        (tile,) = self.ids(seat, code)
        self.concealed[seat].remove(tile)
        self.offered = tile
        self.next_seat = (seat + 1) % SEATS
        return self.emit({"kind": "tile_discarded", "seat": seat, "tile": tile})

    def flower(self, seat: int, code: str) -> list[Record]:
        """補花 / a flower drawn in play laid face up (its replacement is `replacement`)."""
        (tile,) = self.ids(seat, code)
        self.concealed[seat].remove(tile)
        return self.emit({"kind": "flower_revealed", "seat": seat, "tile": tile})

    def button(self, seat: int, button: str) -> list[Record]:
        return self.emit({"kind": "seat_button", "seat": seat, "button": button})

    def _claim(
        self, seat: int, from_seat: int, meld: str, own: str, press: str | None
    ) -> list[Record]:
        assert self.offered is not None, "nothing to claim"
        out = self.button(seat, press) if press else []
        tiles = [self.offered, *self.ids(seat, own)]
        for tile in tiles[1:]:
            self.concealed[seat].remove(tile)
        self.melds[seat].append((meld, tiles))
        self.next_seat = seat
        return out + self.emit(
            {
                "kind": "meld_exposed",
                "seat": seat,
                "meld": meld,
                "from_seat": from_seat,
                "tiles": tiles,
            }
        )

    def chow(self, seat: int, from_seat: int, own: str, *, press: bool = True) -> list[Record]:
        """吃 of the last discard with the two codes `own` from the hand."""
        return self._claim(seat, from_seat, "chow", own, "chow" if press else None)

    def pong(self, seat: int, from_seat: int, *, press: bool = True) -> list[Record]:
        """碰 of the last discard with two of its kind from the hand."""
        code = _code(self.offered)
        return self._claim(seat, from_seat, "pong", f"{code} {code}", "pong" if press else None)

    def kong(
        self,
        seat: int,
        code: str,
        how: str = "exposed",
        from_seat: int = 255,
        *,
        press: bool = True,
    ) -> list[Record]:
        """A kong: `exposed` (碰槓 of the last discard, `from_seat` its discarder),
        `added` (加槓 onto the seat's pong) or `concealed` (暗槓); no replacement drawn."""
        if how == "exposed":
            return self._claim(
                seat, from_seat, "kong_exposed", " ".join([code] * 3), "kong" if press else None
            )
        out = self.button(seat, "kong") if press else []
        if how == "added":
            (tile,) = self.ids(seat, code)
            pong = next(m for m in self.melds[seat] if m[0] == "pong" and _code(m[1][0]) == code)
            self.melds[seat].remove(pong)
            tiles = [*pong[1], tile]
            self.offered = tile
            self.concealed[seat].remove(tile)
            meld = "kong_added"
        else:
            tiles = self.ids(seat, " ".join([code] * 4))
            for tile in tiles:
                self.concealed[seat].remove(tile)
            meld = "kong_concealed"
        self.melds[seat].append((meld, tiles))
        return out + self.emit(
            {"kind": "meld_exposed", "seat": seat, "meld": meld, "from_seat": 255, "tiles": tiles}
        )

    def reveal(self, seat: int, tiles: Sequence[int] | None = None) -> list[Record]:
        """hand_revealed: the seat's concealed ids, the claimed tile added when it is short one."""
        if tiles is None:
            tiles = [t for t in self.concealed[seat] if not is_flower_tile(t)]
            if len(tiles) % 3 == 1 and self.offered is not None:
                tiles.append(self.offered)
        return self.emit({"kind": "hand_revealed", "seat": seat, "tiles": list(tiles)})

    def win(self, seat: int) -> list[Record]:
        """胡 pressed and the hand revealed."""
        return self.button(seat, "win") + self.reveal(seat)

    def shown(self, seat: int, text: str) -> list[Record]:
        """tiles_shown: tiles the seat exposed by its own fault (禁制 8)."""
        return self.emit({"kind": "tiles_shown", "seat": seat, "tiles": self.ids(seat, text)})

    # --- quick play ----------------------------------------------------------------

    def cycle(self, seat: int, code: str | None = None) -> list[Record]:
        """One quick turn: the seat draws (a safe tile, or `code`) and throws it back out."""
        tile = self.alloc(code) if code is not None else self._safe_tile()
        out = self.draw(seat, tile=tile)
        self.concealed[seat].remove(tile)
        self.offered = tile
        self.next_seat = (seat + 1) % SEATS
        return out + self.emit({"kind": "tile_discarded", "seat": seat, "tile": tile})

    def burn(self, to_drawable: int, seat: int | None = None) -> list[Record]:
        """Quick turns from `seat` (default: whoever is next) until `to_drawable` are left."""
        out: list[Record] = []
        seat = self.next_seat if seat is None else seat
        while self.drawable > to_drawable:
            out += self.cycle(seat)
            seat = (seat + 1) % SEATS
        return out

    def _safe_tile(self) -> int:
        """A fresh tile nobody waits on: one nobody holds two of first, fewest held first."""
        counts = [[0] * N_KINDS for _ in range(SEATS)]
        for s in range(SEATS):
            for t in self.concealed[s]:
                if not is_flower_tile(t):
                    counts[s][tile_kind(t)] += 1
        waits: set[int] = set()
        for s in range(SEATS):
            if sum(counts[s]) % 3 == 1:
                waits |= set(wait_kinds(counts[s]))
        best: tuple[tuple[int, int, int], int] | None = None
        for kind in range(N_KINDS):
            free = [kind * 4 + c for c in range(4) if kind * 4 + c not in self.used]
            if not free or kind in waits:
                continue
            paired = any(c[kind] >= 2 for c in counts)  # a pong chance let go: used last
            key = (int(paired), sum(c[kind] for c in counts), -len(free))
            if best is None or key < best[0]:
                best = (key, free[0])
        if best is None:
            raise ValueError("no safe tile left to burn")
        self.used.add(best[1])
        return best[1]

    # --- reading the records -------------------------------------------------------

    def violations(self, records: Sequence[Record] | None = None) -> list[tuple[int, int, str]]:
        """(seq, seat, code) of each violation."""
        recs = self.records if records is None else records
        return [(r.seq, r.seat, r.code) for r in recs if isinstance(r, Violation)]

    def faults(self, records: Sequence[Record] | None = None) -> list[tuple[int, str]]:
        recs = self.records if records is None else records
        return [(r.seq, r.code) for r in recs if isinstance(r, Fault)]

    def hands(self, records: Sequence[Record] | None = None) -> list[HandRecord]:
        recs = self.records if records is None else records
        return [r for r in recs if isinstance(r, HandRecord)]

    def hand(self) -> HandRecord:
        """The one hand record so far."""
        (record,) = self.hands()
        return record

    def seat_state(self, seat: int) -> dict[str, Any]:
        """The mirror's snapshot of one seat, concealed tiles included."""
        hand = self.mirror.snapshot(concealed=True)["hand"]
        assert hand is not None
        return dict(hand["seats"][seat])


def add_the_fourth_7p(t: Script) -> None:
    """After the dealer's 7p: seat 1 pongs it, throws a 9p, a go-round passes, and seat 1
    draws the fourth 7p and adds it to its pong (加槓): where every 搶槓 scene starts."""
    t.pong(1, 0)
    t.discard(1, "9p")
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1, "7p")
    t.kong(1, "7p", "added")


def refold(t: Script, *rulings: Mapping[str, Any]) -> list[Record]:
    """The script's stream folded again from its session's start through a referee's
    rulings (given in log order, ids from 1): what the records become."""
    mirror = TableMirror(t.table)
    ruled = in_force((i + 1, parse_ruling(r)) for i, r in enumerate(rulings))
    out = fold(mirror, "session", None, t.session.model_dump(mode="json"), ruled)
    for event in t.events:
        out += fold(mirror, "event", event, None, ruled)
    return out + mirror.finish()


def settled(record: HandRecord, base: int = 100, per_tai: int = 20) -> list[int]:
    """The nets `mjtable settle` gives for a hand record's result (its own semantics)."""
    if record.kind is None:
        return [0] * SEATS
    request: dict[str, Any] = {
        "stakes": {"base": base, "per_tai": per_tai},
        "dealer": record.dealer,
        "streak": record.streak,
        "kind": record.kind,
        "winner": record.seat,
        "tai": record.tai,
    }
    if record.payer is not None:
        request["payer"] = record.payer
    nets = settle_json(request)["net"]
    assert isinstance(nets, list)
    return [int(n) for n in nets]


def _code(tile: int | None) -> str:
    assert tile is not None
    return tile_code(tile)
