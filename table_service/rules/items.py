"""The 台 table (taiwan16.md §4) as data: one row per item.

Each row has its id, Chinese and English names, 台 per occurrence, a predicate returning how
many times it occurs in a hand's `Facts`, and the items it excludes. The
assembler (`scoring.py`) adds every matching row and drops whatever a matching
row excludes; a rule profile changes only row values. Exclusions that hold per
flower colour (花槓 replaces *that colour's* 花牌) live in the predicate, since
they are not whole items.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple, TypedDict

from table_service.rules.hand import Declaration, FlowerWin, Timing, WinKind
from table_service.rules.shapes import SetShape
from table_service.rules.switches import Rules
from table_service.rules.tiles import EAST, NORTH, RED


class Facts(NamedTuple):
    """What the 台 predicates may look at: one reading of one declared win.

    Counts are computed once per reading, so each predicate is a cheap lookup (a
    NamedTuple because the assembler builds one per reading on the hot path).
    """

    # The reading: five sets (melds included) and the pair.
    sequences: int
    triplets: tuple[int, ...]  # kinds of the triplets and kongs
    concealed_triplets: int  # 暗坎, 暗槓 included (I2: a triplet a discard finished is not)
    exposed: int  # 吃, 碰, 明槓 melds
    melded: int  # melds of any kind, 暗槓 included
    pair: int  # kind of the pair; -1 for a 嚦咕嚦咕 reading
    lik_gu: bool
    sets: tuple[SetShape, ...]  # the concealed part's sets (where the winning tile went)
    # The hand, the same for every reading.
    suits: int  # how many of 萬 筒 索 appear
    has_honour: bool
    win: WinKind
    waits: int  # number of kinds the hand waited on (I3, I8)
    single_tile_left: bool
    flowers: int  # how many flowers score (a robbed flower is left out)
    seat_flowers: int  # flowers matching the seat position, outside complete colours
    all_seat_flowers: int  # flowers matching the seat position, complete colours included
    flower_kongs: int  # complete colours (four seasons, four plants)
    seat_wind: int  # kind of the seat wind
    round_wind: int  # kind of the round wind
    replacement: bool
    last_tile: bool
    declared: Declaration | None
    timing: Timing | None
    flower_win: FlowerWin | None
    winning_tile: int


class HandFacts(TypedDict):
    """The Facts every reading of a hand shares (suits … winning_tile), counted once a
    hand and given to each reading's Facts by name."""

    suits: int
    has_honour: bool
    win: WinKind
    waits: int
    single_tile_left: bool
    flowers: int
    seat_flowers: int
    all_seat_flowers: int
    flower_kongs: int
    seat_wind: int
    round_wind: int
    replacement: bool
    last_tile: bool
    declared: Declaration | None
    timing: Timing | None
    flower_win: FlowerWin | None
    winning_tile: int


class Item(NamedTuple):
    id: str
    name: str  # Chinese, as §4 writes it
    en: str  # English
    tai: int
    occurs: Callable[[Facts, Rules], int]  # how many times, under the profile's switches
    excludes: frozenset[str] = frozenset()


def _n(flag: bool) -> int:
    return 1 if flag else 0


def _dragon_triplets(f: Facts, r: Rules | None = None) -> int:
    return sum(1 for k in f.triplets if k >= RED)


def _wind_triplets(f: Facts) -> int:
    return sum(1 for k in f.triplets if EAST <= k <= NORTH)


def _ping_hu(f: Facts, r: Rules) -> int:
    """平胡: five sequences and a pair, on a discard; the rest is the profile's (§7)."""
    if f.sequences != 5 or f.win == "self_draw":
        return 0
    if f.has_honour and not r.ping_hu_honour_pair:  # five sequences: an honour is the pair
        return 0
    if f.flowers and not r.ping_hu_flowers:
        return 0
    if not f.exposed and not r.ping_hu_with_concealed:
        return 0
    if r.ping_hu_wait == "any":
        return 1
    if f.waits < 2:  # every other mode: a single wait (I3) never has 平胡
        return 0
    return _n(_PING_HU_WAIT[r.ping_hu_wait](f))


def _two_sided(w: int, low: int) -> bool:
    """Whether `w` is the outer tile of a two-sided sequence starting at `low` (not 1-2+3,
    not 8-9+7, not the middle)."""
    return (w == low and low % 9 != 6) or (w == low + 2 and low % 9 != 0)


def _places(f: Facts) -> list[int]:
    """Where the winning tile can sit in this reading: the lowest kind of each sequence
    holding it, and -1 for the pair."""
    w = f.winning_tile
    places = [k for k, seq in f.sets if seq and k <= w <= k + 2]
    return [*places, -1] if f.pair == w else places


def _every_place_two_sided(f: Facts) -> bool:
    return all(p >= 0 and _two_sided(f.winning_tile, p) for p in _places(f))


def _some_place_two_sided(f: Facts) -> bool:
    return any(p >= 0 and _two_sided(f.winning_tile, p) for p in _places(f))


