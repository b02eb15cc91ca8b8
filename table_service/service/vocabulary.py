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


class Vocabulary(_Frozen):
    violations: list[CodeWords] = Field(
        description="every violation code, in the code list's order"
    )
    faults: list[CodeWords] = Field(description="every fault code")
    items: list[ItemWords] = Field(description="every 台 item, in §4's order, then the dealer 台")
    claims: list[Term] = Field(
        description="the claims on a discard, by the names the public state's `claimable` uses"
    )


VOCABULARY: Final = Vocabulary(
    violations=[CodeWords.of(row) for row in VIOLATIONS],
    faults=[CodeWords.of(row) for row in FAULTS],
    items=[
        *(ItemWords(id=i.id, zh=i.name, en=i.en, tai=i.tai, dealer_tai=False) for i in ITEMS),
        *(ItemWords(id=d.id, zh=d.name, en=d.en, tai=d.tai, dealer_tai=True) for d in DEALER_ITEMS),
    ],
    claims=[Term(id=c.id, zh=c.zh, en=c.en) for c in CLAIMS],
)
