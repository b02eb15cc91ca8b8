"""Tile kinds, flowers and their text codes (taiwan16.md §1).

A tile kind is an int 0–33: 0–8 萬 1m–9m, 9–17 筒 1p–9p, 18–26 索 1s–9s, then
27 東 E, 28 南 S, 29 西 W, 30 北 N, 31 中 C, 32 發 F, 33 白 P. Flowers are ints 1–8
(h1–h8) and never mix with kinds: they live in their own fields. Ints, not
objects, because the hot paths index count vectors by kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal, get_args

N_KINDS: Final = 34
FIRST_HONOUR: Final = 27
EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
RED, GREEN, WHITE = 31, 32, 33
WINDS: Final = (EAST, SOUTH, WEST, NORTH)
# A wind as the declarations, the records, the API and the pages write it (東南西北)
Wind = Literal["E", "S", "W", "N"]
WIND_CODES: Final[tuple[Wind, ...]] = get_args(Wind)
DRAGONS: Final = (RED, GREEN, WHITE)

_SUIT_LETTERS: Final = "mps"
_HONOUR_CODES: Final = "ESWNCFP"
_HONOUR_NAMES: Final = "東南西北中發白"
_FLOWER_NAMES: Final = "春夏秋冬梅蘭菊竹"
_NUMERALS: Final = "一二三四五六七八九"
_SUIT_CHARS: Final = {"萬": 0, "万": 0, "筒": 1, "餅": 1, "饼": 1, "索": 2, "條": 2, "条": 2}
_HONOUR_ALIASES: Final = {"东": EAST, "发": GREEN, "發": GREEN, "紅中": RED, "红中": RED}


class TileCodeError(ValueError):
    """A text that names no tile, or names a flower where a kind is needed (or back)."""


def _build_kind_codes() -> dict[str, int]:
    codes: dict[str, int] = {}
    for suit, letter in enumerate(_SUIT_LETTERS):
        for n in range(1, 10):
            codes[f"{n}{letter}"] = suit * 9 + n - 1
    for i, (code, name) in enumerate(zip(_HONOUR_CODES, _HONOUR_NAMES, strict=True)):
        codes[code] = FIRST_HONOUR + i
        codes[name] = FIRST_HONOUR + i
    for char, suit in _SUIT_CHARS.items():
        for n in range(1, 10):
            codes[f"{n}{char}"] = suit * 9 + n - 1
            codes[f"{_NUMERALS[n - 1]}{char}"] = suit * 9 + n - 1
    codes.update(_HONOUR_ALIASES)
    return codes


def _build_flower_codes() -> dict[str, int]:
    codes: dict[str, int] = {}
    for k in range(1, 9):
        codes[f"h{k}"] = k
        codes[_FLOWER_NAMES[k - 1]] = k
    return codes


_KIND_CODES: Final = _build_kind_codes()
_FLOWER_CODES: Final = _build_flower_codes()
KIND_CODE: Final = tuple(
    [f"{n}{letter}" for letter in _SUIT_LETTERS for n in range(1, 10)] + list(_HONOUR_CODES)
)


def parse_kind(text: object) -> int:
    """The kind a code or Chinese alias names; flowers are refused (they are not kinds)."""
    kind = _KIND_CODES.get(text) if isinstance(text, str) else None
    if kind is not None:
        return kind
    if not isinstance(text, str):
        raise TileCodeError(f"expected a tile code string, got {text!r}")
    kind = _KIND_CODES.get(text.strip())
    if kind is None:
        if text.strip() in _FLOWER_CODES:
            raise TileCodeError(f"flower {text!r} is not a playing tile (list it in flowers)")
        raise TileCodeError(f"unknown tile code {text!r}")
    return kind


def parse_flower(text: object) -> int:
    """The flower number 1–8 a code (h1–h8) or name (春…竹) names."""
    if not isinstance(text, str):
        raise TileCodeError(f"expected a flower code string, got {text!r}")
    flower = _FLOWER_CODES.get(text.strip())
    if flower is None:
        if text.strip() in _KIND_CODES:
            raise TileCodeError(f"{text!r} is a playing tile, not a flower")
        raise TileCodeError(f"unknown flower code {text!r}")
    return flower


def kind_code(kind: int) -> str:
    """The canonical text code of a kind (`5m`, `E`, `C`)."""
    return KIND_CODE[kind]


def flower_code(flower: int) -> str:
    return f"h{flower}"


def wind_code(wind: int) -> str:
    """Wind 0–3 (東南西北) as its code."""
    return _HONOUR_CODES[wind]


def is_honour(kind: int) -> bool:
    return kind >= FIRST_HONOUR


def suit_of(kind: int) -> int:
    """0 萬, 1 筒, 2 索, 3 honours."""
    return kind // 9 if kind < FIRST_HONOUR else 3


def flower_position(flower: int) -> int:
    """The seat position 1–4 a flower belongs to (春1 夏2 秋3 冬4, 梅1 蘭2 菊3 竹4)."""
    return (flower - 1) % 4 + 1


def flower_colour(flower: int) -> int:
    """0 for the seasons h1–h4, 1 for the plants h5–h8."""
    return (flower - 1) // 4


# --- physical tiles (docs/protocol.md §4.1) -------------------------------------------
# The table's 144 tiles have ids: 0–135 are kind × 4 + copy, 136–143 the flowers h1–h8.
# One mapping for the wire, the simulator, the mirror and the rules.

TILE_IDS: Final = 144
FLOWER_BASE: Final = 136


def tile_kind(tile: int) -> int:
    """The kind 0–33 of a playing tile id (a flower id has none: check `is_flower_tile`)."""
    return tile // 4


def is_flower_tile(tile: int) -> bool:
    return tile >= FLOWER_BASE


def tile_flower(tile: int) -> int:
    """The flower number 1–8 (h1–h8) of a flower tile id."""
    return tile - FLOWER_BASE + 1


def tile_code(tile: int) -> str:
    """A tile id as its text code: `5m` for a playing tile, `h3` for a flower."""
    return flower_code(tile_flower(tile)) if is_flower_tile(tile) else kind_code(tile_kind(tile))


def kind_counts(tiles: Iterable[int]) -> list[int]:
    """The count vector by kind of some physical tiles (flowers are not counted)."""
    counts = [0] * N_KINDS
    for tile in tiles:
        if tile < FLOWER_BASE:
            counts[tile // 4] += 1
    return counts
