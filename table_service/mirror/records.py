"""What the mirror concludes: the judgement records of replay-format.md, defined once.

`mjtable replay` prints them as JSON lines, the live service publishes the same
shapes, and docs/events.md is generated from these models.
"""

from __future__ import annotations

import re
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from table_service.rules.rulebook import DEAD_HAND
from table_service.rules.settlement import SettleKind
from table_service.rules.shapes import WaitShape
from table_service.rules.tiles import Wind

ViolationCode = Literal[
    "out_of_turn",
    "wrong_end",
    "replacement_order",
    "reserve_draw",
    "chow_not_from_left",
    "restriction_1",
    "restriction_2",
    "restriction_3",
    "restriction_4",
    "restriction_5",
    "restriction_6",
    "restriction_7",
    "restriction_8",
    "passed_win",
    "passed_pong",
    "late_claim",
    "dead_hand_claim",
    "hand_size",
    "flower_discarded",
    "void_declaration",
    "kong_without_replacement",
    "false_win",
]
VIOLATION_CODES: Final[tuple[str, ...]] = ViolationCode.__args__  # type: ignore[attr-defined]

FaultCode = Literal[
    "fifth_copy",
    "tile_twice",
    "unknown_tile",
    "impossible",
    "count_mismatch",
    "gap",
    "hand_unseen",  # a hand not seen from its start: followed, not judged, to the next shuffle
    "conflict",  # the service: an event key delivered again with another body
    "suspect_boot",  # the service: a boot that appeared from nowhere, not switched to
]
FAULT_CODES: Final[tuple[str, ...]] = FaultCode.__args__  # type: ignore[attr-defined]

# A tile id field ("tile", "tiles", "tiles.3") named in a refusal, not a kind that holds
# the word: "tile_drawn: seat: 9 out of range" is an impossible body, not an unknown tile.
_TILE_FIELD: Final = re.compile(r"(?:^|[ .])tiles?(?=[.:\[]|$)")


def unreadable_fault_code(error: str) -> FaultCode:
    """The fault for a body the catalogue or the schema refused, from its `field: why` text."""
    return "unknown_tile" if _TILE_FIELD.search(error) else "impossible"


# Breaches that make the seat 相公 (taiwan16.md §3, D9), from the rulebook's rows.
# A 相公 seat may only draw and discard.
DEAD_HAND_CODES: Final[frozenset[str]] = DEAD_HAND

HandResultKind = Literal["win", "flower_win", "false_win", "drawn"]
SettleKindName = SettleKind  # the settlement kinds of score-format.md, from the rules engine


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Violation(_Record):
    """A player broke a rule; the mirror keeps following the tiles."""

    type: Literal["violation"] = "violation"
    table: str
    boot_id: int
    seq: int
    seat: int = Field(ge=0, le=3, description="the offender")
    code: ViolationCode
    detail: str = Field(description="a sentence for the referee")


class Fault(_Record):
    """The event stream itself is impossible (a sensor, not a player); nobody is blamed."""

    type: Literal["fault"] = "fault"
    table: str
    boot_id: int
    seq: int
    code: FaultCode
    detail: str


class Item(_Record):
    id: str
    tai: int
    name: str | None = None
    en: str | None = None


class PaymentRecord(_Record):
    payer: int = Field(alias="from")
    payee: int = Field(alias="to")
    amount: int
    tai: int
    dealer_tai: int


class NextDeal(_Record):
    dealer: int
    streak: int
    round_wind: Wind


class SeatPlay(_Record):
    """One seat's play in a hand, as only the sensors see it."""

    ready_round: int | None = Field(
        description="the go-round (巡: its own discards, counted from 1) whose discard first "
        "left its hand ready; null when never ready"
    )
    turns: int = Field(description="turns that ended in a discard (a draw or a claim first)")
    turn_ms: int = Field(
        description="the time those turns took, from the draw or claim to the discard"
    )


class HandPlay(_Record):
    """What a hand's play showed beyond its result: its length, the winner's wait, the
    go-round a tile was dealt in at, each seat's readiness and pace. Read from the events'
    times (the bridge's) and tiles, so a referee's ruling changes it like the result."""

    seconds: float = Field(description="from the shuffle to the hand's end")
    go_rounds: int = Field(description="the most discards any seat made (巡)")
    wait: WaitShape | None = Field(
        description="the winner's wait (single, edge, closed: 獨聽; two_sided, double_pong, "
        "multi); null with no winning tile"
    )
    waits: list[str] = Field(description="the kinds the winner waited on (codes)")
    deal_in_round: int | None = Field(
        description="the go-round of the payer's discard (or robbed kong) won on; null otherwise"
    )
    seats: list[SeatPlay] = Field(description="each seat's play, by seat")


class HandRecord(_Record):
    """A hand ended: its result, 台 breakdown, money and the next deal."""

    type: Literal["hand"] = "hand"
    table: str
    boot_id: int
    seq: int
    hand: int = Field(description="the hand's number in this session, from 1")
    round_wind: Wind
    dealer: int
    streak: int
    result: HandResultKind
    kind: SettleKindName | None = Field(description="settlement kind; null for drawn")
    seat: int | None = Field(description="the winner, or the offender of a false win")
    payer: int | None
    tai: int = Field(description="the hand's 台 (for a false win, its 牌面)")
    winning_tile: str | None = Field(
        None, description="the tile that completed the hand (code); null for 荒局 or a 花胡 alone"
    )
    dealer_tai: int = Field(description="1 + 2N when the dealer is a party, else 0")
    items: list[Item]
    codes: list[str] = Field(description="for a false win, the violation codes that made it")
    net: list[int] = Field(description="each seat's money for this hand, summing to 0")
    payments: list[PaymentRecord]
    next: NextDeal | None = Field(description="the next hand's deal; null when the 將 is over")
    play: HandPlay | None = Field(None, description="what the sensors saw of its play")


class Summary(_Record):
    """Last record of a replay."""

    type: Literal["summary"] = "summary"
    events: int
    duplicates: int
    gaps: int
    hands: int
    violations: int
    faults: int
    totals: list[int] = Field(description="each seat's money over the whole replay")


Record = Violation | Fault | HandRecord
