"""The API's own models: the bodies it reads and the answers it gives beside the store's
rows (table_service/store/rows.py), the live table's state among them.

The live state (`TableState`) is what `TableRunner.state()` returns: the mirror's
`snapshot()` (mirror.py, state.py) and what the service adds. It is typed here key by
key: a key added there must be added here, or the API leaves it out.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal, NotRequired, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    Tag,
    TypeAdapter,
    ValidationError,
    WithJsonSchema,
    field_validator,
)
from typing_extensions import TypedDict  # pydantic reads typing's only from Python 3.12

from table_service.mirror.rulings import Seat, Streak, Whole
from table_service.mirror.session import PRESETS, SessionStart
from table_service.mirror.state import MeldName, Phase
from table_service.rules.items import negative_item
from table_service.rules.profile import MAX_TAI, RULE_KEYS, TAI_IDS, Rules, SeatOrder, load_preset
from table_service.rules.rulebook import ClaimKind
from table_service.rules.tiles import Wind
from table_service.service.routes.common import ONE_LINE, ListedPlayer, MemberNo, Note, Player
from table_service.store import (
    Entry,
    HandRow,
    LedgerRow,
    Role,
    SessionRow,
    StandingRow,
    TokenRow,
)

# --- bodies ----------------------------------------------------------------------------------


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Preset = Annotated[str, Field(json_schema_extra={"enum": list(PRESETS)})]


def _tai_schema() -> dict[str, Any]:
    """[tai]'s schema, from the profile's own table of §4 items and their ranges."""
    items = {
        i: {
            "type": "integer",
            "minimum": -MAX_TAI if negative_item(i) else 0,
            "maximum": 0 if negative_item(i) else MAX_TAI,
        }
        for i in TAI_IDS
    }
    return {"type": "object", "properties": items, "additionalProperties": False}


def _rules_schema() -> dict[str, Any]:
    """[rules]' schema, from the profile's own switches and their types."""
    hints = get_type_hints(Rules)
    switches = {k: TypeAdapter(hints[k]).json_schema() for k in RULE_KEYS}
    return {"type": "object", "properties": switches, "additionalProperties": False}


class ProfileBody(TypedDict, total=False):
    """A rule profile: a preset with some of its choices changed (taiwan16.md §7; the
    stakes are the session's `base` and `per_tai`)."""

    __pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[misc]

    preset: Annotated[Preset, Field(description="the preset it changes (default mjonline)")]
    five_concealed_pongs: Annotated[Literal[12, 13], Field(description="五暗坎's 台")]
    earthly_ready: Annotated[Literal[4, 6], Field(description="地聽's 台")]
    lik_gu: Annotated[StrictBool, Field(description="嚦咕嚦咕 (八對半) is a win")]
    seat_order: Annotated[
        Literal["opening", "dealer"],
        Field(description="seat winds from the 開門位, or the dealer's seat is 東"),
    ]
    # Each key and value is checked by the profile's own code; the schema is derived from it.
    tai: Annotated[
        dict[str, Whole],
        WithJsonSchema(_tai_schema()),
        Field(description="the value of one unit of any §4 item, by id (e.g. full_flush: 8)"),
    ]
    rules: Annotated[
        dict[str, StrictBool | str],
        WithJsonSchema(_rules_schema()),
        Field(description="§7's switches by name (e.g. ping_hu_wait: two_sided_tile)"),
    ]


class SessionBody(_Body):
    """A session's start (replay-format.md's `session` body; the table is the path's)."""

    players: tuple[Player, Player, Player, Player] = ("0", "1", "2", "3")
    player_ids: (
        tuple[ListedPlayer | None, ListedPlayer | None, ListedPlayer | None, ListedPlayer | None]
        | None
    ) = Field(
        None,
        description="each seat's player of the club's list (GET /api/players), by id; null "
        "for a guest. A listed player plays under the list's name, whatever `players` says",
    )
    profile: Annotated[
        Annotated[Preset, Tag("name")] | Annotated[ProfileBody, Tag("choices")],
        Discriminator(lambda v: "name" if isinstance(v, str) else "choices"),
    ] = Field("mjonline", description="a preset's name, or a profile")
    base: Whole = Field(100, ge=0, le=1_000_000)
    per_tai: Whole = Field(20, ge=0, le=1_000_000)
    # Where the 將 stands: the table's own (what the mirror follows) unless the admin says.
    start_seat: Seat | None = Field(
        None, description="起莊位; default: the table's (0 for a new table)"
    )
    dealer: Seat | None = Field(None, description="the dealer; default: the table's next dealer")
    streak: Streak | None = Field(None, description="連莊 N; default: the table's")
    round_wind: Wind | None = Field(
        None, description="the round wind; default: the table's (東 for a new table)"
    )

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str | ProfileBody) -> str | ProfileBody:
        try:
            SessionStart(profile=dict(value) if isinstance(value, dict) else value)
        except ValidationError as exc:
            raise ValueError(exc.errors()[0]["msg"].removeprefix("Value error, ")) from None
        except Exception as exc:  # a value the profile code did not foresee
            raise ValueError(f"not a rule profile ({exc})") from None
        return value

    def start(self, table: str, start_seat: int = 0) -> SessionStart:
        """The session's start: what the body says. The dealer, streak and round it leaves
        open are the table's own when the session begins (after the hand under way, if one
        is); the 起莊位 is the table's now (a 將's, changed only by a 定莊 roll)."""
        given = {k: v for k, v in self.model_dump().items() if v is not None}
        return SessionStart.model_validate(
            {
                "start_seat": start_seat,
                "dealer": None,
                "streak": None,
                "round_wind": None,
                **given,
                "table": table,
            }
        )


