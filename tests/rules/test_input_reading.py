"""Reading the input: declarations and tile codes (score-format.md), tile ids (protocol.md §4.1).

Found by mutation testing (bench/mutation.py). Error messages are part of the interface
(`mjtable score` prints them): each is literal.
"""

from __future__ import annotations

from typing import Any

import pytest

from table_service.rules import Hand, HandInputError, Meld, Rules, parse_hand, tiles
from table_service.rules import hand as hand_module
from table_service.rules.tiles import (
    WIND_CODES,
    TileCodeError,
    flower_code,
    flower_colour,
    flower_position,
    is_flower_tile,
    is_honour,
    kind_code,
    kind_counts,
    parse_flower,
    parse_kind,
    suit_of,
    tile_code,
    tile_flower,
    tile_kind,
    wind_code,
)
from tests.rules.kit_notation import hand


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("1m", 0), ("9m", 8), ("1p", 9), ("9p", 17), ("1s", 18), ("9s", 26),
        ("E", 27), ("S", 28), ("W", 29), ("N", 30), ("C", 31), ("F", 32), ("P", 33),
        ("東", 27), ("南", 28), ("西", 29), ("北", 30), ("中", 31), ("發", 32), ("白", 33),
        ("东", 27), ("发", 32), ("紅中", 31), ("红中", 31),
        ("1萬", 0), ("一萬", 0), ("九萬", 8), ("5万", 4), ("五万", 4),
        ("1筒", 9), ("九筒", 17), ("3餅", 11), ("三饼", 11),
        ("1索", 18), ("九索", 26), ("7條", 24), ("七条", 24),
        (" 5m ", 4), (" 白\n", 33),
    ],
)  # fmt: skip
def test_kind_codes_and_aliases(code: str, kind: int) -> None:
    """§1 / score-format.md: 0–8 萬, 9–17 筒, 18–26 索, 27–33 東南西北中發白; Chinese aliases."""
    assert parse_kind(code) == kind


@pytest.mark.parametrize(
    ("code", "flower"),
    [("h1", 1), ("h8", 8), ("春", 1), ("夏", 2), ("秋", 3), ("冬", 4),
     ("梅", 5), ("蘭", 6), ("菊", 7), ("竹", 8), (" h3 ", 3)],
)  # fmt: skip
def test_flower_codes_and_names(code: str, flower: int) -> None:
    assert parse_flower(code) == flower


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (5, "expected a tile code string, got 5"),
        (None, "expected a tile code string, got None"),
        ("h1", "flower 'h1' is not a playing tile (list it in flowers)"),
        (" 竹", "flower ' 竹' is not a playing tile (list it in flowers)"),
        ("0m", "unknown tile code '0m'"),
        ("10m", "unknown tile code '10m'"),
        ("", "unknown tile code ''"),
    ],
)
def test_kind_code_errors(text: object, message: str) -> None:
    with pytest.raises(TileCodeError) as info:
        parse_kind(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (1, "expected a flower code string, got 1"),
        ("5m", "'5m' is a playing tile, not a flower"),
        ("中 ", "'中 ' is a playing tile, not a flower"),
        ("h9", "unknown flower code 'h9'"),
        ("h0", "unknown flower code 'h0'"),
    ],
)
def test_flower_code_errors(text: object, message: str) -> None:
    with pytest.raises(TileCodeError) as info:
        parse_flower(text)
    assert str(info.value) == message


def test_codes_back_from_kinds_flowers_and_winds() -> None:
    assert [kind_code(k) for k in (0, 8, 9, 17, 18, 26)] == ["1m", "9m", "1p", "9p", "1s", "9s"]
    assert "".join(kind_code(k) for k in range(27, 34)) == "ESWNCFP"
    assert len(tiles.KIND_CODE) == tiles.N_KINDS == 34
    assert [flower_code(f) for f in (1, 8)] == ["h1", "h8"]
    assert "".join(wind_code(w) for w in range(4)) == "ESWN"