def _not_only_the_pair(f: Facts) -> bool:
    """§7 `not_pair`: read like I2, a tile that can complete a sequence is credited there."""
    return any(p >= 0 for p in _places(f))


# `ping_hu_wait` modes beyond the whole hand's wait (§7), on the reading scored.
_PING_HU_WAIT: Final[dict[str, Callable[[Facts], bool]]] = {
    "whole_hand": lambda f: True,
    "two_sided_tile": _every_place_two_sided,
    "two_sided_reading": _some_place_two_sided,
    "not_pair": _not_only_the_pair,
}


def _single_wait(f: Facts, r: Rules) -> int:
    if f.waits != 1:
        return 0
    return _n(r.all_melded_single_wait or f.exposed < 5)


def _seat_flowers(f: Facts, r: Rules) -> int:
    return f.all_seat_flowers if r.flower_kong_keeps_seat_flower else f.seat_flowers


# The items a 嚦咕嚦咕 keeps beside itself (§4, row lik_gu); it excludes all others.
_LIK_GU_KEEPS: Final = frozenset(
    {
        "lik_gu", "seat_flower", "flower_kong", "all_flowers", "seat_wind_pong",
        "round_wind_pong", "dragon_pong", "half_flush", "full_flush", "concealed_self_draw",
    }
)  # fmt: skip

_ROWS: Final[tuple[Item, ...]] = (
    Item(
        "seat_wind_pong", "風字坎", "seat wind pong", 1, lambda f, r: f.triplets.count(f.seat_wind)
    ),
    Item(
        "round_wind_pong",
        "風字坎",
        "round wind pong",
        1,
        lambda f, r: f.triplets.count(f.round_wind),
    ),
    Item("dragon_pong", "箭字坎", "dragon pong", 1, _dragon_triplets),
    Item("concealed", "門清", "concealed hand", 1, lambda f, r: _n(not f.exposed)),
    Item(
        "concealed_self_draw",
        "不求.自摸",
        "concealed self-draw",
        2,
        lambda f, r: _n(not f.exposed and f.win == "self_draw"),
        frozenset({"self_draw"}),
    ),
    Item(
        "all_melded",
        "全求",
        "all melded",
        2,
        lambda f, r: _n(f.single_tile_left and f.exposed == 5 and f.win != "self_draw"),
    ),
    Item(
        "half_melded",
        "半求",
        "half melded",
        1,
        lambda f, r: _n(
            f.single_tile_left and f.melded == 5 and f.exposed > 0 and f.win == "self_draw"
        ),
    ),
    Item("ping_hu", "平胡", "all chows", 2, _ping_hu),
    Item("all_pongs", "對對胡", "all pongs", 4, lambda f, r: _n(not f.sequences)),
    Item("single_wait", "獨聽", "single wait", 1, _single_wait),
    Item("robbing_kong", "搶槓", "robbing the kong", 1, lambda f, r: _n(f.win == "robbing_kong")),
    Item(
        "all_honors",
        "字一色",
        "all honours",
        16,
        lambda f, r: _n(not f.suits and not f.lik_gu),
        frozenset({"all_pongs"}),
    ),
    Item(
        "full_flush", "清一色", "full flush", 12, lambda f, r: _n(f.suits == 1 and not f.has_honour)
    ),
    Item("half_flush", "湊一色", "half flush", 4, lambda f, r: _n(f.suits == 1 and f.has_honour)),
    Item(
        "three_concealed_pongs",
        "三暗坎",
        "three concealed pongs",
        2,
        lambda f, r: _n(f.concealed_triplets >= 3),
    ),
    Item(
        "four_concealed_pongs",
        "四暗坎",
        "four concealed pongs",
        5,
        lambda f, r: _n(f.concealed_triplets >= 4),
        frozenset({"three_concealed_pongs"}),
    ),
    Item(
        "five_concealed_pongs",
        "五暗坎",
        "five concealed pongs",
        13,
        lambda f, r: _n(f.concealed_triplets == 5),
        frozenset({"four_concealed_pongs", "three_concealed_pongs", "concealed", "all_pongs"}),
    ),
    Item(
        "big_four_winds",
        "大四喜",
        "big four winds",
        16,
        lambda f, r: _n(_wind_triplets(f) == 4),
        frozenset({"seat_wind_pong", "round_wind_pong"}),
    ),
    Item(
        "small_four_winds",
        "小四喜",
        "small four winds",
        8,
        lambda f, r: _n(_wind_triplets(f) == 3 and EAST <= f.pair <= NORTH),
    ),
    Item(
        "big_three_dragons",
        "大三元",
        "big three dragons",
        8,
        lambda f, r: _n(_dragon_triplets(f) == 3),
        frozenset({"dragon_pong"}),
    ),
    Item(
        "small_three_dragons",
        "小三元",
        "small three dragons",
        4,
        lambda f, r: _n(_dragon_triplets(f) == 2 and f.pair >= RED),
        frozenset({"dragon_pong"}),
    ),
    Item("self_draw", "自摸", "self-draw", 1, lambda f, r: _n(f.win == "self_draw")),
    Item("kong_bloom", "槓上開花", "win on a replacement", 1, lambda f, r: _n(f.replacement)),
    Item("last_tile", "海底撈月", "last tile", 1, lambda f, r: _n(f.last_tile)),
    Item("seat_flower", "花牌", "seat flower", 1, _seat_flowers),
    Item("flower_kong", "花槓", "flower kong", 2, lambda f, r: f.flower_kongs),
    Item(
        "all_flowers",
        "滿花",
        "all flowers",
        8,
        lambda f, r: _n(f.flowers == 8),
        frozenset({"seat_flower", "flower_kong"}),
    ),
    Item(
        "eight_immortals",
        "八仙過海",
        "eight immortals",
        8,
        lambda f, r: _n(f.flower_win == "eight_immortals"),
    ),
    Item(
        "seven_rob_one",
        "七搶一",
        "seven rob one",
        8,
        lambda f, r: _n(f.flower_win == "seven_rob_one"),
    ),
    Item(
        "heavenly_ready",
        "天聽",
        "heavenly ready",
        8,
        lambda f, r: _n(f.declared == "heavenly_ready"),
        frozenset({"concealed"}),
    ),
    Item(
        "earthly_ready",
        "地聽",
        "earthly ready",
        4,
        lambda f, r: _n(f.declared == "earthly_ready"),
        frozenset({"concealed"}),
    ),
    Item(
        "heavenly_win",
        "天胡",
        "heavenly win",
        16,
        lambda f, r: _n(f.timing == "heavenly_win"),
        frozenset(
            {
                "concealed",
                "concealed_self_draw",
                "self_draw",
                "single_wait",
                "ping_hu",
                "kong_bloom",
            }
        ),
    ),
    Item(
        "earthly_win",
        "地胡",
        "earthly win",
        16,
        lambda f, r: _n(f.timing == "earthly_win"),
        frozenset({"heavenly_ready", "concealed"}),
    ),
    Item(
        "human_win",
        "人胡",
        "human win",
        8,
        lambda f, r: _n(f.timing == "human_win"),
        frozenset({"earthly_ready", "concealed"}),
    ),
    Item(
        "all_honors_overlap",
        "字一色減計",
        "all honours overlap",
        -4,
        lambda f, r: _n(not f.suits and not f.lik_gu),
    ),
    Item("lik_gu", "嚦咕嚦咕", "seven pairs and a pong", 8, lambda f, r: _n(f.lik_gu)),
)


