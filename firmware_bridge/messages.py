"""The bridge's published MQTT schema: every topic's payload, defined once (pydantic v2).

The table service imports these to read what the bridge publishes; `TOPIC_PAYLOADS`
is the one map from topic (below `<base>/<table>/`) to payload type. Every JSON
payload carries `schema_version`; an event carries its key (table, boot_id, seq).
The event bodies and the commands are derived from the catalogue's dataclasses (field
names, ranges, enums, docstrings and descriptions): each message is defined once.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Literal, TypeVar, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    TypeAdapter,
    WithJsonSchema,
    create_model,
)

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.frame import MAX_PAYLOAD

SCHEMA_VERSION: Final = 1
TABLE_PATTERN: Final = r"^[A-Za-z0-9_-]{1,32}$"  # a table id: in topics, the API, the pages
MAX_SEQ: Final = 2**63 - 1  # an event's seq: the store keeps it as a BIGINT
INVALID_ERROR_MAX: Final = 2000  # an `invalid` body's reason, in characters
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


# 碰 was "pung" on the wire before the rules' "pong" became the one name; still read.
OLD_NAMES: dict[type[IntEnum], dict[str, IntEnum]] = {
    c.MeldKind: {"pung": c.MeldKind.PONG},
    c.Button: {"pung": c.Button.PONG},
}


def _field(spec: c.FieldSpec) -> tuple[Any, Any]:
    """A catalogue field as a pydantic field: the same range, enum names and description."""
    text = spec.description
    if issubclass(spec.type, IntEnum):
        old = OLD_NAMES.get(spec.type, {})
        one: Any = _named(spec.type, old)
        if old:
            text += "".join(f' (the old name "{name}" is still read)' for name in old)
    else:
        assert spec.range is not None  # an int field always has one
        one = Annotated[int, Field(ge=spec.range.low, le=spec.range.high)]
        if spec.range.also is not None:
            one = Union[one, Literal[spec.range.also]]  # noqa: UP007 (a runtime value)
    if spec.count is not None:
        one = Annotated[
            tuple[one, ...], Field(min_length=spec.count.low, max_length=spec.count.high)
        ]
    return one, Field(description=text or None)


def _tag(name: str) -> Any:
    """The discriminator field of a derived model: `name`, and nothing else."""
    return (Literal[name], name)


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- event bodies: one per device→host message kind --------------------------------
# Derived from the catalogue (its annotations and docstrings); docs/events.md from these.


class _Body(_Model):
    """Base of every event body."""

    kind: str


class WireBody(_Body):
    """A body derived from a catalogue event: its fields have the catalogue's ranges."""

    MESSAGE: ClassVar[type[c.Message]]

    def to_message(self) -> c.Message:
        """The catalogue message this body describes; ValueError if the wire cannot carry it."""
        return self.MESSAGE(**{s.name: getattr(self, s.name) for s in c.field_specs(self.MESSAGE)})


def body_model(message: type[c.Message]) -> type[WireBody]:
    """The event body of a catalogue event: its kind, fields, docstring and descriptions.

    Each field takes the catalogue's range, enum or tile count. The catalogue's checks
    across fields (`check_across`: a meld's tile count) are not repeated: a reader of a
    recorded or hand-made body judges those itself (the mirror: an `impossible` fault).
    """
    doc = message.__doc__ or ""
    if not doc.strip() or doc.startswith(f"{message.__name__}("):  # dataclass's own
        raise TypeError(f"{message.__name__}: no docstring to document its body with")
    fields: dict[str, Any] = {spec.name: _field(spec) for spec in c.field_specs(message)}
    model = create_model(
        message.__name__,
        __base__=WireBody,
        __module__=__name__,
        __doc__=doc,
        kind=_tag(message.KIND),
        **fields,
    )
    model.MESSAGE = message
    return model


ShuffleStarted = body_model(c.ShuffleStarted)
ShuffleFinished = body_model(c.ShuffleFinished)
WallBuilt = body_model(c.WallBuilt)
DiceRolled = body_model(c.DiceRolled)
TileDrawn = body_model(c.TileDrawn)
TileDiscarded = body_model(c.TileDiscarded)
MeldExposed = body_model(c.MeldExposed)
FlowerRevealed = body_model(c.FlowerRevealed)
SeatButton = body_model(c.SeatButton)
HandRevealed = body_model(c.HandRevealed)
TilesLeft = body_model(c.TilesLeft)
Fault = body_model(c.Fault)
State = body_model(c.State)
TilesShown = body_model(c.TilesShown)
CommandRefused = body_model(c.CommandRefused)


class Invalid(_Body):
    """An intact frame the bridge could not read: kept so the event numbering has no hole."""

    kind: Literal["invalid"] = "invalid"
    type: int = Field(ge=0, le=0xFF, description="the frame's message type code")
    payload_hex: str = Field(
        max_length=2 * MAX_PAYLOAD,
        pattern=r"^([0-9a-f]{2})*$",
        description=f"the refused payload, in hex (a frame's at most {MAX_PAYLOAD} bytes)",
    )
    error: str = Field(
        max_length=INVALID_ERROR_MAX,
        description="why the catalogue (or, for a body it accepted, the schema) refused it",
    )


EVENT_BODIES: Final[tuple[type[_Body], ...]] = (
    ShuffleStarted, ShuffleFinished, WallBuilt, DiceRolled, TileDrawn, TileDiscarded,
    MeldExposed, FlowerRevealed, SeatButton, HandRevealed, TilesLeft, Fault, State,
    TilesShown, CommandRefused, Invalid,
)  # fmt: skip
if TYPE_CHECKING:
    EventBody = _Body