def test_kind_constants() -> None:
    assert (tiles.FIRST_HONOUR, tiles.WINDS, tiles.DRAGONS) == (27, (27, 28, 29, 30), (31, 32, 33))
    assert (tiles.EAST, tiles.SOUTH, tiles.WEST, tiles.NORTH) == (27, 28, 29, 30)
    assert (tiles.RED, tiles.GREEN, tiles.WHITE) == (31, 32, 33)


def test_suits_and_honours_at_their_edges() -> None:
    assert [suit_of(k) for k in (0, 8, 9, 17, 18, 26, 27, 33)] == [0, 0, 1, 1, 2, 2, 3, 3]
    assert [is_honour(k) for k in (26, 27, 33)] == [False, True, True]


def test_flower_positions_and_colours() -> None:
    """春1 夏2 秋3 冬4, 梅1 蘭2 菊3 竹4; seasons h1–h4 are colour 0, plants h5–h8 colour 1."""
    assert [flower_position(f) for f in range(1, 9)] == [1, 2, 3, 4, 1, 2, 3, 4]
    assert [flower_colour(f) for f in range(1, 9)] == [0, 0, 0, 0, 1, 1, 1, 1]


def test_physical_tile_ids() -> None:
    """protocol.md §4.1: ids 0–135 are kind × 4 + copy, 136–143 the flowers h1–h8."""
    assert (tiles.TILE_IDS, tiles.FLOWER_BASE) == (144, 136)
    assert [tile_kind(t) for t in (0, 3, 4, 135)] == [0, 0, 1, 33]
    assert [is_flower_tile(t) for t in (135, 136, 143)] == [False, True, True]
    assert [tile_flower(t) for t in (136, 143)] == [1, 8]
    assert [tile_code(t) for t in (0, 19, 135, 136, 143)] == ["1m", "5m", "P", "h1", "h8"]


def test_kind_counts_leave_flowers_out() -> None:
    counts = kind_counts([0, 1, 3, 4, 135, 136, 143])
    assert len(counts) == 34
    assert (counts[0], counts[1], counts[33], sum(counts)) == (3, 1, 1, 5)


# --- a declaration (score-format.md's `mjtable score` input) ---------------------------

GOOD = hand("23m 456p 789p 55s 234s", "4m", ("chi:123m",))
KONG = hand("23m 456p 789p 55s 234s", "4m", ("kong:1111s",))
EIGHT = [f"h{k}" for k in range(1, 9)]
LENIENT = Rules(special_wins_need_declaration=False)


def without(key: str) -> dict[str, Any]:
    return {k: v for k, v in GOOD.items() if k != key}