class PlayerBody(_Body):
    """A player of the club's list."""

    name: Player
    nickname: Player | None = None
    member_no: MemberNo | None = None


class PlayerChange(_Body):
    """What changes: a key left out stays, a nickname or number given as null is cleared."""

    name: Player | None = None
    nickname: Player | None = None
    member_no: MemberNo | None = None


class ListedSeat(_Body):
    """A seat taken by a player of the club's list (GET /api/players)."""

    player_id: ListedPlayer


class GuestSeat(_Body):
    """A seat taken by a guest, by name alone."""

    name: Player


SeatCode = Annotated[str, Field(min_length=8, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
_CODE = Field(description="the seat's code, as the QR on the table's page carries it")


class ListedClaim(ListedSeat):
    code: SeatCode = _CODE


class GuestClaim(GuestSeat):
    code: SeatCode = _CODE


SeatBody = ListedSeat | GuestSeat  # who takes a seat: one of the list, or a guest
SeatClaim = ListedClaim | GuestClaim  # the same at the table, with the seat's code (no token)


class MergeBody(_Body):
    into: ListedPlayer = Field(description="the player who keeps both histories")


class DecisionBody(_Body):
    """A verdict on one violation: it stands (confirmed) or it does not (dismissed: what
    it caused is undone and every later record derived again)."""

    decision: Literal["confirmed", "dismissed"]
    note: Note = ""


class TokenBody(_Body):
    role: Role
    label: str = Field("", max_length=100, pattern=ONE_LINE)


# --- answers ---------------------------------------------------------------------------------


class Created(BaseModel):
    id: int


class NewToken(BaseModel):
    token: TokenRow
    secret: str = Field(description="the bearer token; shown once, stored only hashed")


class PresetValues(BaseModel):
    """A preset profile written out: what a session by its name is scored by (the stakes
    are the session's own)."""

    name: str = Field(description="the preset's name, as a session's `profile` gives it")
    seat_order: Literal["opening", "dealer"]
    tai: dict[str, int] = Field(description="every §4 item's value of one unit, by id")
    rules: dict[str, bool | str] = Field(description="every §7 switch, by name")

    @classmethod
    def of(cls, name: str) -> PresetValues:
        return cls.model_validate({"name": name, **load_preset(name).to_mapping()})


PRESET_VALUES: Final = [PresetValues.of(name) for name in PRESETS]


class LogEntry(BaseModel):
    """One entry of a table's log: a bridge event, or the service's own (session, correction)."""

    log_id: int = Field(description="the entry's place in the log")
    kind: str = Field(description="event, session, session_end or correction")
    boot_id: int | None = Field(description="the controller's boot (events only)")
    seq: int | None = Field(description="the event's number in its boot (events only)")
    ts: float | None = Field(description="the bridge's receive time (events only)")
    body: dict[str, Any] = Field(description="the event's body (docs/events.md) or the entry's")
    ruled: Literal["corrected", "dropped", "inserted"] | None = Field(
        None,
        description="a referee's ruling on it: its tile corrected (the body is the ruled "
        "one), an event that did not happen (the body as read), or one that was missing",
    )

    @classmethod
    def of(cls, entry: Entry) -> LogEntry:
        event = entry.event
        if event is None:
            return cls(
                log_id=entry.log_id,
                kind=entry.kind,
                boot_id=None,
                seq=None,
                ts=None,
                body=entry.body or {},
            )
        return cls(
            log_id=entry.log_id,
            kind=entry.kind,
            boot_id=event.boot_id,
            seq=event.seq,
            ts=event.ts,
            body=event.body.model_dump(mode="json"),
            ruled=entry.ruled,
        )


class SessionDetail(BaseModel):
    session: SessionRow
    standings: list[StandingRow]


class SessionExport(BaseModel):
    """A session whole (Store.export_session): the session, its hands oldest first, its
    ledger and its standings."""

    session: SessionRow
    hands: list[HandRow] = Field(description="the session's hands, oldest first")
    ledger: list[LedgerRow]
    standings: list[StandingRow]


# --- the live state of a table (TableRunner.state(), the mirror's snapshot()) ----------------

SeatNo = Annotated[int, Field(ge=0, le=3)]  # a seat answered (a body's `Seat` takes 1.0 too)
LinkState = Literal["connecting", "handshaking", "up", "down", "version_mismatch", "wrong_table"]


class MeldView(TypedDict):
    """A meld as shown: an 暗槓 during play by its kind alone (its tiles hidden), every
    other meld (and an 暗槓 once the hand is over, or to the referee) whole."""

    kind: MeldName
    tiles: NotRequired[Annotated[list[str], Field(description="its tiles (codes)")]]
    ids: NotRequired[Annotated[list[int], Field(description="its tiles' ids")]]
    from_seat: NotRequired[
        Annotated[
            SeatNo | None,
            Field(description="the seat whose discard it took; null for an 暗槓"),
        ]
    ]


class SeatView(TypedDict):
    """One seat this hand: public, but what only the referee may see during play (the
    concealed tiles, 過水) comes in the referee's view alone."""

    seat: SeatNo
    wind: Annotated[
        Wind | None, Field(description="the seat's wind this hand; null before the 開門位 is known")
    ]
    concealed_count: Annotated[int, Field(description="tiles in the seat's hand")]
    melds: list[MeldView]
    flowers: Annotated[list[str], Field(description="the flowers revealed (h1-h8)")]
    discards: Annotated[
        list[str], Field(description="its discards still lying, in order (claimed ones leave)")
    ]
    dead_hand: Annotated[bool, Field(description="相公: the seat may no longer win")]
    declared: Annotated[
        Literal["heavenly_ready", "earthly_ready"] | None,
        Field(
            description="a 天聽/地聽 declaration; the public sees a void one as declared until "
            "the hand ends"
        ),
    ]
    owed_replacements: Annotated[
        int, Field(description="replacement tiles owed from the 槓尾 (flowers revealed, kongs)")
    ]
    laid_down: NotRequired[
        Annotated[
            list[str],
            Field(description="the hand it laid down to end the hand (a win, a 詐胡), once over"),
        ]
    ]
    passed_win: NotRequired[Annotated[bool, Field(description="過水 (the referee's view only)")]]
    concealed: NotRequired[
        Annotated[list[str], Field(description="the concealed tiles (the referee's view only)")]
    ]
    concealed_ids: NotRequired[
        Annotated[list[int], Field(description="their ids (the referee's view only)")]
    ]


class Claimable(TypedDict):
    """A discard (or a 加槓 tile) others may still claim."""

    tile: Annotated[str, Field(description="the tile (code)")]
    from_seat: Annotated[SeatNo, Field(description="the discarder, or the kong adder")]
    claims: Annotated[
        list[list[ClaimKind]],
        Field(description="each seat's claims on it by the rules alone, by seat"),
    ]


class HandView(TypedDict):
    """The hand under way (or the last one, once over)."""

    phase: Phase
    judged: Annotated[
        bool,
        Field(description="false: not seen from its start, only followed (no record, no money)"),
    ]
    dealer: SeatNo
    dice: Annotated[tuple[int, int, int] | None, Field(description="the three dice, once rolled")]
    opening_seat: Annotated[
        SeatNo | None, Field(description="開門位: the seat the wall is opened at, once known")
    ]
    turn: Annotated[SeatNo, Field(description="the seat whose turn it is")]
    step: Annotated[Literal["draw", "discard"], Field(description="what that seat does next")]
    tiles_left: Annotated[int, Field(description="tiles left in the wall")]
    drawable: Annotated[
        int, Field(description="tiles that may still be drawn (the wall less 殘牌)")
    ]
    reserve: Annotated[int, Field(description="殘牌: the tiles left undrawn (16 at most)")]
    claimable: Claimable | None
    seats: list[SeatView]


class RuledDeal(TypedDict):
    """A referee's deal ruling waiting for the hand under way to end."""

    dealer: SeatNo
    streak: int
    round_wind: Wind


class TableState(TypedDict):
    """A table's live state: the mirror's picture of it and what the service knows of its
    bridge."""

    table: Annotated[str, Field(description="the table's id")]
    players: Annotated[list[str], Field(description="the four players' names, by seat 0-3")]
    profile: Annotated[str, Field(description="the rule profile's name")]
    seat_order: Annotated[
        SeatOrder,
        Field(description="whom the seat winds count from: the 開門位 or the dealer (§2)"),
    ]
    dealer: SeatNo
    streak: Annotated[int, Field(description="連莊 N")]
    round_wind: Wind
    start_seat: Annotated[SeatNo, Field(description="起莊位: the 將's first dealer")]
    deal_in_round: Annotated[
        int, Field(ge=1, le=4, description="the dealer's place in the round, from 1")
    ]
    hands: Annotated[int, Field(description="hands scored in the session")]
    seating_key: Annotated[
        str | None,
        Field(
            description="changes whenever the seats' QR codes do (a code used, a restart): "
            "the table's page draws them anew; null when no seat may be taken"
        ),
    ]
    seating: Annotated[
        list[str] | None,
        Field(
            description="the names at the seats of the session waiting for its first shuffle, "
            "while players may still take seats (GET /api/tables/{table}/seats); null after"
        ),
    ]
    totals: Annotated[list[int], Field(description="each seat's money in the session")]
    hand: Annotated[HandView | None, Field(description="the hand under way, or the last one")]
    ruled_deal: RuledDeal | None
    session_id: Annotated[int | None, Field(description="the session running")]
    next_session_id: Annotated[
        int | None, Field(description="a session asked for, beginning at the next shuffle")
    ]
    online: Annotated[
        bool | None, Field(description="the bridge's availability; null: never heard")
    ]
    link: Annotated[
        LinkState | None, Field(description="the bridge's link to the table; null: never heard")
    ]


class Seated(BaseModel):
    """A seat as the session being seated has it now."""

    session_id: int
    seat: SeatNo
    name: str
    player_id: int | None


class Seating(BaseModel):
    """The seats of the session a table is waiting to begin (its first shuffle not come)."""

    open: bool = Field(description="whether seats may still be taken (before the first shuffle)")
    session_id: int | None = Field(description="the session being seated, or running")
    seats: list[Seated]
