"""The bridge's published MQTT schema: every topic's payload, defined once (pydantic v2).

The table service imports these to read what the bridge publishes; `TOPIC_PAYLOADS`
is the one map from topic (below `<base>/<table>/`) to payload type. Every JSON
payload carries `schema_version`; an event carries its key (table, boot_id, seq).
"""

from __future__ import annotations

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


def _named(enum: type[E]) -> Any:
    """An IntEnum that reads a name (any case) or number and writes its lower-case name."""

    def parse(value: object) -> object:
        if isinstance(value, str):
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


Seat = Annotated[int, Field(ge=0, le=3)]
SeatOrAll = Annotated[int, Field(ge=0, le=255, description="0-3, or 255 for all seats")]
SeatOrNone = Annotated[int, Field(ge=0, le=255, description="0-3, or 255 for none")]
TileId = Annotated[int, Field(ge=0, le=143, description="physical tile id, id // 4 = kind")]
Stacks = Annotated[int, Field(ge=0, le=36)]
Die = Annotated[int, Field(ge=1, le=6)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- event bodies: one per device→host message kind --------------------------------


class ShuffleStarted(_Model):
    kind: Literal["shuffle_started"] = "shuffle_started"


class ShuffleFinished(_Model):
    kind: Literal["shuffle_finished"] = "shuffle_finished"


class WallBuilt(_Model):
    kind: Literal["wall_built"] = "wall_built"
    stacks_0: Stacks
    stacks_1: Stacks
    stacks_2: Stacks
    stacks_3: Stacks


class DiceRolled(_Model):
    kind: Literal["dice_rolled"] = "dice_rolled"
    roll: _named(c.DiceRoll)  # type: ignore[valid-type]
    die_1: Die
    die_2: Die
    die_3: Die


class TileDrawn(_Model):
    kind: Literal["tile_drawn"] = "tile_drawn"
    seat: Seat
    tile: TileId
    end: _named(c.End)  # type: ignore[valid-type]


class TileDiscarded(_Model):
    kind: Literal["tile_discarded"] = "tile_discarded"
    seat: Seat
    tile: TileId


class MeldExposed(_Model):
    kind: Literal["meld_exposed"] = "meld_exposed"
    seat: Seat
    meld: _named(c.MeldKind)  # type: ignore[valid-type]
    from_seat: SeatOrNone
    tiles: tuple[TileId, ...] = Field(min_length=3, max_length=4)


class FlowerRevealed(_Model):
    kind: Literal["flower_revealed"] = "flower_revealed"
    seat: Seat
    tile: Annotated[int, Field(ge=136, le=143)]


class SeatButton(_Model):
    kind: Literal["seat_button"] = "seat_button"
    seat: Seat
    button: _named(c.Button)  # type: ignore[valid-type]


class HandRevealed(_Model):
    kind: Literal["hand_revealed"] = "hand_revealed"
    seat: Seat
    tiles: tuple[TileId, ...] = Field(min_length=1, max_length=24)


class TilesLeft(_Model):
    kind: Literal["tiles_left"] = "tiles_left"
    count: Annotated[int, Field(ge=0, le=144)]


class Fault(_Model):
    kind: Literal["fault"] = "fault"
    code: _named(c.FaultCode)  # type: ignore[valid-type]
    unit: Annotated[int, Field(ge=0, le=255)]
    active: Annotated[int, Field(ge=0, le=1)]


class State(_Model):
    kind: Literal["state"] = "state"
    phase: _named(c.Phase)  # type: ignore[valid-type]
    tiles_left: Annotated[int, Field(ge=0, le=144)]
    turn: SeatOrNone
    dealer: SeatOrNone


class Invalid(_Model):
    """An intact frame the catalogue refused: kept so the event numbering has no hole."""

    kind: Literal["invalid"] = "invalid"
    type: int
    payload_hex: str
    error: str


EventBody = Annotated[
    ShuffleStarted | ShuffleFinished | WallBuilt | DiceRolled | TileDrawn | TileDiscarded
    | MeldExposed | FlowerRevealed | SeatButton | HandRevealed | TilesLeft | Fault | State
    | Invalid,
    Field(discriminator="kind"),
]  # fmt: skip
EVENT_BODY: TypeAdapter[Any] = TypeAdapter(EventBody)


class Event(_Model):
    """One controller event. Consumers are idempotent on (table, boot_id, seq)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    table: str
    boot_id: int = Field(ge=0, le=0xFFFFFFFF)
    seq: int = Field(description="per boot, from 1 normally, never wraps; a jump is a gap")
    ts: float = Field(description="bridge receive time, Unix seconds")
    body: EventBody

    @property
    def kind(self) -> str:
        return str(self.body.kind)

    @property
    def key(self) -> tuple[str, int, int]:
        return (self.table, self.boot_id, self.seq)


# --- commands: …/set ----------------------------------------------------------------


class _Command(_Model):
    transaction: str | None = Field(None, description="echoed on …/set/response")


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
    unix_ms: Annotated[int, Field(ge=0)]


Command = Annotated[
    StartShuffle | RaiseWall | SeatLed | Alert | RequestState | TimeSync,
    Field(discriminator="command"),
]
COMMAND: TypeAdapter[Any] = TypeAdapter(Command)


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
    transaction: str | None = None


class EventKey(_Model):
    boot_id: int = Field(ge=0, le=0xFFFFFFFF)
    seq: int = Field(ge=0)


class ReplayRequest(_Model):
    """…/bridge/request/replay: publish again every event after `after` (all kept if null).

    A consumer that finds a gap in (boot_id, seq), or reconnects after a broker
    restart, names the last event it holds without a hole before it.
    """

    transaction: str | None = None
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