def meld(**value: Any) -> dict[str, Any]:
    return {**GOOD, "melds": [value]}


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ([1, 2], "hand", "hand: expected a JSON object, got list"),
        ({**GOOD, "zeta": 1, "alpha": 2}, "alpha", "alpha: unknown key"),
        ({**GOOD, " ": 1}, "' '", "' ': unknown key"),
        (without("concealed"), "concealed", "concealed: missing"),
        (without("melds"), "melds", "melds: missing"),
        (without("winning_tile"), "winning_tile", "winning_tile: missing"),
        (without("win"), "win", "win: missing"),
        ({**GOOD, "win": None}, "win", "win: missing"),
        ({**GOOD, "concealed": "2m3m"}, "concealed", "concealed: expected a list of tile codes"),
        ({**GOOD, "concealed": ["2m", "3m", "X", *GOOD["concealed"][3:]]}, "concealed[2]",
         "concealed[2]: unknown tile code 'X'"),
        ({**GOOD, "concealed": GOOD["concealed"][:-1]}, "concealed",
         "concealed: 12 concealed tiles and 1 melds make 15 hand tiles; "
         "a hand has 16 before the winning tile"),
        ({**GOOD, "concealed": ["5p"] * 5 + GOOD["concealed"][5:]}, "concealed",
         "concealed: a fifth copy of 5p"),
        ({**GOOD, "concealed": ["2m"] * 4 + GOOD["concealed"][4:]}, "melds[0].tiles",
         "melds[0].tiles: a fifth copy of 2m"),
        ({**GOOD, "winning_tile": "1m", "concealed": ["1m"] * 3 + GOOD["concealed"][3:]},
         "winning_tile", "winning_tile: a fifth copy of 1m"),
        ({**GOOD, "flowers": "h1"}, "flowers", "flowers: expected a list of flower codes"),
        ({**GOOD, "flowers": ["h2", "h2"]}, "flowers[1]", "flowers[1]: flower h2 listed twice"),
        ({**GOOD, "flowers": ["5m"]}, "flowers[0]",
         "flowers[0]: '5m' is a playing tile, not a flower"),
        ({**GOOD, "melds": "chi"}, "melds", "melds: expected a list of melds"),
        ({**GOOD, "melds": [["1m", "2m", "3m"]]}, "melds[0]",
         "melds[0]: expected an object with kind and tiles"),
        (meld(kind="chi", tiles=["1m", "2m", "3m"], open=True, at=1), "melds[0].at",
         "melds[0].at: unknown key"),
        (meld(kind="run", tiles=["1m", "2m", "3m"]), "melds[0].kind",
         "melds[0].kind: expected chi, pong or kong, got 'run'"),
        (meld(tiles=["1m", "2m", "3m"]), "melds[0].kind",
         "melds[0].kind: expected chi, pong or kong, got None"),
        (meld(kind="chi", tiles=["1m", "2m", "3m"], concealed=1), "melds[0].concealed",
         "melds[0].concealed: expected true or false, got 1"),
        (meld(kind="pong", tiles=["1m", "1m", "1m"], concealed=True), "melds[0].concealed",
         "melds[0].concealed: a pong cannot be concealed; only a kong"),
        (meld(kind="chi", tiles=["3m", "1m", "4m"]), "melds[0].tiles",
         "melds[0].tiles: 1m 3m 4m is not a chi"),
        (meld(kind="kong", tiles=["1m", "1m", "1m"]), "melds[0].tiles",
         "melds[0].tiles: 1m 1m 1m is not a kong"),
        (meld(kind="chi", tiles="123m"), "melds[0].tiles",
         "melds[0].tiles: expected a list of tile codes"),
        (meld(kind="chi", tiles=["1m", "2m", "Q"]), "melds[0].tiles[2]",
         "melds[0].tiles[2]: unknown tile code 'Q'"),
        ({**GOOD, "win": "tsumo"}, "win",
         "win: expected one of self_draw, discard, robbing_kong or null, got 'tsumo'"),
        ({**GOOD, "declared": "ready"}, "declared",
         "declared: expected one of heavenly_ready, earthly_ready or null, got 'ready'"),
        ({**GOOD, "seat_wind": "C"}, "seat_wind",
         "seat_wind: expected a wind E, S, W or N, got 'C'"),
        ({**GOOD, "round_wind": 3}, "round_wind",
         "round_wind: expected a wind E, S, W or N, got 3"),
        ({**GOOD, "dealer": "yes"}, "dealer", "dealer: expected true or false, got 'yes'"),
        ({**GOOD, "streak": -1}, "streak", "streak: expected a whole number ≥ 0, got -1"),
        ({**GOOD, "streak": True}, "streak", "streak: expected a whole number ≥ 0, got True"),
        ({**GOOD, "streak": 1.0}, "streak", "streak: expected a whole number ≥ 0, got 1.0"),
        ({**GOOD, "replacement": True}, "replacement",
         "replacement: a replacement win is self_draw, not discard"),
        ({**GOOD, "last_tile": True, "win": "robbing_kong"}, "last_tile",
         "last_tile: a 海底 win must be self_draw, not robbing_kong"),
        ({**KONG, "declared": "heavenly_ready", "dealer": True}, "declared",
         "declared: the dealer cannot declare heavenly_ready (天聽)"),
        ({**GOOD, "timing": "heavenly_win", "win": "self_draw"}, "timing",
         "timing: heavenly_win (天胡) is the dealer's alone"),
        ({**GOOD, "timing": "heavenly_win", "dealer": True}, "timing",
         "timing: heavenly_win (天胡) is self-drawn"),
        ({**GOOD, "timing": "heavenly_win", "dealer": True, "win": "self_draw",
          "declared": "earthly_ready"}, "timing",
         "timing: heavenly_win (天胡) with a declaration (earthly_ready)"),
        ({**GOOD, "timing": "human_win"}, "timing",
         "timing: human_win (人胡) needs declared: earthly_ready"),
        ({**GOOD, "timing": "earthly_win", "dealer": True}, "timing",
         "timing: earthly_win (地胡) is not the dealer's"),
        ({**GOOD, "timing": "earthly_win", "declared": "earthly_ready"}, "timing",
         "timing: earthly_win after earthly_ready is human_win (人胡)"),
        ({**GOOD, "timing": "earthly_win", "win": "self_draw"}, "timing",
         "timing: a self-drawn earthly_win needs heavenly_ready"),
        ({**GOOD, "declared": "earthly_ready"}, "declared",
         "declared: earthly_ready with a chi, pong or exposed kong meld"),
        ({**GOOD, "robbed_flower": "h1"}, "robbed_flower",
         "robbed_flower: only a seven_rob_one flower win robs a flower"),
        ({**GOOD, "robbed_flower": "5m", "flower_win": "seven_rob_one", "flowers": EIGHT,
          "win": "self_draw"}, "robbed_flower",
         "robbed_flower: '5m' is a playing tile, not a flower"),
        ({**GOOD, "flower_win": "eight_immortals", "flowers": EIGHT[:7], "win": "self_draw"},
         "flowers", "flowers: a eight_immortals lists all eight flowers"),
        ({"flower_win": "seven_rob_one", "flowers": EIGHT[:7]}, "flowers",
         "flowers: a seven_rob_one lists all eight flowers"),
        # a run stays in one suit and starts at 1–7; honours make no run
        (meld(kind="chi", tiles=["9m", "1p", "2p"]), "melds[0].tiles",
         "melds[0].tiles: 9m 1p 2p is not a chi"),
        (meld(kind="chi", tiles=["8s", "9s", "E"]), "melds[0].tiles",
         "melds[0].tiles: 8s 9s E is not a chi"),
        (meld(kind="chi", tiles=["E", "S", "W"]), "melds[0].tiles",
         "melds[0].tiles: E S W is not a chi"),
        (meld(kind="chi", tiles=["C", "F", "P"]), "melds[0].tiles",
         "melds[0].tiles: C F P is not a chi"),
        (meld(kind="chi", tiles=["1m", "2m"]), "melds[0].tiles",
         "melds[0].tiles: 1m 2m is not a chi"),
        (meld(kind="chi", tiles=["1m", "2m", "3m", "4m"]), "melds[0].tiles",
         "melds[0].tiles: 1m 2m 3m 4m is not a chi"),
        ({**GOOD, "seat_wind": "X"}, "seat_wind",
         "seat_wind: expected a wind E, S, W or N, got 'X'"),
        # a flower win that gives any of its tiles gives them all
        ({"flower_win": "eight_immortals", "flowers": EIGHT, "concealed": GOOD["concealed"]},
         "winning_tile", "winning_tile: missing"),
        ({"flower_win": "eight_immortals", "flowers": EIGHT, "melds": GOOD["melds"]},
         "concealed", "concealed: missing"),
        ({"flower_win": "eight_immortals", "flowers": EIGHT, "winning_tile": "4m"},
         "concealed", "concealed: missing"),
    ],
)  # fmt: skip
def test_malformed_declaration_names_field_and_says_why(
    data: object, field: str, message: str
) -> None:
    with pytest.raises(HandInputError) as info:
        parse_hand(data)
    assert (info.value.field, str(info.value)) == (field, message)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"timing": "human_win", "win": "self_draw"},
         "timing: human_win (人胡) without 地聽 is a non-dealer's win on a discard"),
        ({"timing": "human_win", "dealer": True},
         "timing: human_win (人胡) without 地聽 is a non-dealer's win on a discard"),
        ({"timing": "human_win", "declared": "heavenly_ready"},
         "timing: human_win (人胡) needs declared: earthly_ready"),
    ],
)  # fmt: skip
def test_undeclared_human_win_when_the_profile_allows_it(
    change: dict[str, Any], message: str
) -> None:
    """§7 special_wins_need_declaration = false: 人胡 without 地聽 is a non-dealer's discard win."""
    with pytest.raises(HandInputError) as info:
        parse_hand({**GOOD, **change}, LENIENT)
    assert (info.value.field, str(info.value)) == ("timing", message)
    assert parse_hand({**GOOD, "timing": "human_win"}, LENIENT).timing == "human_win"


