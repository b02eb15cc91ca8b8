"""The `[rules]` switches of a rule profile (taiwan16.md §7): what the checks and the 台
table's rows read. A module of their own, below the hand, the items and the profile, so
each takes the switches it reads without importing the whole profile.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final, Literal, get_args

PingHuWait = Literal["whole_hand", "two_sided_tile", "two_sided_reading", "not_pair", "any"]
PING_HU_WAITS: Final = get_args(PingHuWait)


@dataclass(frozen=True, slots=True)
class Rules:
    """The `[rules]` switches of §7; defaults are the mjonline club's (seed 002)."""

    lik_gu: bool = False  # 嚦咕嚦咕 (八對半) is a win
    ping_hu_wait: PingHuWait = "whole_hand"  # how 平胡's wait is judged
    ping_hu_honour_pair: bool = False  # 平胡 may have an honour pair
    ping_hu_flowers: bool = False  # 平胡 counts with flowers held
    ping_hu_with_concealed: bool = True  # false: a concealed hand has 門清 alone, no 平胡
    half_melded: bool = True  # false removes 半求
    all_melded_single_wait: bool = True  # false: no 獨聽 with five 吃/碰/明槓 melds
    five_concealed_exclusive: bool = True  # 五暗坎 excludes 門清 and 對對胡
    all_honors_overlap: bool = True  # note A's −4
    all_honors_with_all_pongs: bool = False  # 字一色 keeps 對對胡
    flower_kong_keeps_seat_flower: bool = False  # 花槓 keeps its colour's 花牌
    special_wins_need_declaration: bool = True  # 人胡 needs 地聽, a self-drawn 地胡 天聽
    kong_bloom_with_heavenly_win: bool = False  # 天胡 on a replacement keeps 槓上開花
    pass_water_self_draw: bool = False  # a self-draw stands under 過水 (a house rule; D1)


RULE_KEYS: Final = tuple(f.name for f in fields(Rules))
