"""The bridge's published MQTT schema: every topic's payload, defined once (pydantic v2).

The table service imports these to read what the bridge publishes; `TOPIC_PAYLOADS`
is the one map from topic (below `<base>/<table>/`) to payload type. Every JSON
payload carries `schema_version`; an event carries its key (table, boot_id, seq).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Annotated, Any, Final, Literal, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    WithJsonSchema,
)

from firmware_bridge.protocol import catalogue as c

SCHEMA_VERSION: Final = 1
E = TypeVar("E", bound=IntEnum)


def _named(enum: type[E], old_names: Mapping[str, E] | None = None) -> Any:
    """An IntEnum that reads a name (any case) or number and writes its lower-case name.

    `old_names` maps names a published schema used before a rename (lower case) to
    their member, so stored or recorded events keep reading; they are never written.
    """
    old = dict(old_names or {})

    def parse(value: object) -> object:
        if isinstance(value, str):
            if value.lower() in old:
                return old[value.lower()]
            try:
                return enum[value.upper()]
            except KeyError:
                names = ", ".join(m.name.lower() for m in enum)
                raise ValueError(f"{value!r} is not one of {names}") from None
        return value

    return Annotated[
        enum,
        BeforeValidator(parse),
        PlainSerializer(lambda m: m.name.lower(), return_type=str),
        WithJsonSchema({"enum": [m.name.lower() for m in enum], "type": "string"}),
    ]


Seat = Annotated[int, Field(ge=0, le=3, description="physical seat 0-3 (protocol §4.1)")]
SeatOrAll = Annotated[int, Field(ge=0, le=255, description="0-3, or 255 for all seats")]
SeatOrNone = Annotated[int, Field(ge=0, le=255, description="0-3, or 255 for none")]
TileId = Annotated[int, Field(ge=0, le=143, description="physical tile id, id // 4 = kind")]
Stacks = Annotated[int, Field(ge=0, le=36)]
Die = Annotated[int, Field(ge=1, le=6, description="one die")]
TileList = Annotated[
    tuple[TileId, ...], Field(min_length=1, max_length=24, description="1 to 24 tile ids")
]
# 碰 was "pung" on the wire before the rules' "pong" became the one name; still read.
MeldName = _named(c.MeldKind, {"pung": c.MeldKind.PONG})
ButtonName = _named(c.Button, {"pung": c.Button.PONG})


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- event bodies: one per device→host message kind --------------------------------
# Each docstring says what the table's sensors saw; docs/events.md is generated from them.


class ShuffleStarted(_Model):
    """The table started shuffling: the last hand's tiles went into the machine."""

    kind: Literal["shuffle_started"] = "shuffle_started"


class ShuffleFinished(_Model):
    """The machine finished shuffling; the walls rise next."""

    kind: Literal["shuffle_finished"] = "shuffle_finished"


class WallBuilt(_Model):
    """The four walls rose: the stacks (墩) in front of each seat, 18 each for 144 tiles."""

    kind: Literal["wall_built"] = "wall_built"
    stacks_0: Stacks = Field(description="墩 in the wall in front of seat 0")
    stacks_1: Stacks = Field(description="墩 in front of seat 1")
    stacks_2: Stacks = Field(description="墩 in front of seat 2")
    stacks_3: Stacks = Field(description="墩 in front of seat 3")


class DiceRolled(_Model):
    """The dice were thrown: to seat the players (搬風), choose the dealer (定莊), or deal
    (the total counts the 開門位, where the wall opens)."""

    kind: Literal["dice_rolled"] = "dice_rolled"
    roll: _named(c.DiceRoll) = Field(  # type: ignore[valid-type]
        description="which roll: seating (搬風), dealer (定莊) or deal"
    )
    die_1: Die
    die_2: Die
    die_3: Die