def test_error_keeps_field_and_message_apart() -> None:
    with pytest.raises(HandInputError) as info:
        parse_hand(without("win"))
    assert (info.value.field, info.value.message) == ("win", "missing")


def test_declaration_defaults() -> None:
    """score-format.md: seat and round wind E, no flowers, not dealer, streak 0, no flags."""
    got = parse_hand({k: v for k, v in GOOD.items() if k not in ("seat_wind", "round_wind")})
    assert got == Hand(got.concealed, got.melds, got.winning_tile, "discard")
    assert (got.flowers, got.seat_wind, got.round_wind, got.dealer, got.streak) == (
        frozenset(), 0, 0, False, 0,
    )  # fmt: skip
    assert (got.replacement, got.last_tile, got.declared, got.timing) == (False, False, None, None)
    assert (got.flower_win, got.robbed_flower, got.revealed) == (None, None, True)


def test_meld_defaults_and_views() -> None:
    """A kong is exposed (明槓) unless declared concealed (暗槓); chi and pong always are."""
    kong = Meld("kong", (5, 5, 5, 5))
    assert (kong.concealed, kong.exposed, kong.first) == (False, True, 5)
    assert not Meld("kong", (5, 5, 5, 5), concealed=True).exposed
    assert Meld("chi", (3, 4, 5)).first == 3


