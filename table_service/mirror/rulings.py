"""A referee's rulings: log entries that say what the records must be instead.

A ruling is a fact about the past (this event read a tile wrongly; this event did not
happen; this one is missing; this violation stands or does not), appended to the
table's log with who made it and why. The records are a fold over the log, and the fold
reads every event through the rulings in force (`Rulings`), so one ruling re-derives all
it touches: the hand it names and every later hand of the session. A ruling is never
edited: `undo` withdraws one (and an undo of an undo restores it).

`penalty`, `deal` and `note` are rulings too; they act where they stand in the log
(a penalty moves money then, a deal correction sets the next deal), not on the past.

Pure: the bodies (one definition for the log, the API and the docs) and the value the
fold consults; the service stores them and runs the re-derivation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
)

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.records import ViolationCode
from table_service.rules.tiles import (
    FLOWER_BASE,
    KIND_CODE,
    TILE_IDS,
    TileCodeError,
    parse_flower,
    parse_kind,
)

NO_NUL: Final = r"^[^\x00]*$"


def _whole(value: object) -> object:
    """What JSON Schema's `integer` takes: 3 or 3.0, never true, "3" or 3.5."""
    if type(value) is float and value.is_integer():
        return int(value)
    if type(value) is not int:
        raise ValueError("Input should be a valid integer")
    return value


Whole = Annotated[int, BeforeValidator(_whole)]  # a body's whole number
Reason = Annotated[
    str, Field(min_length=1, max_length=500, pattern=NO_NUL, description="why, for the record")
]
# Constraints first, then the whole-number reading: so the JSON schema says minimum and
# maximum (a constraint on an Annotated that already holds a validator is not mapped).
_WHOLE = BeforeValidator(_whole)
Seat = Annotated[int, Field(ge=0, le=3), _WHOLE]
Streak = Annotated[int, Field(ge=0, le=100), _WHOLE]  # 連莊 N
Decision = Literal["uphold", "overturn"]  # a verdict on a violation
BootId = Annotated[int, Field(ge=0, le=0xFFFFFFFF, description="the event's boot"), _WHOLE]
# A ruling names an event's seq as a JSON number: up to 2**53 - 1, which every JSON reader
# holds exactly (a table would take millennia to count past it).
Seq = Annotated[int, Field(ge=1, le=2**53 - 1, description="the event's seq in its boot"), _WHOLE]
# The codes a referee names tiles by: a kind's canonical code, or a flower's h1–h8.
TILE_CODES: Final = (*KIND_CODE, *(f"h{n}" for n in range(1, 9)))
# A tile as the referee names it: a physical id (0–143), or a code ("5m", "E", "h3") for
# which the fold takes a copy still in the wall at that moment.
TileRef = Annotated[
    Annotated[Annotated[int, Field(ge=0, le=TILE_IDS - 1), _WHOLE], Tag("id")]
    | Annotated[
        Annotated[
            str,
            Field(json_schema_extra={"enum": list(TILE_CODES)}),
            AfterValidator(lambda code: _known(code)),
        ],
        Tag("code"),
    ],
    Discriminator(lambda v: "code" if isinstance(v, str) else "id"),
    Field(description="a tile id (0–143), or a code such as 5m, E or h3"),
]


def _known(code: str) -> str:
    if code not in TILE_CODES:
        raise ValueError(
            f"unknown tile code {code!r} (one of 1m…9m, 1p…9p, 1s…9s, E S W N C F P, h1…h8)"
        )
    return code