else:
    EventBody = Annotated[Union[EVENT_BODIES], Field(discriminator="kind")]  # noqa: UP007
EVENT_BODY: TypeAdapter[Any] = TypeAdapter(EventBody)


class Event(_Model):
    """One controller event. Consumers are idempotent on (table, boot_id, seq)."""

    schema_version: Literal[1] = Field(default=SCHEMA_VERSION, description="this schema's version")
    table: str = Field(
        pattern=TABLE_PATTERN,
        description="the table's name, as the bridge's --table and the topic",
    )
    boot_id: int = Field(
        ge=0, le=0xFFFFFFFF, description="the controller's boot id, new on every reset"
    )
    seq: int = Field(
        ge=1,
        le=MAX_SEQ,
        description="per boot, from 1, never wraps; a jump is a gap (the store's BIGINT range)",
    )
    ts: float = Field(
        allow_inf_nan=False, description="bridge receive time, Unix seconds (a finite number)"
    )
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


def command_model(message: type[c.Message], **defaults: Any) -> type[_Command]:
    """The …/set payload of a catalogue command, its fields derived like a body's."""
    fields: dict[str, Any] = {}
    for spec in c.field_specs(message):
        kind, info = _field(spec)
        if spec.name in defaults:
            info = Field(defaults[spec.name], description=info.description)
        fields[spec.name] = (kind, info)
    return create_model(
        message.__name__,
        __base__=_Command,
        __module__=__name__,
        command=_tag(message.KIND),
        **fields,
    )


StartShuffle = command_model(c.StartShuffle)
RaiseWall = command_model(c.RaiseWall)
SeatLed = command_model(c.SeatLed)
Alert = command_model(c.Alert, beeps=1)
RequestState = command_model(c.RequestState)
TimeSync = command_model(c.TimeSync)
COMMANDS: Final = (StartShuffle, RaiseWall, SeatLed, Alert, RequestState, TimeSync)
if TYPE_CHECKING:
    Command = _Command
else:
    Command = Annotated[Union[COMMANDS], Field(discriminator="command")]  # noqa: UP007
COMMAND: TypeAdapter[Any] = TypeAdapter(Command)
COMMAND_NAMES: Final = frozenset(m.model_fields["command"].default for m in COMMANDS)


CommandOutcomeName = Literal["done", "refused", "unknown", "error"]


class CommandResult(_Model):
    """On …/set/response: what became of a command (docs/protocol.md §3.10); `status` is
    `ok` only for `done`.

    `done`: acknowledged by the controller; `refused`: it sent COMMAND_REFUSED (`reason`);
    `unknown`: it rebooted before acknowledging; `error`: never sent (`error` says why).
    A retry with the same `transaction` is not sent again: it gets the first outcome.
    """

    schema_version: Literal[1] = SCHEMA_VERSION
    command: str | None
    status: Literal["ok", "error"]
    outcome: CommandOutcomeName
    error: str | None = None
    reason: str | None = None
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
    commands_refused: int = 0  # by the controller (COMMAND_REFUSED)
    commands_rejected: int = 0  # by the bridge itself, never sent to the controller
    refusals_unanswered: int = 0
    published: int
    mqtt_reconnects: int
    replays: int
    replays_limited: int = 0  # replay requests refused: over the per-bridge rate
    outbox_depth: int


class LinkStatus(_Model):
    """Retained on …/bridge/link whenever the link changes state."""

    schema_version: Literal[1] = SCHEMA_VERSION
    table: str
    state: Literal["connecting", "handshaking", "up", "down", "version_mismatch", "wrong_table"]
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
    seq: int = Field(
        ge=0, le=MAX_SEQ, description="an Event's seq; 0 names the start of boot `boot_id`"
    )


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
    """Full topic names of one table, `<base>/<table>/<suffix>`: the bridge's (suffixes as
    in TOPIC_PAYLOADS) and the table service's (`service/<record>`). The one map both
    sides build their topics from; `Topics(base, "+")` gives every table's, to subscribe
    to and match with (aiomqtt's `Topic.matches`)."""

    def __init__(self, base: str, table: str) -> None:
        self.base, self.table = base, table
        self.root = f"{base}/{table}"
        self.availability = f"{self.root}/bridge/availability"
        self.link = f"{self.root}/bridge/link"
        self.counters = f"{self.root}/bridge/counters"
        self.error = f"{self.root}/bridge/error"
        self.event = f"{self.root}/event"
        self.set = f"{self.root}/set"
        self.set_response = f"{self.root}/set/response"
        self.requests = self.request("+")
        self.service_state = self.service("state")

    def request(self, op: str) -> str:
        return f"{self.root}/bridge/request/{op}"

    def response(self, op: str) -> str:
        return f"{self.root}/bridge/response/{op}"

    def service(self, record: str) -> str:
        """The service's news of the table: `hand`, `ruling`, a record's type, `state`."""
        return f"{self.root}/service/{record}"

    def table_in(self, topic: str) -> str:
        """The table a topic of this base names (the level after the base)."""
        return topic.split("/")[self.base.count("/") + 1]


def service_availability(base: str, member: int = 0) -> str:
    """The table service's own retained `online` / `degraded` / `offline`: the first
    process's; each further process of one set of records (its member slot) has its own."""
    return f"{base}/service/{member}/availability" if member else f"{base}/service/availability"
