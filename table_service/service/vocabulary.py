"""`GET /api/vocabulary`: the names the pages show, from the rulebook and the 台 table.

Every violation and fault code (table_service/rules/rulebook.py: its rules, 相公, names and
meanings in Chinese and English), every 台 item (table_service/rules/items.py: names and
default 台) and the claims' names. The dashboard keeps no rule words of its own: it reads
these.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from table_service.rules.items import DEALER_ITEMS, ITEMS
from table_service.rules.profile import PING_HU_WAITS, RULE_KEYS, SEAT_ORDERS
from table_service.rules.rulebook import CLAIMS, FAULTS, VIOLATIONS, Rule


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class CodeWords(_Frozen):
    """One violation or fault code, as the rulebook has it."""

    code: str = Field(description="the code a violation or fault record carries")
    kind: Literal["violation", "fault"]
    rules: list[str] = Field(
        description="the rules it enforces: taiwan16.md § sections and D decisions, or the "
        "page that defines a fault"
    )
    dead_hand: bool = Field(description="the breach makes the seat 相公 (draw and discard only)")
    zh: str = Field(description="its name in Chinese")
    en: str = Field(description="its name in English")
    zh_meaning: str = Field(description="what it means, in Chinese")
    en_meaning: str = Field(description="what it means, in English")

    @classmethod
    def of(cls, row: Rule) -> CodeWords:
        return cls.model_validate(row.to_json())


class ItemWords(_Frozen):
    """A 台 item (taiwan16.md §4)."""

    id: str = Field(description="the id a hand record's items carry")
    zh: str = Field(description="its name in Chinese")
    en: str = Field(description="its name in English")
    tai: int = Field(description="its default 台 per unit (the default profile's)")
    dealer_tai: bool = Field(description="dealer 台 (§6), never part of a hand's 牌面")


class Term(_Frozen):
    id: str
    zh: str
    en: str


class SwitchWords(_Frozen):
    """A profile's choice other than a 台 value (taiwan16.md §7: `seat_order` and the
    `[rules]` switches)."""

    key: str = Field(description="its key: `seat_order`, or a `[rules]` switch's name")
    zh: str = Field(description="what it decides, in Chinese")
    en: str = Field(description="what it decides, in English")
    choices: list[Term] | None = Field(
        description="the values it takes, each named; null for a yes/no switch"
    )


# §7's words for each choice (the rulebook's own, shortened); a switch added to `Rules`
# with no words here fails tests/api/test_vocabulary.py.
_SWITCH_WORDS: Final[dict[str, tuple[str, str]]] = {
    "seat_order": ("座位風的算法", "Whom the seat winds count from"),
    "lik_gu": ("嚦咕嚦咕（八對半）算胡", "嚦咕嚦咕 (eight pairs and a half) is a win"),
    "ping_hu_wait": ("平胡的聽牌條件", "平胡's wait"),
    "ping_hu_honour_pair": ("平胡可用字牌作將", "平胡 may have an honour pair"),
    "ping_hu_flowers": ("有花也算平胡", "平胡 counts with flowers held"),
    "ping_hu_with_concealed": ("門清也算平胡", "A concealed hand may have 平胡"),
    "half_melded": ("計半求", "半求 counts"),
    "all_melded_single_wait": ("五副都吃碰明槓的單吊算獨聽", "獨聽 with five exposed melds"),
    "five_concealed_exclusive": ("五暗坎不另計門清、對對胡", "五暗坎 excludes 門清 and 對對胡"),
    "all_honors_overlap": ("字一色減 4 台（附註 A）", "字一色's −4 (note A)"),
    "all_honors_with_all_pongs": ("字一色另計對對胡", "字一色 keeps 對對胡"),
    "flower_kong_keeps_seat_flower": ("花槓另計本位花", "花槓 keeps its seat flower"),
    "special_wins_need_declaration": (
        "人胡須地聽、自摸地胡須天聽",
        "人胡 needs 地聽, a self-drawn 地胡 天聽",
    ),
    "kong_bloom_with_heavenly_win": (
        "槓上天胡另計槓上開花",
        "天胡 on a replacement keeps 槓上開花",
    ),
    "pass_water_self_draw": (
        "過水後自摸有效（地方規則）",
        "A self-draw stands under 過水 (house rule)",
    ),
}
_CHOICE_WORDS: Final[dict[str, tuple[str, str]]] = {
    "opening": ("依開門位", "from the opening seat (開門序)"),
    "dealer": ("莊家為東", "the dealer is 東"),
    "whole_hand": ("全手聽兩種以上", "the whole hand waits on two kinds or more"),
    "two_sided_tile": (
        "胡牌張是兩面順子的外張",
        "the winning tile is a two-sided run's outer tile",
    ),
    "two_sided_reading": ("胡牌張完成兩面順子", "the winning tile completes a two-sided run"),
    "not_pair": ("胡牌張不是將", "the winning tile is not the pair"),
    "any": ("不限（單吊也算，另加獨聽）", "no condition (a single wait too, with 獨聽)"),
}
_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "seat_order": SEAT_ORDERS,
    "ping_hu_wait": PING_HU_WAITS,
}


def _switch(key: str) -> SwitchWords:
    zh, en = _SWITCH_WORDS[key]
    values = _CHOICES.get(key)
    choices = None
    if values is not None:
        choices = [Term(id=v, zh=_CHOICE_WORDS[v][0], en=_CHOICE_WORDS[v][1]) for v in values]
    return SwitchWords(key=key, zh=zh, en=en, choices=choices)


class Vocabulary(_Frozen):
    violations: list[CodeWords] = Field(
        description="every violation code, in the code list's order"
    )
    faults: list[CodeWords] = Field(description="every fault code")
    items: list[ItemWords] = Field(description="every 台 item, in §4's order, then the dealer 台")
    claims: list[Term] = Field(
        description="the claims on a discard, by the names the public state's `claimable` uses"
    )
    switches: list[SwitchWords] = Field(
        description="a profile's choices other than 台 values: `seat_order`, then `[rules]`"
    )


VOCABULARY: Final = Vocabulary(
    violations=[CodeWords.of(row) for row in VIOLATIONS],
    faults=[CodeWords.of(row) for row in FAULTS],
    items=[
        *(ItemWords(id=i.id, zh=i.name, en=i.en, tai=i.tai, dealer_tai=False) for i in ITEMS),
        *(ItemWords(id=d.id, zh=d.name, en=d.en, tai=d.tai, dealer_tai=True) for d in DEALER_ITEMS),
    ],
    claims=[Term(id=c.id, zh=c.zh, en=c.en) for c in CLAIMS],
    switches=[_switch(key) for key in ("seat_order", *RULE_KEYS)],
)
