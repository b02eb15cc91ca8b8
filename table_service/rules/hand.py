"""The winning-hand declaration the scorer reads, and its validation from JSON.

The JSON shape is `rules/score-format.md`'s. Validation is strict and names the
field: a scorer that guessed at a typo would pay out the wrong money.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal, cast, get_args

from table_service.rules.switches import Rules
from table_service.rules.tiles import (
    FIRST_HONOUR,
    N_KINDS,
    WINDS,
    TileCodeError,
    kind_code,
    parse_flower,
    parse_kind,
)

MeldKind = Literal["chi", "pong", "kong"]
WinKind = Literal["self_draw", "discard", "robbing_kong"]
Declaration = Literal["heavenly_ready", "earthly_ready"]
Timing = Literal["heavenly_win", "earthly_win", "human_win"]
FlowerWin = Literal["eight_immortals", "seven_rob_one"]

MELD_KINDS: Final = get_args(MeldKind)
WIN_KINDS: Final = get_args(WinKind)
DECLARATIONS: Final = get_args(Declaration)
TIMINGS: Final = get_args(Timing)
FLOWER_WINS: Final = get_args(FlowerWin)
HAND_TILES: Final = 16  # concealed tiles + 3 per meld, before the winning tile


class HandInputError(ValueError):
    """A declaration that is malformed or contradicts itself; `field` names where."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Meld:
    """An exposed (or concealed-kong) set; `tiles` are kinds, sorted."""

    kind: MeldKind
    tiles: tuple[int, ...]
    concealed: bool = False

    @property
    def exposed(self) -> bool:
        """Taken or shown from others' discards: 吃, 碰 or 明槓 (not 暗槓)."""
        return not (self.kind == "kong" and self.concealed)

    @property
    def first(self) -> int:
        return self.tiles[0]


@dataclass(frozen=True, slots=True)
class Hand:
    """One declared win. Flowers are numbers 1–8; winds are 0–3 (東南西北)."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    winning_tile: int | None
    win: WinKind
    flowers: frozenset[int] = frozenset()
    seat_wind: int = 0
    round_wind: int = 0
    dealer: bool = False
    streak: int = 0
    replacement: bool = False
    last_tile: bool = False
    declared: Declaration | None = None
    timing: Timing | None = None
    flower_win: FlowerWin | None = None
    robbed_flower: int | None = None

    @property
    def revealed(self) -> bool:
        """Whether the hand's tiles are given (a flower win may leave them out)."""
        return self.winning_tile is not None

    def counts(self) -> list[int]:
        """Kind counts of the concealed part with the winning tile (the 17th tile)."""
        counts = [0] * N_KINDS
        for kind in self.concealed:
            counts[kind] += 1
        if self.winning_tile is not None:
            counts[self.winning_tile] += 1
        return counts


_KEYS: Final = frozenset(
    {
        "concealed",
        "melds",
        "flowers",
        "winning_tile",
        "win",
        "seat_wind",
        "round_wind",
        "dealer",
        "streak",
        "replacement",
        "last_tile",
        "declared",
        "timing",
        "flower_win",
        "robbed_flower",
    }
)


def parse_hand(data: object, rules: Rules | None = None) -> Hand:
    """Validate a score-format.md declaration; raise HandInputError naming the field.

    The profile's switches (`rules`) decide whether 人胡 and a self-drawn 地胡 need a
    declaration (§7).
    """
    if not isinstance(data, Mapping):
        raise HandInputError("hand", f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(map(str, data)) - _KEYS)
    if unknown:
        raise HandInputError(unknown[0] if unknown[0].strip() else repr(unknown[0]), "unknown key")
    flower_win = _choice(data, "flower_win", FLOWER_WINS, None)
    flowers = _flowers(data.get("flowers", []))
    revealed = flower_win is None or any(k in data for k in ("concealed", "melds", "winning_tile"))
    if revealed:
        concealed = _kinds(_required(data, "concealed"), "concealed")
        melds = _melds(data.get("melds", []) if flower_win else _required(data, "melds"))
        winning_tile = _kind(_required(data, "winning_tile"), "winning_tile")
    else:
        concealed, melds, winning_tile = (), (), None
    win_default = "self_draw" if flower_win else None
    win = _choice(data, "win", WIN_KINDS, win_default)
    if win is None:
        raise HandInputError("win", "missing")
    hand = Hand(
        concealed=concealed,
        melds=melds,
        winning_tile=winning_tile,
        win=cast(WinKind, win),
        flowers=flowers,
        seat_wind=_wind(data, "seat_wind"),
        round_wind=_wind(data, "round_wind"),
        dealer=_bool(data, "dealer"),
        streak=_streak(data),
        replacement=_bool(data, "replacement"),
        last_tile=_bool(data, "last_tile"),
        declared=cast(Declaration | None, _choice(data, "declared", DECLARATIONS, None)),
        timing=cast(Timing | None, _choice(data, "timing", TIMINGS, None)),
        flower_win=cast(FlowerWin | None, flower_win),
        robbed_flower=_robbed_flower(data),
    )
    check_hand(hand, rules)
    return hand


