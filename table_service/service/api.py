"""The HTTP and WebSocket face of the service (FastAPI; OpenAPI at /docs).

Reads are public (the scoreboard); writes need a bearer token with a role: `referee`
(decide violations, enter corrections and penalties) or `admin` (also sessions and
tokens). Every error is a JSON `{"error": …}` with a precise 4xx status (a body or a
parameter that does not validate: 422, with `detail` naming each field at fault), and
every route declares in the schema the errors it can give.

Before the app reads a request, guards.py refuses what would cost it dear: a body over
the limit (413), a write without a bearer token (401), a client that guesses tokens
(429, with `Retry-After`), a crowd of WebSockets (closed at accept with 1013). Every list
is a page, newest first (`limit`, `before` an id); the exports give a session whole.
"""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal, cast, get_type_hints

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
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
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.routing import Match
from starlette.websockets import WebSocketDisconnect
from typing_extensions import TypedDict

from dashboard import STATIC
from firmware_bridge.stopping import cancel_and_wait
from table_service.mirror.rulings import Ruling, Seat, Streak, Whole
from table_service.mirror.session import PRESETS, SessionStart
from table_service.rules.items import negative_item
from table_service.rules.profile import MAX_TAI, RULE_KEYS, TAI_IDS, Rules, load_preset
from table_service.service.disclosure import WITHHELD
from table_service.service.guards import (
    AUTH_CLIENTS,
    AUTH_FREE,
    AUTH_RATE,
    MAX_BODY,
    TRY_AGAIN_LATER,
    WS_PER_CLIENT,
    WS_TOTAL,
    AuthLimiter,
    RequestGuard,
    Routing,
    SocketGate,
    client_of,
)
from table_service.service.health import Health
from table_service.service.hub import FLUSH_EVERY, RESYNC
from table_service.service.live import Service
from table_service.service.static import GZIP_MIN_BYTES, DashboardFiles, favicon
from table_service.service.vocabulary import VOCABULARY, Vocabulary
from table_service.store import (
    RANKED,
    CorrectionRow,
    DecisionRow,
    Entry,
    FaultRow,
    HandRow,
    InvalidEntry,
    LedgerRow,
    NotFound,
    PlayerHand,
    PlayerRow,
    PlayerStats,
    SessionRow,
    Standing,
    StandingRow,
    Store,
    TokenRow,
    ViolationRow,
)

# Row ids are 32-bit integers in PostgreSQL: a larger one names no row, and must not
# reach the database (which refuses it as out of range, a 500).
MAX_ID: Final = 2**31 - 1
TABLE_PATTERN: Final = r"^[A-Za-z0-9_-]{1,32}$"
READ_THREADS: Final = 2  # the store's readers at once (the writer has a thread of its own)
GONE: Final = (WebSocketDisconnect, OSError, RuntimeError)  # a client that went mid-send
# Text the database can keep: PostgreSQL refuses NUL in text, and a name or a label is
# one line.
NO_NUL: Final = r"^[^\x00]*$"
ONE_LINE: Final = r"^[^\x00-\x1f\x7f]*$"

TableName = Annotated[str, Path(pattern=TABLE_PATTERN, description="table id")]
TableFilter = Annotated[
    str | None, Query(pattern=TABLE_PATTERN, description="only this table's (a table id)")
]
SessionFilter = Annotated[int | None, Query(ge=1, le=MAX_ID, description="only this session's")]
ProfileFilter = Annotated[
    Literal[*PRESETS] | None,  # type: ignore[valid-type]
    Query(description="only the sessions played by this rule profile (a preset)"),
]
HandId = Annotated[int, Path(ge=1, le=MAX_ID, description="a hand's id")]
SessionId = Annotated[int, Path(ge=1, le=MAX_ID, description="a session's id")]
ViolationId = Annotated[int, Path(ge=1, le=MAX_ID, description="a violation's id")]
TokenId = Annotated[int, Path(ge=1, le=MAX_ID, description="a token's id")]
PlayerId = Annotated[int, Path(ge=1, le=MAX_ID, description="a player's id")]
ListedPlayer = Annotated[int, Field(ge=1, le=MAX_ID)]
Seconds = Annotated[
    float | None, Query(ge=0, le=4e9, description="a span's bound, Unix seconds (a hand's end)")
]
Role = Literal["referee", "admin"]
Limit = Annotated[int, Query(ge=1, le=1000, description="the page's size (newest first)")]
Before = Annotated[
    int | None, Query(ge=1, le=MAX_ID, description="the page below this id (the last one seen)")
]
Player = Annotated[str, Field(min_length=1, max_length=64, pattern=ONE_LINE)]
Note = Annotated[str, Field(max_length=500, pattern=NO_NUL)]


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where: body/query/path, then the field's path")
    msg: str = Field(description="what is wrong with it")