def _with_lik_gu_exclusions(rows: tuple[Item, ...]) -> tuple[Item, ...]:
    """嚦咕嚦咕 keeps only its listed companions: declare the rest as its exclusions."""
    drop = frozenset(r.id for r in rows) - _LIK_GU_KEEPS
    return tuple(r._replace(excludes=drop) if r.id == "lik_gu" else r for r in rows)


ITEMS: Final = _with_lik_gu_exclusions(_ROWS)
ITEM_IDS: Final = tuple(item.id for item in ITEMS)
ITEM_BY_ID: Final = {item.id: item for item in ITEMS}


# Exclusions a switch lifts (§7): (switch, the value that lifts, row, ids it no longer excludes).
LIFTED: Final = (
    ("five_concealed_exclusive", False, "five_concealed_pongs",
     frozenset({"concealed", "all_pongs"})),
    ("all_honors_with_all_pongs", True, "all_honors", frozenset({"all_pongs"})),
    ("kong_bloom_with_heavenly_win", True, "heavenly_win", frozenset({"kong_bloom"})),
)  # fmt: skip
# Rows a switch removes when false (§7 `half_melded`, `all_honors_overlap`).
SWITCHED_ROWS: Final = frozenset({"half_melded", "all_honors_overlap"})


class DealerItem(NamedTuple):
    id: str
    name: str  # Chinese, as §4 writes it
    en: str  # English
    tai: int


# 作莊 and 連N拉N are §4 items valued in a profile too, but they are dealer 台 (§6):
# never rows of a hand's 牌面. Their default values sit after 對對胡, as in §4.
DEALER_ITEMS: Final = (
    DealerItem("dealer", "作莊", "dealer", 1),
    DealerItem("streak", "連N拉N", "dealer streak (per N)", 2),
)
_DEALER_TAI: Final = {d.id: d.tai for d in DEALER_ITEMS}


def _default_tai() -> dict[str, int]:
    out: dict[str, int] = {}
    for row in ITEMS:
        out[row.id] = row.tai
        if row.id == "all_pongs":
            out |= _DEALER_TAI
    return out


DEFAULT_TAI: Final = _default_tai()  # every §4 id and its value (one unit), §4 order


def negative_item(item: str) -> bool:
    """Whether an item's value is an amount taken off (字一色減計)."""
    return DEFAULT_TAI[item] < 0