def check_hand(hand: Hand, rules: Rules | None = None) -> None:
    """Tile counts and flag consistency (score-format.md's list of contradictions)."""
    if hand.revealed:
        _check_tiles(hand)
    if hand.win != "self_draw":
        if hand.replacement:
            raise HandInputError("replacement", f"a replacement win is self_draw, not {hand.win}")
        if hand.last_tile:
            raise HandInputError("last_tile", f"a 海底 win must be self_draw, not {hand.win}")
    _check_timing(hand, rules is None or rules.special_wins_need_declaration)
    if hand.declared and any(m.exposed for m in hand.melds):
        raise HandInputError("declared", f"{hand.declared} with a chi, pong or exposed kong meld")
    if hand.robbed_flower is not None and hand.flower_win != "seven_rob_one":
        raise HandInputError("robbed_flower", "only a seven_rob_one flower win robs a flower")
    if hand.flower_win and len(hand.flowers) != 8:
        raise HandInputError("flowers", f"a {hand.flower_win} lists all eight flowers")


def _check_timing(hand: Hand, need_declaration: bool) -> None:
    timing, declared = hand.timing, hand.declared
    if declared == "heavenly_ready" and hand.dealer:
        raise HandInputError("declared", "the dealer cannot declare heavenly_ready (天聽)")
    if timing == "heavenly_win":
        if not hand.dealer:
            raise HandInputError("timing", "heavenly_win (天胡) is the dealer's alone")
        if hand.win != "self_draw":
            raise HandInputError("timing", "heavenly_win (天胡) is self-drawn")
        if declared:
            raise HandInputError("timing", f"heavenly_win (天胡) with a declaration ({declared})")
    elif timing == "human_win" and declared != "earthly_ready":
        if need_declaration or declared is not None:
            raise HandInputError("timing", "human_win (人胡) needs declared: earthly_ready")
        if hand.dealer or hand.win != "discard":
            # §7 special_wins_need_declaration = false: the undeclared 人胡 is this one.
            raise HandInputError(
                "timing", "human_win (人胡) without 地聽 is a non-dealer's win on a discard"
            )
    elif timing == "earthly_win":
        if hand.dealer:
            raise HandInputError("timing", "earthly_win (地胡) is not the dealer's")
        if declared == "earthly_ready":
            raise HandInputError("timing", "earthly_win after earthly_ready is human_win (人胡)")
        if hand.win == "self_draw" and declared != "heavenly_ready" and need_declaration:
            raise HandInputError("timing", "a self-drawn earthly_win needs heavenly_ready")


def _check_tiles(hand: Hand) -> None:
    size = len(hand.concealed) + 3 * len(hand.melds)
    if size != HAND_TILES:
        raise HandInputError(
            "concealed",
            f"{len(hand.concealed)} concealed tiles and {len(hand.melds)} melds make {size} "
            f"hand tiles; a hand has {HAND_TILES} before the winning tile",
        )
    places = [("concealed", hand.concealed)]
    places += [(f"melds[{i}].tiles", meld.tiles) for i, meld in enumerate(hand.melds)]
    if hand.winning_tile is not None:
        places.append(("winning_tile", (hand.winning_tile,)))
    seen = [0] * N_KINDS
    for field, kinds in places:
        for kind in kinds:
            seen[kind] += 1
            if seen[kind] > 4:
                raise HandInputError(field, f"a fifth copy of {kind_code(kind)}")