class ErrorBody(BaseModel):
    error: str = Field(description="what was wrong, in one sentence")
    detail: list[FieldError] | None = Field(
        None, description="the fields at fault, for a request that did not validate"
    )


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


Preset = Annotated[str, Field(json_schema_extra={"enum": list(PRESETS)})]


def _tai_schema() -> dict[str, Any]:
    """[tai]'s schema, from the profile's own table of §4 items and their ranges."""
    items = {
        i: {"type": "integer", "minimum": -MAX_TAI if negative_item(i) else 0,
            "maximum": 0 if negative_item(i) else MAX_TAI}
        for i in TAI_IDS
    }  # fmt: skip
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
    round_wind: Literal["E", "S", "W", "N"] | None = Field(
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
            {"start_seat": start_seat, "dealer": None, "streak": None, "round_wind": None,
             **given, "table": table}
        )  # fmt: skip


MemberNo = Annotated[str, Field(min_length=1, max_length=32, pattern=ONE_LINE)]


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


class NewToken(BaseModel):
    token: TokenRow
    secret: str = Field(description="the bearer token; shown once, stored only hashed")


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
            return cls(log_id=entry.log_id, kind=entry.kind, boot_id=None, seq=None, ts=None,
                       body=entry.body or {})  # fmt: skip
        return cls(
            log_id=entry.log_id, kind=entry.kind, boot_id=event.boot_id, seq=event.seq,
            ts=event.ts, body=event.body.model_dump(mode="json"),
            ruled=entry.ruled,
        )  # fmt: skip


class SessionDetail(BaseModel):
    session: SessionRow
    standings: list[StandingRow]


class Created(BaseModel):
    id: int


# --- the errors each route declares --------------------------------------------------------

_ERROR: Final[dict[str, Any]] = {"model": ErrorBody}
_UNAUTHORIZED: Final[dict[str, Any]] = {
    "model": ErrorBody,
    "description": "no bearer token, or an unknown or revoked one",
    "headers": {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "Bearer"}},
}
_TOO_MANY: Final[dict[str, Any]] = {
    "model": ErrorBody,
    "description": "too many unknown tokens from this client: wait before the next",
    "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}},
}


def errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The `responses` of a route that can give these error statuses."""
    described = {
        400: "a body that could not be read (not UTF-8)",
        403: "the token's role may not do this",
        404: "no such table, session, hand, violation or token",
        409: "the table is not in a state that allows it",
        413: "a body over the limit (refused before it is read)",
        422: "a parameter or body that does not validate (`detail` names the fields)",
    }
    special = {401: _UNAUTHORIZED, 429: _TOO_MANY}
    return {code: special.get(code) or {**_ERROR, "description": described[code]} for code in codes}


READ: Final = errors(422)  # query parameters only
READ_ONE: Final = errors(404, 422)
REFEREE: Final = errors(401, 404, 422, 429)
ADMIN: Final = errors(401, 403, 422, 429)
BODY: Final = errors(400, 413)  # a route that reads a body

# --- tokens --------------------------------------------------------------------------------

_bearer = HTTPBearer(
    auto_error=False,
    description="a token from `mjtable token create` or POST /api/tokens",
)


async def _authorize(
    request: Request, credentials: HTTPAuthorizationCredentials | None, needed: Role
) -> TokenRow:
    """The request's token, if it is valid and may do what `needed` may. A client that
    guessed too often is refused before its token is looked up (hashed, read in a thread)."""
    if credentials is None:
        raise HTTPException(401, "a bearer token is needed", {"WWW-Authenticate": "Bearer"})
    limiter: AuthLimiter = request.app.state.auth_limiter
    client = client_of(request.scope)
    wait = limiter.retry_after(client)
    if wait is not None:
        raise HTTPException(
            429, f"too many unknown tokens from {client}; try again in {wait} s",
            {"Retry-After": str(wait)},
        )  # fmt: skip
    token = await asyncio.to_thread(request.app.state.store.token_for, credentials.credentials)
    if token is None:
        limiter.failed(client)
        raise HTTPException(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer"})
    if needed == "admin" and token.role != "admin":
        raise HTTPException(403, f"this needs the admin role; the token is {token.role}")
    return cast(TokenRow, token)


_ROLE_OF: dict[Callable[..., Any], Role] = {}  # each token dependency and its role


def _needs(role: Role) -> Callable[..., Any]:
    """A dependency that passes a token of `role` (an admin may do what a referee does)."""

    async def check(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    ) -> TokenRow:
        return await _authorize(request, credentials, role)

    _ROLE_OF[check] = role
    return check


RefereeToken = Annotated[TokenRow, Depends(_needs("referee"))]
AdminToken = Annotated[TokenRow, Depends(_needs("admin"))]


# No inline script anywhere (a name like `<img onerror=…>` can never run), nothing from
# elsewhere: every page, script, style, font and socket is this service's own.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
DOCS_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")  # Swagger UI


def _day(at: float | None) -> str | None:
    """A time as its UTC date, for a file's name."""
    return None if at is None else datetime.fromtimestamp(at, UTC).date().isoformat()