class TileDrawn(_Model):
    """A tile taken from the wall: `end` front for a turn's draw or the deal, back (槓尾)
    for a flower or kong replacement."""

    kind: Literal["tile_drawn"] = "tile_drawn"
    seat: Seat = Field(description="the seat that took it")
    tile: TileId
    end: _named(c.End) = Field(  # type: ignore[valid-type]
        description="front: the live end; back: the 槓尾 (replacements)"
    )


class TileDiscarded(_Model):
    """A tile a seat discarded face up into the middle of the table."""

    kind: Literal["tile_discarded"] = "tile_discarded"
    seat: Seat = Field(description="the discarder")
    tile: TileId


class MeldExposed(_Model):
    """A meld laid face up: a 吃, 碰 or 碰槓 claiming a discard, or a 加槓 or 暗槓 made from
    the seat's own tiles (every kong then draws a replacement from the 槓尾)."""

    kind: Literal["meld_exposed"] = "meld_exposed"
    seat: Seat = Field(description="the seat that exposes it")
    meld: MeldName = Field(  # type: ignore[valid-type]
        description="chow 吃, pong 碰, kong_exposed 碰槓/明槓, kong_added 加槓, "
        'kong_concealed 暗槓 (the old name "pung" is still read)'
    )
    from_seat: SeatOrNone = Field(
        description="the discarder for chow, pong and kong_exposed; 255 otherwise"
    )
    tiles: tuple[TileId, ...] = Field(
        min_length=3,
        max_length=4,
        description="3 for chow and pong, 4 for kongs, the claimed tile included",
    )


class FlowerRevealed(_Model):
    """A flower (花牌) laid face up, at the 補花 or when drawn in play; its replacement
    comes from the 槓尾."""

    kind: Literal["flower_revealed"] = "flower_revealed"
    seat: Seat
    tile: Annotated[int, Field(ge=136, le=143)] = Field(
        description="136-143: h1-h8, 春 夏 秋 冬 梅 蘭 菊 竹"
    )


class SeatButton(_Model):
    """A seat pressed one of its buttons: 胡 win, 聽 ready (天聽/地聽), 碰, 吃, 槓, 過 pass
    (also declining the 海底 draw). A claim that loses on priority is the button alone."""

    kind: Literal["seat_button"] = "seat_button"
    seat: Seat
    button: ButtonName = Field(  # type: ignore[valid-type]
        description='win 胡, ready 聽, pong 碰, chow 吃, kong 槓, pass 過 ("pung" still read)'
    )


class HandRevealed(_Model):
    """The winner's concealed tiles laid down after 胡, the winning tile included, as
    the sensors read them."""

    kind: Literal["hand_revealed"] = "hand_revealed"
    seat: Seat = Field(description="the winner")
    tiles: TileList


class TilesLeft(_Model):
    """The table's own count of the tiles still in the wall (the 16-tile reserve
    included); checked against the mirror's count."""

    kind: Literal["tiles_left"] = "tiles_left"
    count: Annotated[int, Field(ge=0, le=144)] = Field(description="tiles in the wall")


class Fault(_Model):
    """A fault of the machine itself raised or cleared: a jam, a motor or a sensor."""

    kind: Literal["fault"] = "fault"
    code: _named(c.FaultCode) = Field(  # type: ignore[valid-type]
        description="jam, motor or sensor"
    )
    unit: Annotated[int, Field(ge=0, le=255)] = Field(
        description="which motor or sensor (the board's own numbering)"
    )
    active: Annotated[int, Field(ge=0, le=1)] = Field(description="1 raised, 0 cleared")


class State(_Model):
    """The table's answer to a `request_state` command: where it thinks the game is."""

    kind: Literal["state"] = "state"
    phase: _named(c.Phase) = Field(  # type: ignore[valid-type]
        description="the machine's phase"
    )
    tiles_left: Annotated[int, Field(ge=0, le=144)] = Field(description="tiles in the wall")
    turn: SeatOrNone = Field(description="the seat whose turn it is, 255 unknown")
    dealer: SeatOrNone = Field(description="the dealer's seat, 255 unknown")