class _Ruling(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _OnEvent(_Ruling):
    boot_id: BootId
    seq: Seq


class TileRuling(_OnEvent):
    """The event read one tile wrongly: `read` is what it said, `was` what it was."""

    kind: Literal["tile"]
    read: TileRef
    was: TileRef
    reason: Reason


class DropRuling(_OnEvent):
    """The event did not happen (a sensor's ghost): the fold skips it."""

    kind: Literal["drop"]
    reason: Reason


class InsertRuling(_OnEvent):
    """An event is missing: `body` happened right after the event (boot_id, seq)."""

    kind: Literal["insert"]
    body: dict[str, Any] = Field(
        description="the missing event's body, as the bridge sends it (docs/events.md); one "
        "that is not an event's is refused when the ruling is followed (409)"
    )
    reason: Reason


class VerdictRuling(_OnEvent):
    """A violation stands (`uphold`) or does not (`overturn`: what it caused is undone:
    相公 lifted, a 詐胡 of a barred win becomes the win it was, or a 胡 press on a hand
    that does not win is as if never pressed and the hand plays on)."""

    kind: Literal["verdict"]
    seat: Seat = Field(description="the seat the violation names")
    code: ViolationCode = Field(description="the violation's code")
    decision: Decision = Field(
        description="uphold: it stands; overturn: it did not happen, and what it caused is undone"
    )
    reason: Reason


class _HandRuling(_OnEvent):
    """The referee states a hand's result where the sensors cannot tell: right after the
    event (boot_id, seq) the hand under way ends so."""

    kind: Literal["hand"]
    reason: Reason


class HandWin(_HandRuling):
    """Seat `seat` won on a discard (or robbed a kong) of `payer`, on `tile`, its concealed
    tiles `concealed` (the winning tile among them; its melds and flowers are the ones on
    the table): scored as any win."""

    result: Literal["win"] = Field(description="a win")
    how: Literal["discard", "robbing_kong"] = Field(description="on a discard, or a robbed kong")
    seat: Seat = Field(description="the winner")
    payer: Seat = Field(description="the seat that discarded (or added to its kong)")
    tile: TileRef = Field(description="the winning tile")
    concealed: list[TileRef] = Field(
        max_length=17, description="the winner's concealed tiles, the winning tile too"
    )


class HandSelfDraw(_HandRuling):
    """Seat `seat` won by its own draw of `tile`, its concealed tiles `concealed`."""

    result: Literal["win"] = Field(description="a win")
    how: Literal["self_draw"] = Field(description="by the winner's own draw")
    seat: Seat = Field(description="the winner")
    tile: TileRef = Field(description="the winning tile, its draw")
    concealed: list[TileRef] = Field(
        max_length=17, description="the winner's concealed tiles, the winning tile too"
    )


class HandOver(_HandRuling):
    """`drawn`: a 荒局; `void`: the hand does not count (no record, the deal stays)."""

    result: Literal["drawn", "void"] = Field(description="drawn: a 荒局; void: no record")


def _field(value: Any, name: str) -> Any:
    """A field of a body being validated (a dict) or of a model already made."""
    return value.get(name) if isinstance(value, dict) else getattr(value, name, None)


def _hand_branch(value: Any) -> str:
    if _field(value, "result") != "win":
        return "over"
    return "self_draw" if _field(value, "how") == "self_draw" else "claimed"


HandRuling = Annotated[
    Annotated[HandWin, Tag("claimed")]
    | Annotated[HandSelfDraw, Tag("self_draw")]
    | Annotated[HandOver, Tag("over")],
    Discriminator(_hand_branch),
]


class UndoRuling(_Ruling):
    """Withdraw an earlier ruling (by its id): the records become what they were without it."""

    kind: Literal["undo"]
    ruling: Whole = Field(ge=1, description="the ruling withdrawn")
    reason: Reason


class DealRuling(_Ruling):
    """Who deals next, from the next hand (after a sensor fault misled a verdict)."""

    kind: Literal["deal"]
    dealer: Seat = Field(description="the next hand's dealer")
    streak: Streak = Field(description="its 連莊 count N")
    round_wind: Seat = Field(description="0 東 … 3 北")
    note: str = Field("", max_length=500, pattern=NO_NUL, description="why, for the record")


class PenaltyRuling(_Ruling):
    """包賠 / 眼牌: the offender pays each other seat 底 + 台 (+ dealer 台 with the dealer)."""

    kind: Literal["penalty"]
    seat: Seat = Field(description="the offender")
    tai: Whole = Field(0, ge=0, le=100, description="the 牌面 the penalty is paid on")
    reason: str = Field(max_length=200, pattern=NO_NUL, description="why, for the record")


class NoteRuling(_Ruling):
    """A line in the table's record that changes nothing (what the referee saw or said)."""

    kind: Literal["note"]
    note: str = Field(min_length=1, max_length=500, pattern=NO_NUL, description="the note")


Ruling = Annotated[
    Annotated[TileRuling, Tag("tile")]
    | Annotated[DropRuling, Tag("drop")]
    | Annotated[InsertRuling, Tag("insert")]
    | Annotated[VerdictRuling, Tag("verdict")]
    | Annotated[HandRuling, Tag("hand")]
    | Annotated[UndoRuling, Tag("undo")]
    | Annotated[DealRuling, Tag("deal")]
    | Annotated[PenaltyRuling, Tag("penalty")]
    | Annotated[NoteRuling, Tag("note")],
    Discriminator(lambda v: _field(v, "kind")),
]
RULING: Final[TypeAdapter[Any]] = TypeAdapter(Ruling)
RulingKind = Literal["tile", "drop", "insert", "verdict", "hand", "undo", "deal", "penalty", "note"]
RULING_KINDS: Final[tuple[str, ...]] = get_args(RulingKind)
# Rulings about the past: the records from the event they name onward are derived again.
ON_EVENTS: Final = ("tile", "drop", "insert", "verdict", "hand")

EventKey = tuple[int, int]
ViolationKey = tuple[int, int, int, str]  # boot_id, seq, seat, code


# What the service adds to a ruling's body in the log: who ruled, and a penalty's money.
SERVICE_KEYS: Final = ("token_id", "ledger")


def parse_ruling(body: Mapping[str, Any]) -> Any:
    """A ruling body validated (a pydantic ValidationError names the field at fault); the
    keys the service adds (SERVICE_KEYS) are its own, not the referee's."""
    return RULING.validate_python({k: v for k, v in body.items() if k not in SERVICE_KEYS})


@dataclass(frozen=True)
class Rulings:
    """The rulings in force at a table, as the fold reads them (built by `in_force`)."""

    tiles: Mapping[EventKey, tuple[tuple[TileRef, TileRef], ...]] = field(default_factory=dict)
    dropped: frozenset[EventKey] = frozenset()
    inserted: Mapping[EventKey, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    overturned: frozenset[ViolationKey] = frozenset()
    decided: Mapping[EventKey, Any] = field(default_factory=dict)  # hand rulings: the latest
    withdrawn_logs: frozenset[int] = frozenset()  # the log entries of rulings withdrawn

    @cached_property
    def named(self) -> frozenset[EventKey]:
        """Every event a ruling acts on (corrected, dropped, followed by an insert or by
        the hand's decision): the fold gives any other event to the mirror as it stands."""
        named = self.tiles.keys() | self.inserted.keys() | self.decided.keys()
        return frozenset(named | self.dropped)

    def drops(self, event: Event) -> bool:
        return (event.boot_id, event.seq) in self.dropped

    def touches(self, key: EventKey) -> bool:
        return key in self.tiles or key in self.dropped or key in self.inserted

    def events(self, event: Event, placed: Mapping[int, object]) -> list[tuple[Event, bool]]:
        """The events a stored event stands for under the rulings, each with whether a
        ruling inserted it: itself, itself with a tile corrected, nothing (dropped), and
        any missing ones after it. `placed`: the tiles the mirror has placed now (a code
        takes a copy that is not among them)."""
        key = (event.boot_id, event.seq)
        if not self.touches(key):
            return [(event, False)]
        out: list[tuple[Event, bool]] = []
        if key not in self.dropped:
            out.append((_corrected(event, self.tiles.get(key, ()), placed), False))
        for body in self.inserted.get(key, ()):
            missing = event.model_copy(update={"body": EVENT_BODY.validate_python(body)})
            out.append((missing, True))
        return out


def in_force(rulings: Iterable[tuple[int, Any]], logs: Mapping[int, int] | None = None) -> Rulings:
    """The rulings in force after every `undo` (given as (id, ruling) in log order): an
    undo withdraws its target, an undo of that undo puts it back. `logs`: each ruling's log
    entry, so the fold passes over a withdrawn deal or penalty where it stands."""
    listed = list(rulings)
    withdrawn: set[int] = set()
    for ruling_id, ruling in reversed(listed):  # the latest undo of a chain decides
        if ruling.kind == "undo" and ruling_id not in withdrawn:
            withdrawn.add(ruling.ruling)
    tiles: dict[EventKey, list[tuple[TileRef, TileRef]]] = {}
    dropped: set[EventKey] = set()
    inserted: dict[EventKey, list[dict[str, Any]]] = {}
    verdicts: dict[ViolationKey, str] = {}
    decided: dict[EventKey, Any] = {}
    for ruling_id, ruling in listed:
        if ruling_id in withdrawn or ruling.kind not in ON_EVENTS:
            continue
        key = (ruling.boot_id, ruling.seq)
        if ruling.kind == "tile":
            tiles.setdefault(key, []).append((ruling.read, ruling.was))
        elif ruling.kind == "drop":
            dropped.add(key)
        elif ruling.kind == "insert":
            inserted.setdefault(key, []).append(dict(ruling.body))
        elif ruling.kind == "hand":
            decided[key] = ruling
        else:
            verdicts[(*key, ruling.seat, ruling.code)] = ruling.decision  # the latest stands
    return Rulings(
        tiles={k: tuple(v) for k, v in tiles.items()},
        dropped=frozenset(dropped),
        inserted={k: tuple(v) for k, v in inserted.items()},
        overturned=frozenset(k for k, d in verdicts.items() if d == "overturn"),
        decided=decided,
        withdrawn_logs=frozenset(logs[i] for i in withdrawn if logs and i in logs),
    )


def withdrawn_target(rulings: Iterable[tuple[int, Any]], undo_of: int) -> Any | None:
    """The ruling an undo names, followed through undos of undos to a ruling on events."""
    by_id = dict(rulings)
    seen: set[int] = set()
    target = by_id.get(undo_of)
    while target is not None and target.kind == "undo" and undo_of not in seen:
        seen.add(undo_of)
        undo_of = target.ruling
        target = by_id.get(undo_of)
    return target


def tile_id(ref: TileRef, placed: Mapping[int, object]) -> int:
    """A tile the referee named: an id as given; a code, its first copy the mirror does not
    have anywhere yet (still in the wall). ValueError for a code with no copy left."""
    if isinstance(ref, int):
        if not 0 <= ref < TILE_IDS:
            raise ValueError(f"tile id {ref} is not one of 0–{TILE_IDS - 1}")
        return ref
    free = [t for t in copies(ref) if t not in placed]
    if not free:
        raise ValueError(f"no copy of {ref} is left in the wall")
    return free[0]


def copies(code: str) -> list[int]:
    """The ids of a code's copies (one for a flower); TileCodeError for an unknown code."""
    try:
        kind = parse_kind(code)
    except TileCodeError as not_a_kind:
        try:
            return [FLOWER_BASE + parse_flower(code) - 1]
        except TileCodeError:
            raise not_a_kind from None
    return [kind * 4 + copy for copy in range(4)]


def _corrected(
    event: Event, fixes: tuple[tuple[TileRef, TileRef], ...], placed: Mapping[int, object]
) -> Event:
    if not fixes:
        return event
    body = event.body.model_dump(mode="json")
    for read, was in fixes:
        old = read if isinstance(read, int) else _find(body, read)
        new = tile_id(was, placed)
        if body.get("tile") == old:
            body["tile"] = new
        elif isinstance(body.get("tiles"), list) and old in body["tiles"]:
            body["tiles"] = [new if t == old else t for t in body["tiles"]]
    return event.model_copy(update={"body": EVENT_BODY.validate_python(body)})


def _find(body: Mapping[str, Any], code: str) -> int | None:
    """The id in an event's body of the tile read as `code`."""
    wanted = copies(code)
    ids = [body["tile"]] if "tile" in body else list(body.get("tiles") or [])
    return next((t for t in ids if t in wanted), None)