def csv_name(session: SessionRow) -> str:
    """The session's CSV file name: session-<id>-<table>-<start date, UTC>.csv (ASCII only,
    so every browser keeps it)."""
    table = re.sub(r"[^A-Za-z0-9_-]", "_", session.table)
    return f"session-{session.id}-{table}-{_day(session.started_at)}.csv"


def create_app(
    service: Service,
    store: Store,
    *,
    max_body: int = MAX_BODY,
    auth_free: int = AUTH_FREE,
    auth_rate: float = AUTH_RATE,
    auth_clients: int = AUTH_CLIENTS,
    ws_per_client: int = WS_PER_CLIENT,
    ws_total: int = WS_TOTAL,
) -> FastAPI:
    """The app over a running service and its store (the app runs in the service's loop).

    `max_body`: bytes a request body may have; `auth_free` unknown tokens a client may
    present at once, then `auth_rate` a second (of `auth_clients` addresses tracked at
    most); `ws_per_client` WebSockets from one address and `ws_total` in all."""
    query_names: dict[Any, frozenset[str]] = {}  # each endpoint's query parameters (below)

    async def known_query(connection: HTTPConnection) -> None:
        """A query parameter no route takes is refused, not ignored: the schema says
        exactly what the API takes."""
        known = query_names.get(connection.scope.get("endpoint"))
        if known is None or connection.scope["type"] != "http":
            return
        unknown = sorted({k for k in connection.query_params if k not in known})
        if unknown:
            taken = ", ".join(sorted(known)) or "none"
            raise RequestValidationError([
                {"loc": ("query", name), "msg": f"unknown parameter (taken: {taken})",
                 "type": "extra_forbidden"}
                for name in unknown
            ])  # fmt: skip

    app = FastAPI(
        title="mjtable",
        description="Live state, records and referee tools of automatic mahjong tables "
        "(Taiwanese 16-tile rules).",
        version="1",
        docs_url=None,  # served below from vendored files: nothing from a CDN
        redoc_url=None,
        dependencies=[Depends(known_query)],
    )
    app.state.service = service
    app.state.store = store
    app.state.auth_limiter = AuthLimiter(auth_free, auth_rate, auth_clients)
    app.state.sockets = SocketGate(ws_per_client, ws_total)  # .clients, .refused: for health
    needs: dict[Any, Role] = {}  # each endpoint that takes a token, and its role (below)

    readers = ThreadPoolExecutor(READ_THREADS, thread_name_prefix="mjtable-reader")

    async def db(call: Any, *args: Any, **kwargs: Any) -> Any:
        """A read of the store in one of the readers' few threads: a crowd of readers
        queues there, and never outnumbers the writer's thread for the interpreter."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(readers, functools.partial(call, *args, **kwargs))

    def error(status: int, message: str, **extra: Any) -> JSONResponse:
        return JSONResponse({"error": message, **extra}, status)

    async def denied(request: Request) -> JSONResponse | None:
        """A write is refused for its token before anything else is said about it."""
        needed = needs.get(request.scope.get("endpoint"))
        if needed is None:
            return None
        try:
            await _authorize(request, await _bearer(request), needed)
        except HTTPException as exc:
            return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)
        return None

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and (refused := await denied(request)) is not None:
            return refused
        return JSONResponse({"error": str(exc.detail)}, exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        refused = await denied(request)
        if refused is not None:
            return refused
        detail = [
            {"loc": [p if isinstance(p, int) else str(p) for p in e.get("loc", ())],
             "msg": str(e.get("msg", "")).removeprefix("Value error, ")}
            for e in exc.errors()
        ]  # fmt: skip
        first = detail[0] if detail else {"loc": [], "msg": "invalid"}
        where = ".".join(str(p) for p in first["loc"])
        return error(422, f"{where}: {first['msg']}", detail=detail)

    @app.exception_handler(Exception)
    async def crashed(_: Request, exc: Exception) -> Response:
        return error(500, f"internal error ({type(exc).__name__})")

    async def kept(call: Any, *args: Any) -> Any:
        """A store call in a reader's thread; what it names missing is a 404, what it
        refuses (a name taken, a merge that cannot be) a 409."""
        try:
            return await db(call, *args)
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None
        except InvalidEntry as exc:
            raise HTTPException(409, str(exc)) from None

    def runner_or_404(table: str) -> Any:
        runner = service.runner(table)
        if runner is None:
            raise HTTPException(404, f"no table {table!r}")
        return runner

    # --- reads ------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> Health:
        """What the service does now: `degraded`, with the reasons, whenever events are not
        being stored (the database away, the broker away, the locks lost, the writer
        stalled, the backlog full); the tables it follows and the age of each one's last
        stored event."""
        return service.health().model_copy(update={"websockets": app.state.sockets.counts()})

    @app.get("/api/tables")
    async def tables() -> list[dict[str, Any]]:
        """Every table's live state (concealed tiles are never shown during play)."""
        return [service.tables[t].state() for t in service.table_names()]

    @app.get("/api/vocabulary", responses=READ)
    async def vocabulary() -> Vocabulary:
        """The names of the rules, from the rulebook: every violation and fault code (the
        rules it enforces, whether it makes the seat 相公, its name and meaning in Chinese
        and English), every 台 item (names, default 台) and the claims' names."""
        return VOCABULARY

    @app.get("/api/profiles", responses=READ)
    async def profiles() -> list[PresetValues]:
        """The preset profiles a session may name, each written out: the values a form
        starts from when it changes some of them (a `profile` of `{"preset": …, …}`)."""
        return PRESET_VALUES

    @app.get("/api/tables/{table}", responses=READ_ONE)
    async def table(table: TableName) -> dict[str, Any]:
        """The table's live state as the public may see it: no concealed tiles during play
        (an 暗槓 by its kind alone), no 過水, a void declaration still shown as declared."""
        return dict(runner_or_404(table).state())

    @app.get("/api/tables/{table}/referee", responses=REFEREE)
    async def table_for_referee(table: TableName, _: RefereeToken) -> dict[str, Any]:
        """The table's live state as the referee sees it: every seat's concealed tiles and
        its 過水, an 暗槓's tiles, a declaration as judged."""
        return dict(runner_or_404(table).state(concealed=True))

    @app.get("/api/tables/{table}/hands", responses=READ_ONE)
    async def table_hands(
        table: TableName,
        session_id: SessionFilter = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="a hand id")] = None,
    ) -> list[HandRow]:
        """The table's hands, newest first, a page of `limit` below the hand `before`."""
        runner_or_404(table)
        return list(await db(store.hands, table, session_id, limit, before))

    @app.get("/api/hands/{hand_id}", responses=READ_ONE)
    async def hand(hand_id: HandId) -> HandRow:
        row = await db(store.hand, hand_id)
        if row is None:
            raise HTTPException(404, f"no hand {hand_id}")
        return cast(HandRow, row)

    @app.get("/api/hands/{hand_id}/events", responses=READ_ONE)
    async def hand_events(hand_id: HandId) -> list[LogEntry]:
        """Every entry of the table's log the hand was played in, in order: a finished hand
        stepped through event by event (its tiles are no secret once it is over)."""
        entries = await db(store.hand_entries, hand_id)
        if entries is None:
            raise HTTPException(404, f"no hand {hand_id}")
        return [LogEntry.of(e) for e in entries]

    @app.get("/api/sessions", responses=READ)
    async def sessions(
        table: TableFilter = None, limit: Limit = 100, before: Before = None
    ) -> list[SessionRow]:
        """Sessions newest first, a page of `limit` below the session `before`."""
        return list(await db(store.sessions, table, limit, before))

    async def session_or_404(session_id: int) -> SessionRow:
        row = await db(store.session, session_id)
        if row is None:
            raise HTTPException(404, f"no session {session_id}")
        return cast(SessionRow, row)

    @app.get("/api/sessions/{session_id}", responses=READ_ONE)
    async def session(session_id: SessionId) -> SessionDetail:
        row = await session_or_404(session_id)
        return SessionDetail(session=row, standings=await db(store.standings, session_id))

    @app.get("/api/sessions/{session_id}/ledger", responses=READ_ONE)
    async def ledger(session_id: SessionId) -> list[LedgerRow]:
        await session_or_404(session_id)
        return list(await db(store.ledger, session_id))

    @app.get(
        "/api/sessions/{session_id}/export",
        response_model=None,
        responses={
            200: {
                "description": "the session, its hands, ledger and standings (JSON), or a "
                "spreadsheet of a row per hand and per correction (CSV, UTF-8 with a BOM, "
                "named session-<id>-<table>-<start date>.csv)",
                "content": {
                    "application/json": {"schema": {"type": "object"}},
                    "text/csv": {"schema": {"type": "string"}},
                },
            },
            **READ_ONE,
        },
    )
    async def export(
        session_id: SessionId, format: Literal["json", "csv"] = "json"
    ) -> PlainTextResponse | dict[str, Any]:
        row = await session_or_404(session_id)
        if format == "csv":
            return PlainTextResponse(
                await db(store.export_csv, session_id),
                media_type="text/csv; charset=utf-8",
                headers={"Content-Disposition": f'attachment; filename="{csv_name(row)}"'},
            )
        return dict(await db(store.export_session, session_id))

    @app.get(
        "/api/violations",
        responses=errors(401, 422, 429),
        openapi_extra={"security": [{}, {"HTTPBearer": []}]},  # a token is optional here
    )
    async def violations(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
        table: TableFilter = None,
        session_id: SessionFilter = None,
        status: Literal["open", "confirmed", "dismissed"] | None = None,
        limit: Limit = 100,
        before: Before = None,
    ) -> list[ViolationRow]:
        """Violations newest first, a page of `limit` below the violation `before`. A
        void declaration is public once its hand has ended; a referee's token shows it at
        once (a token given must be valid)."""
        withhold = WITHHELD
        if credentials is not None:
            await _authorize(request, credentials, "referee")
            withhold = frozenset()
        return list(await db(store.violations, table, session_id, status, limit, before, withhold))

    @app.get("/api/faults", responses=READ)
    async def faults(
        table: TableFilter = None,
        session_id: SessionFilter = None,
        limit: Limit = 100,
        before: Before = None,
    ) -> list[FaultRow]:
        """Faults newest first, a page of `limit` below the fault `before`."""
        return list(await db(store.faults, table, session_id, limit, before))

    # --- writes -----------------------------------------------------------------------

    @app.post(
        "/api/tables/{table}/session", status_code=201, responses={**ADMIN, **BODY, **errors(409)}
    )
    async def start_session(table: TableName, body: SessionBody, _: AdminToken) -> Created:
        """Start a session at a table (ending the one that runs; a new table is followed).
        The dealer, streak, round and start seat are the table's own unless given. Asked
        for during a hand, it begins at the next shuffle: the hand under way is finished
        and scored in the session it began in."""
        runner = service.runner(table)
        start_seat = runner.mirror.deal.first_dealer if runner is not None else 0
        start = body.start(table, start_seat)
        if body.player_ids is not None:
            start = await seat_listed(table, start, body.player_ids)
        return Created(id=await service.start_session(table, start))

    async def seat_listed(
        table: str, start: SessionStart, ids: tuple[int | None, ...]
    ) -> SessionStart:
        """The listed players seated: each under the list's name (a merged entry as the
        player it joined); a player twice, unknown or at another table's session refused."""
        names, seated = list(start.players), []
        for seat, player_id in enumerate(ids):
            if player_id is None:
                continue
            try:
                player = await db(store.player, player_id)
            except NotFound:
                raise HTTPException(409, f"player_ids.{seat}: no player {player_id}") from None
            if player.merged_into is not None:
                player = await db(store.player, player.merged_into)
            names[seat] = player.name
            seated.append(player.id)
        if len(set(seated)) != len(seated):
            raise HTTPException(409, "player_ids: a player takes one seat")
        elsewhere = await db(store.seated_elsewhere, seated, table)
        if elsewhere:
            player_id, other = elsewhere[0]
            raise HTTPException(409, f"player {player_id} sits at table {other!r} already")
        ids_now: list[int | None] = [None] * 4
        for seat, player_id in enumerate(ids):
            if player_id is not None:
                ids_now[seat] = seated.pop(0)
        return start.model_copy(update={"players": tuple(names), "player_ids": tuple(ids_now)})

    @app.post("/api/tables/{table}/session/end", responses={**ADMIN, **errors(404, 409)})
    async def end_session(table: TableName, _: AdminToken) -> Created:
        runner_or_404(table)
        ended = await service.end_session(table)
        if ended is None:
            raise HTTPException(409, f"table {table!r} has no session running")
        return Created(id=ended)

    async def rule(table: str, body: dict[str, Any], token_id: int) -> CorrectionRow:
        runner = runner_or_404(table)
        if body["kind"] == "penalty" and runner.session_id is None:
            raise HTTPException(409, f"table {table!r} has no session running to pay in")
        try:
            ruling_id = await service.correct(table, {**body, "token_id": token_id})
        except InvalidEntry as exc:
            raise HTTPException(409, str(exc)) from None
        row = await db(store.ruling, ruling_id)
        assert row is not None
        return cast(CorrectionRow, row)

    @app.post(
        "/api/tables/{table}/rulings",
        status_code=201,
        responses={**REFEREE, **BODY, **errors(409)},
    )
    async def new_ruling(table: TableName, body: Ruling, token: RefereeToken) -> CorrectionRow:
        """A referee's ruling, by a referee's token, with its reason. On the past (`tile`:
        an event read one tile wrongly; `drop`: an event that did not happen; `insert`: one
        missing; `verdict`: a violation upheld or overturned; `undo`: an earlier ruling
        withdrawn), every record from the event it names is derived again: the hands, 台
        and payments, the next deals, the ledger, the live state. `deal` applies from the
        next hand, `penalty` moves money now (a session must be running), `note` is kept.
        The answer is the ruling with what it changed (`effect`)."""
        return await rule(table, body.model_dump(mode="json"), token.id)

    @app.post(
        "/api/tables/{table}/corrections",
        status_code=201,
        responses={**REFEREE, **BODY, **errors(409)},
        include_in_schema=False,
    )
    async def correct(table: TableName, body: Ruling, token: RefereeToken) -> Created:
        """The rulings' earlier name (deal, penalty, note): answers the ruling's id."""
        return Created(id=(await rule(table, body.model_dump(mode="json"), token.id)).id)

    @app.get("/api/rulings", responses=READ)
    @app.get("/api/corrections", responses=READ, include_in_schema=False)  # the earlier name
    async def rulings(
        table: TableFilter = None,
        session_id: SessionFilter = None,
        limit: Limit = 100,
        before: Before = None,
    ) -> list[CorrectionRow]:
        """Rulings newest first, a page of `limit` below the ruling `before`: who, when,
        why, what each changed, and the undo that withdrew it."""
        return list(await db(store.corrections, table, session_id, limit, before))

    @app.post(
        "/api/violations/{violation_id}/decision", status_code=201, responses={**REFEREE, **BODY}
    )
    async def decide(
        violation_id: ViolationId, body: DecisionBody, token: RefereeToken
    ) -> DecisionRow:
        """A verdict on a violation, as a ruling: `dismissed` overturns it (its 相公, a 詐胡
        it made, lifted) and re-derives every later record; `confirmed` upholds it. The
        latest verdict in force stands; `undo` on its ruling withdraws it."""
        found = await db(store.violation, violation_id)
        if found is None:
            raise HTTPException(404, f"no violation {violation_id}")
        decision = "uphold" if body.decision == "confirmed" else "overturn"
        verdict = {
            "kind": "verdict", "boot_id": found.boot_id, "seq": found.seq, "seat": found.seat,
            "code": found.code, "decision": decision,
            "reason": body.note or f"{body.decision} by the referee",
        }  # fmt: skip
        await rule(found.table, verdict, token.id)
        key = (found.table, found.boot_id, found.seq, found.seat, found.code)
        now = await db(store.violation_at, *key)  # its row, derived again or not
        ruled = now.decision if now is not None else None
        if ruled is None:
            raise HTTPException(409, "the verdict was stored, but no violation row shows it")
        return cast(DecisionRow, ruled)

    @app.get("/api/players", responses=READ)
    async def list_players(merged: bool = False) -> list[PlayerRow]:
        """The club's players by name; `merged`: those merged into another too."""
        return list(await db(store.players, merged))

    @app.post("/api/players", status_code=201, responses={**ADMIN, **BODY, **errors(409)})
    async def add_player(body: PlayerBody, _: AdminToken) -> PlayerRow:
        """A player added to the list (a name and a member number are the club's once)."""
        added = await kept(store.add_player, body.name, body.nickname, body.member_no)
        return cast(PlayerRow, added)

    @app.get("/api/players/{player_id}", responses=READ_ONE)
    async def player(player_id: PlayerId) -> PlayerRow:
        return cast(PlayerRow, await kept(store.player, player_id))

    @app.patch("/api/players/{player_id}", responses={**ADMIN, **BODY, **errors(404, 409)})
    async def change_player(player_id: PlayerId, body: PlayerChange, _: AdminToken) -> PlayerRow:
        """A player renamed, nicknamed or numbered; the sessions played keep their names."""
        changes = body.model_dump(exclude_unset=True)
        return cast(PlayerRow, await kept(store.change_player, player_id, changes))

    @app.post("/api/players/{player_id}/merge", responses={**ADMIN, **BODY, **errors(404, 409)})
    async def merge_player(player_id: PlayerId, body: MergeBody, _: AdminToken) -> PlayerRow:
        """Two entries of one person made one: this player's history counts under `into`
        (both kept); the player kept is returned."""
        return cast(PlayerRow, await kept(store.merge_players, player_id, body.into))

    @app.get("/api/players/{player_id}/stats", responses=READ_ONE)
    async def player_stats(
        player_id: PlayerId,
        session_id: SessionFilter = None,
        since: Seconds = None,
        until: Seconds = None,
        profile: ProfileFilter = None,
    ) -> PlayerStats:
        """A player's figures over the hands they played (a merged player's included),
        in one session, a span of time or one rule profile: the records' own, so a ruling
        moves them."""
        found = await kept(store.player_stats, player_id, session_id, since, until, profile)
        return cast(PlayerStats, found)

    @app.get("/api/players/{player_id}/hands", responses=READ_ONE)
    async def player_hands(
        player_id: PlayerId,
        limit: Annotated[
            int, Query(ge=1, le=10_000, description="the newest hands, this many")
        ] = 1000,
    ) -> list[PlayerHand]:
        """The player's newest hands, oldest first, as their charts read them: the money of
        each, the 台 of each win."""
        return cast(list[PlayerHand], await kept(store.player_hands, player_id, limit))

    @app.get("/api/leaderboard", responses=READ)
    async def leaderboard(
        figure: Annotated[
            Literal[*RANKED], Query(description="the figure ranked by")  # type: ignore[valid-type]
        ] = "net",
        since: Seconds = None,
        until: Seconds = None,
        min_hands: Annotated[int, Query(ge=0, le=1_000_000, description="fewer: not ranked")] = 0,
        profile: ProfileFilter = None,
    ) -> list[Standing]:
        """The club's players ranked by one figure over a span (a deal-in rate: the lowest
        first); players of equal value share a rank."""
        return list(await db(store.leaderboard, figure, since, until, min_hands, profile))

    @app.get(
        "/api/players.csv",
        response_class=PlainTextResponse,
        responses={
            200: {
                "description": "every listed player's figures over the span, a row each "
                "(UTF-8 with a BOM, named players-<from>-<to>.csv)",
                "content": {"text/csv": {"schema": {"type": "string"}}},
            },
            **READ,
        },
    )
    async def players_csv(
        since: Seconds = None, until: Seconds = None, profile: ProfileFilter = None
    ) -> PlainTextResponse:
        """The players' figures as a spreadsheet: the same figures as
        /api/players/{id}/stats, a column each."""
        name = f"players-{_day(since) or 'start'}-{_day(until) or 'now'}.csv"
        return PlainTextResponse(
            await db(store.players_csv, since, until, profile),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.get("/api/tokens", responses=errors(401, 403, 422, 429))
    async def tokens(_: AdminToken, limit: Limit = 100, before: Before = None) -> list[TokenRow]:
        """Tokens newest first, revoked ones included (never a secret), a page of `limit`
        below the token `before`."""
        return list(await db(store.tokens, limit, before))

    @app.post("/api/tokens", status_code=201, responses={**ADMIN, **BODY})
    async def new_token(body: TokenBody, _: AdminToken) -> NewToken:
        row, secret = await db(store.create_token, body.role, body.label)
        return NewToken(token=row, secret=secret)

    @app.delete("/api/tokens/{token_id}", responses={**ADMIN, **errors(404)})
    async def revoke(token_id: TokenId, _: AdminToken) -> Created:
        try:
            await db(store.revoke_token, token_id)
        except NotFound:
            raise HTTPException(404, f"no token {token_id}") from None
        return Created(id=token_id)

    # --- live -------------------------------------------------------------------------

    async def stream(ws: WebSocket, table: str | None) -> None:
        """A snapshot on connect, then every change (a fresh snapshot when the client
        lagged), until the client goes. Over the caps (per address, in all) the socket is
        closed at accept with 1013, try again later."""
        sockets: SocketGate = app.state.sockets
        client = client_of(ws.scope)
        refused = sockets.admit(client)
        if refused is not None:
            await ws.accept()
            await ws.close(TRY_AGAIN_LATER, refused)
            return
        try:
            await ws.accept()
            await relay(ws, table)
        finally:
            sockets.leave(client)

    async def relay(ws: WebSocket, table: str | None) -> None:
        async with service.hub.subscribe(table) as feed:

            async def send() -> None:
                await ws.send_json(snapshot(table))
                while True:
                    for message in await feed.next():  # JSON texts, made once for all
                        if message is RESYNC:
                            await ws.send_json(snapshot(table))
                        else:
                            await ws.send_text(message)
                    await asyncio.sleep(FLUSH_EVERY)  # states meanwhile: only the newest

            async def receive() -> None:  # the client says nothing; this hears it go
                while (await ws.receive())["type"] != "websocket.disconnect":
                    pass

            tasks = [asyncio.create_task(send()), asyncio.create_task(receive())]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancel_and_wait(tasks)
            for task in done:
                failure = None if task.cancelled() else task.exception()
                if failure is not None and not isinstance(failure, GONE):
                    raise failure

    def snapshot(table: str | None) -> dict[str, Any]:
        if table is None:
            states = [service.tables[t].state() for t in service.table_names()]
            return {"type": "snapshot", "tables": states}
        runner = service.runner(table)
        return {"type": "snapshot", "table": table, "state": runner.state() if runner else None}

    @app.websocket("/api/tables/{table}/ws")
    async def table_ws(ws: WebSocket, table: TableName) -> None:
        await stream(ws, table)

    @app.websocket("/api/ws")
    async def club_ws(ws: WebSocket) -> None:
        await stream(ws, None)

    for route in app.routes:
        if isinstance(route, APIRoute):
            for dependency in route.dependant.dependencies:
                if dependency.call in _ROLE_OF:
                    needs[route.endpoint] = _ROLE_OF[dependency.call]

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(STATIC / "docs.html")

    app.get("/favicon.ico", include_in_schema=False)(favicon)

    api_routes = [r for r in app.routes if isinstance(r, APIRoute)]
    for route in api_routes:
        query_names[route.endpoint] = frozenset(p.alias for p in route.dependant.query_params)

    def methods(scope: Any) -> Iterator[str]:
        for route in api_routes:
            if route.path_regex.match(scope["path"]):
                yield from route.methods or ()

    def needs_token(scope: Any) -> bool:
        return any(
            route.endpoint in needs and route.matches(scope)[0] is Match.FULL
            for route in api_routes
        )

    app.add_middleware(RequestGuard, routing=Routing(methods, needs_token), max_body=max_body)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        docs = request.url.path == "/docs"
        response.headers["Content-Security-Policy"] = DOCS_CSP if docs else CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES)  # outermost: the bytes sent
    app.mount("/", DashboardFiles(directory=STATIC, html=True), name="dashboard")
    return app
