"""The 台 table as taiwan16.md §4 writes it: every row's name, value and exclusions.

Found by mutation testing (bench/mutation.py): a changed value, name or exclusion in
`items.py`'s rows must fail a test. The literals below are copied from §4's table and
its reading notes, not from the code.
"""

from __future__ import annotations

from table_service.rules.items import DEALER_ITEMS, DEFAULT_TAI, ITEM_BY_ID, ITEM_IDS, ITEMS

# §4: id → (中文, 台 per unit), in the table's order.
SECTION_4 = {
    "seat_wind_pong": ("風字坎", 1),
    "round_wind_pong": ("風字坎", 1),
    "dragon_pong": ("箭字坎", 1),
    "concealed": ("門清", 1),
    "concealed_self_draw": ("不求.自摸", 2),
    "all_melded": ("全求", 2),
    "half_melded": ("半求", 1),
    "ping_hu": ("平胡", 2),
    "all_pongs": ("對對胡", 4),
    "single_wait": ("獨聽", 1),
    "robbing_kong": ("搶槓", 1),
    "all_honors": ("字一色", 16),
    "full_flush": ("清一色", 12),
    "half_flush": ("湊一色", 4),
    "three_concealed_pongs": ("三暗坎", 2),
    "four_concealed_pongs": ("四暗坎", 5),
    "five_concealed_pongs": ("五暗坎", 13),
    "big_four_winds": ("大四喜", 16),
    "small_four_winds": ("小四喜", 8),
    "big_three_dragons": ("大三元", 8),
    "small_three_dragons": ("小三元", 4),
    "self_draw": ("自摸", 1),
    "kong_bloom": ("槓上開花", 1),
    "last_tile": ("海底撈月", 1),
    "seat_flower": ("花牌", 1),
    "flower_kong": ("花槓", 2),
    "all_flowers": ("滿花", 8),
    "eight_immortals": ("八仙過海", 8),
    "seven_rob_one": ("七搶一", 8),
    "heavenly_ready": ("天聽", 8),
    "earthly_ready": ("地聽", 4),
    "heavenly_win": ("天胡", 16),
    "earthly_win": ("地胡", 16),
    "human_win": ("人胡", 8),
    "all_honors_overlap": ("字一色減計", -4),
    "lik_gu": ("嚦咕嚦咕", 8),
}

# §4's "excludes" / "replaces" wording and the reading notes; a row not named has none.
LIK_GU_KEEPS = {
    "lik_gu", "seat_flower", "flower_kong", "all_flowers", "seat_wind_pong", "round_wind_pong",
    "dragon_pong", "half_flush", "full_flush", "concealed_self_draw",
}  # fmt: skip
EXCLUDES = {
    "concealed_self_draw": {"self_draw"},
    "all_honors": {"all_pongs"},
    "four_concealed_pongs": {"three_concealed_pongs"},
    "five_concealed_pongs": {
        "four_concealed_pongs",
        "three_concealed_pongs",
        "concealed",
        "all_pongs",
    },
    "big_four_winds": {"seat_wind_pong", "round_wind_pong"},
    "big_three_dragons": {"dragon_pong"},
    "small_three_dragons": {"dragon_pong"},
    "all_flowers": {"seat_flower", "flower_kong"},
    "heavenly_ready": {"concealed"},
    "earthly_ready": {"concealed"},
    "heavenly_win": {
        "concealed",
        "concealed_self_draw",
        "self_draw",
        "single_wait",
        "ping_hu",
        "kong_bloom",
    },
    "earthly_win": {"heavenly_ready", "concealed"},
    "human_win": {"earthly_ready", "concealed"},
    "lik_gu": set(SECTION_4) - LIK_GU_KEEPS,
}

# The English labels the board and the score output show (`en`; docs/events.md).
ENGLISH_NAMES = {
    "seat_wind_pong": "seat wind pong", "round_wind_pong": "round wind pong",
    "dragon_pong": "dragon pong", "concealed": "concealed hand",
    "concealed_self_draw": "concealed self-draw", "all_melded": "all melded",
    "half_melded": "half melded", "ping_hu": "all chows", "all_pongs": "all pongs",
    "single_wait": "single wait", "robbing_kong": "robbing the kong",
    "all_honors": "all honours", "full_flush": "full flush", "half_flush": "half flush",
    "three_concealed_pongs": "three concealed pongs",
    "four_concealed_pongs": "four concealed pongs",
    "five_concealed_pongs": "five concealed pongs", "big_four_winds": "big four winds",
    "small_four_winds": "small four winds", "big_three_dragons": "big three dragons",
    "small_three_dragons": "small three dragons", "self_draw": "self-draw",
    "kong_bloom": "win on a replacement", "last_tile": "last tile",
    "seat_flower": "seat flower", "flower_kong": "flower kong", "all_flowers": "all flowers",
    "eight_immortals": "eight immortals", "seven_rob_one": "seven rob one",
    "heavenly_ready": "heavenly ready", "earthly_ready": "earthly ready",
    "heavenly_win": "heavenly win", "earthly_win": "earthly win", "human_win": "human win",
    "all_honors_overlap": "all honours overlap", "lik_gu": "seven pairs and a pong",
}  # fmt: skip


def test_rows_in_section_4_order() -> None:
    """§4: one row per item, in the table's order."""
    assert tuple(SECTION_4) == ITEM_IDS
    assert [row.id for row in ITEMS] == list(SECTION_4)


def test_names_and_values() -> None:
    """§4: each row's Chinese name and its 台."""
    assert {row.id: (row.name, row.tai) for row in ITEMS} == SECTION_4


def test_exclusions() -> None:
    """§4: what each row excludes or replaces; every other row excludes nothing."""
    got = {row.id: row.excludes for row in ITEMS}
    assert got == {i: frozenset(EXCLUDES.get(i, ())) for i in SECTION_4}
    assert all(isinstance(row.excludes, frozenset) for row in ITEMS)


def test_default_tai_adds_the_dealer_tai_after_all_pongs() -> None:
    """§4: 作莊 1 and 連N拉N 2 per N sit after 對對胡 in the table of values."""
    expected = {}
    for item, (_, tai) in SECTION_4.items():
        expected[item] = tai
        if item == "all_pongs":
            expected |= {"dealer": 1, "streak": 2}
    assert list(DEFAULT_TAI.items()) == list(expected.items())


def test_english_names() -> None:
    """The `en` label of every §4 item, on the same row as its Chinese name."""
    assert {row.id: row.en for row in ITEMS} == ENGLISH_NAMES
    assert [row.id for row in ITEMS] == list(ENGLISH_NAMES)
    assert ITEM_BY_ID["lik_gu"].excludes == frozenset(EXCLUDES["lik_gu"])


def test_dealer_items() -> None:
    """§4: 作莊 1 and 連N拉N 2 per N, named like the other rows (dealer 台, §6)."""
    got = [(d.id, d.name, d.en, d.tai) for d in DEALER_ITEMS]
    assert got == [
        ("dealer", "作莊", "dealer", 1),
        ("streak", "連N拉N", "dealer streak (per N)", 2),
    ]