class TilesShown(_Model):
    """Tiles a seat exposed by its own fault, seen face up outside a meld (knocked over,
    shown): under 行牌禁制 8 such a tile may not be claimed or won on a discard."""

    kind: Literal["tiles_shown"] = "tiles_shown"
    seat: Seat = Field(description="the seat at fault")
    tiles: TileList


class CommandRefused(_Model):
    """The table acknowledged a command but did not carry it out (protocol §3.6)."""

    kind: Literal["command_refused"] = "command_refused"
    command_seq: Annotated[int, Field(ge=0, le=0xFFFF)] = Field(
        description="the refused command's link sequence number"
    )
    command_type: Annotated[int, Field(ge=0, le=255)] = Field(
        description="the refused command's message type code"
    )
    reason: _named(c.RefusalReason) = Field(  # type: ignore[valid-type]
        description="unknown_type, wrong_direction, bad_payload or not_now"
    )


class Invalid(_Model):
    """An intact frame the catalogue refused: kept so the event numbering has no hole."""

    kind: Literal["invalid"] = "invalid"
    type: int = Field(description="the frame's message type code")
    payload_hex: str = Field(description="the refused payload, in hex")
    error: str = Field(description="why the catalogue refused it")


EventBody = Annotated[
    ShuffleStarted | ShuffleFinished | WallBuilt | DiceRolled | TileDrawn | TileDiscarded
    | MeldExposed | FlowerRevealed | SeatButton | HandRevealed | TilesLeft | Fault | State
    | TilesShown | CommandRefused | Invalid,
    Field(discriminator="kind"),
]  # fmt: skip
EVENT_BODY: TypeAdapter[Any] = TypeAdapter(EventBody)


class Event(_Model):
    """One controller event. Consumers are idempotent on (table, boot_id, seq)."""

    schema_version: Literal[1] = Field(default=SCHEMA_VERSION, description="this schema's version")
    table: str = Field(description="the table's name, as the bridge's --table and the topic")
    boot_id: int = Field(
        ge=0, le=0xFFFFFFFF, description="the controller's boot id, new on every reset"
    )
    seq: int = Field(description="per boot, from 1 normally, never wraps; a jump is a gap")
    ts: float = Field(description="bridge receive time, Unix seconds")
    body: EventBody = Field(description="what the table saw; `kind` names it")

    @property
    def kind(self) -> str:
        return str(self.body.kind)

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.table, self.boot_id, self.seq)


# --- commands: …/set ----------------------------------------------------------------


# A caller's transaction id, echoed on the response: bounded like every outside value.
Transaction = Annotated[str, Field(max_length=128, description="echoed on the response")]


class _Command(_Model):
    transaction: Transaction | None = Field(None, description="echoed on …/set/response")


class StartShuffle(_Command):
    command: Literal["start_shuffle"] = "start_shuffle"


class RaiseWall(_Command):
    command: Literal["raise_wall"] = "raise_wall"


class SeatLed(_Command):
    command: Literal["seat_led"] = "seat_led"
    seat: SeatOrAll
    mode: _named(c.LedMode)  # type: ignore[valid-type]


class Alert(_Command):
    command: Literal["alert"] = "alert"
    seat: SeatOrAll
    code: _named(c.AlertCode)  # type: ignore[valid-type]
    beeps: Annotated[int, Field(ge=1, le=10)] = 1


class RequestState(_Command):
    command: Literal["request_state"] = "request_state"


class TimeSync(_Command):
    command: Literal["time_sync"] = "time_sync"
    unix_ms: Annotated[int, Field(ge=0, le=2**64 - 1)]


Command = Annotated[
    StartShuffle | RaiseWall | SeatLed | Alert | RequestState | TimeSync,
    Field(discriminator="command"),
]
COMMAND: TypeAdapter[Any] = TypeAdapter(Command)
COMMAND_NAMES: Final = frozenset(
    m.model_fields["command"].default
    for m in (StartShuffle, RaiseWall, SeatLed, Alert, RequestState, TimeSync)
)