def _required(data: Mapping[str, object], key: str) -> object:
    if key not in data:
        raise HandInputError(key, "missing")
    return data[key]


def _kind(value: object, field: str) -> int:
    try:
        return parse_kind(value)
    except TileCodeError as exc:
        raise HandInputError(field, str(exc)) from None


def _kinds(value: object, field: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise HandInputError(field, "expected a list of tile codes")
    try:
        return tuple(map(parse_kind, value))
    except TileCodeError:
        for i, v in enumerate(value):  # find the culprit for the message
            _kind(v, f"{field}[{i}]")
        raise


def _flowers(value: object) -> frozenset[int]:
    if not isinstance(value, list):
        raise HandInputError("flowers", "expected a list of flower codes")
    flowers: set[int] = set()
    for i, code in enumerate(value):
        try:
            flower = parse_flower(code)
        except TileCodeError as exc:
            raise HandInputError(f"flowers[{i}]", str(exc)) from None
        if flower in flowers:
            raise HandInputError(f"flowers[{i}]", f"flower h{flower} listed twice")
        flowers.add(flower)
    return frozenset(flowers)


def _melds(value: object) -> tuple[Meld, ...]:
    if not isinstance(value, list):
        raise HandInputError("melds", "expected a list of melds")
    return tuple(_meld(m, f"melds[{i}]") for i, m in enumerate(value))


def _meld(value: object, field: str) -> Meld:
    if not isinstance(value, Mapping):
        raise HandInputError(field, "expected an object with kind and tiles")
    extra = sorted(set(value) - {"kind", "tiles", "concealed"})
    if extra:
        raise HandInputError(f"{field}.{extra[0]}", "unknown key")
    given = value.get("kind")
    if given not in MELD_KINDS:
        raise HandInputError(f"{field}.kind", f"expected chi, pong or kong, got {given!r}")
    kind = cast(MeldKind, given)
    tiles = tuple(sorted(_kinds(value.get("tiles"), f"{field}.tiles")))
    concealed = value.get("concealed", False)
    if not isinstance(concealed, bool):
        raise HandInputError(f"{field}.concealed", f"expected true or false, got {concealed!r}")
    if concealed and kind != "kong":
        raise HandInputError(f"{field}.concealed", f"a {kind} cannot be concealed; only a kong")
    if not _is_meld_shape(kind, tiles):
        shown = " ".join(kind_code(t) for t in tiles)
        raise HandInputError(f"{field}.tiles", f"{shown} is not a {kind}")
    return Meld(kind=kind, tiles=tiles, concealed=concealed)


def _is_meld_shape(kind: str, tiles: tuple[int, ...]) -> bool:
    if kind == "chi":
        if len(tiles) != 3:
            return False
        first, second, third = tiles
        # a run starts at 1–7 of a suit
        return first < FIRST_HONOUR and first % 9 <= 6 and (second, third) == (first + 1, first + 2)
    size = 3 if kind == "pong" else 4
    return len(tiles) == size and len(set(tiles)) == 1


def _choice(
    data: Mapping[str, object], key: str, options: tuple[str, ...], default: str | None
) -> str | None:
    value = data.get(key, default)
    if value is None:
        return None
    if value not in options:
        raise HandInputError(key, f"expected one of {', '.join(options)} or null, got {value!r}")
    return str(value)


def _wind(data: Mapping[str, object], key: str) -> int:
    value = data.get(key, "E")
    try:
        return WINDS.index(parse_kind(value))
    except (TileCodeError, ValueError):
        raise HandInputError(key, f"expected a wind E, S, W or N, got {value!r}") from None


def _bool(data: Mapping[str, object], key: str) -> bool:
    value = data.get(key, False)
    if not isinstance(value, bool):
        raise HandInputError(key, f"expected true or false, got {value!r}")
    return value


def _streak(data: Mapping[str, object]) -> int:
    value = data.get("streak", 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise HandInputError("streak", f"expected a whole number ≥ 0, got {value!r}")
    return value


def _robbed_flower(data: Mapping[str, object]) -> int | None:
    value = data.get("robbed_flower")
    if value is None:
        return None
    try:
        return parse_flower(value)
    except TileCodeError as exc:
        raise HandInputError("robbed_flower", str(exc)) from None