def test_input_vocabularies() -> None:
    """score-format.md's values for `win`, `declared`, `timing`, `flower_win` and the winds."""
    assert hand_module.MELD_KINDS == ("chi", "pong", "kong")
    assert hand_module.WIN_KINDS == ("self_draw", "discard", "robbing_kong")
    assert hand_module.DECLARATIONS == ("heavenly_ready", "earthly_ready")
    assert hand_module.TIMINGS == ("heavenly_win", "earthly_win", "human_win")
    assert hand_module.FLOWER_WINS == ("eight_immortals", "seven_rob_one")
    assert WIND_CODES == ("E", "S", "W", "N")
    assert hand_module.HAND_TILES == 16


def test_runs_at_the_ends_of_each_suit_are_chi() -> None:
    for run in (["1m", "2m", "3m"], ["7m", "8m", "9m"], ["7p", "8p", "9p"], ["7s", "8s", "9s"]):
        got = parse_hand(meld(kind="chi", tiles=run))
        assert got.melds[0].tiles == tuple(parse_kind(t) for t in run)


def test_winds_by_code_and_name() -> None:
    """seat_wind / round_wind: E S W N (or 東南西北) are 0–3."""
    for code, wind in (("E", 0), ("S", 1), ("W", 2), ("N", 3), ("北", 3)):
        got = parse_hand({**GOOD, "seat_wind": code, "round_wind": code})
        assert (got.seat_wind, got.round_wind) == (wind, wind)


def test_declarations_are_immutable() -> None:
    """The rules engine works on immutable values: a scored hand cannot change under it."""
    got = parse_hand(GOOD)
    with pytest.raises(AttributeError):
        got.dealer = True  # type: ignore[misc]
    with pytest.raises(AttributeError):
        got.melds[0].concealed = True  # type: ignore[misc]