class CommandResult(_Model):
    """On …/set/response: `ok` once the command is queued on a live link."""

    schema_version: Literal[1] = SCHEMA_VERSION
    command: str | None
    status: Literal["ok", "error"]
    error: str | None = None
    transaction: str | None = None


# --- bridge state and operations ----------------------------------------------------

Availability = Literal["online", "offline"]  # plain text, retained, set by the Last Will


class CountersPayload(_Model):
    schema_version: Literal[1] = SCHEMA_VERSION
    table: str
    frames_good: int
    frames_bad: int
    bad_by_reason: dict[str, int]
    events: int
    invalid_events: int
    duplicates: int
    gaps: int
    lost: int
    retransmits: int
    reconnects: int
    link_downs: int
    reboots: int
    commands_sent: int
    commands_dropped: int
    commands_refused: int = 0
    refusals_unanswered: int = 0
    published: int
    mqtt_reconnects: int
    replays: int
    outbox_depth: int


class LinkStatus(_Model):
    """Retained on …/bridge/link whenever the link changes state."""

    schema_version: Literal[1] = SCHEMA_VERSION
    table: str
    state: Literal["connecting", "handshaking", "up", "down", "version_mismatch"]
    port: str
    since: float
    protocol_version: int | None
    firmware_version: str | None
    controller_table_id: int | None
    boot_id: int | None
    last_seq: int | None
    counters: CountersPayload


class BridgeError(_Model):
    """On …/bridge/error (not retained): a refused frame or event, a loss, a reboot."""

    schema_version: Literal[1] = SCHEMA_VERSION
    table: str
    reason: str
    detail: str
    raw_hex: str = ""
    ts: float


class BridgeRequest(_Model):
    """On …/bridge/request/<op>; ops: status, resync, counters, replay."""

    model_config = ConfigDict(frozen=True, extra="allow")
    transaction: Transaction | None = None


class EventKey(_Model):
    boot_id: int = Field(ge=0, le=0xFFFFFFFF)
    seq: int = Field(ge=0, le=2**63 - 1, description="an Event's seq (SQLite's integer range)")


class ReplayRequest(_Model):
    """…/bridge/request/replay: publish again every event after `after` (all kept if null).

    A consumer that finds a gap in (boot_id, seq), or reconnects after a broker
    restart, names the last event it holds without a hole before it.
    """

    transaction: Transaction | None = None
    after: EventKey | None = None


class BridgeResponse(_Model):
    """On …/bridge/response/<op>, the caller's transaction echoed."""

    schema_version: Literal[1] = SCHEMA_VERSION
    status: Literal["ok", "error"]
    data: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    transaction: str | None = None


TOPIC_PAYLOADS: dict[str, Any] = {
    "bridge/availability": Availability,
    "bridge/link": LinkStatus,
    "bridge/counters": CountersPayload,
    "bridge/error": BridgeError,
    "bridge/request/+": BridgeRequest,
    "bridge/request/replay": ReplayRequest,
    "bridge/response/+": BridgeResponse,
    "event": Event,
    "set": Command,
    "set/response": CommandResult,
}


class Topics:
    """Full topic names of one table: `<base>/<table>/<suffix>`, suffixes as in TOPIC_PAYLOADS."""

    def __init__(self, base: str, table: str) -> None:
        self.root = f"{base}/{table}"
        self.availability = f"{self.root}/bridge/availability"
        self.link = f"{self.root}/bridge/link"
        self.counters = f"{self.root}/bridge/counters"
        self.error = f"{self.root}/bridge/error"
        self.event = f"{self.root}/event"
        self.set = f"{self.root}/set"
        self.set_response = f"{self.root}/set/response"
        self.requests = f"{self.root}/bridge/request/+"

    def response(self, op: str) -> str:
        return f"{self.root}/bridge/response/{op}"
