"""What every route module shares: the parameters' types, the errors a route declares,
the bearer tokens' dependencies, and `Backend` (the service and the store the routes
answer from, with the store's readers)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Final, Literal, ParamSpec, TypeVar, cast

from fastapi import Depends, HTTPException, Path, Query, Request
from fastapi.openapi.constants import REF_PREFIX
from fastapi.responses import PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field

from firmware_bridge.messages import TABLE_PATTERN
from table_service.mirror.session import PRESETS
from table_service.service.guards import AuthLimiter, client_of
from table_service.service.live import Service, TableRunner
from table_service.store import InvalidEntry, NotFound, PlayerRow, Role, Store, TokenRow

P = ParamSpec("P")
T = TypeVar("T")

# Row ids are 32-bit integers in PostgreSQL: a larger one names no row, and must not
# reach the database (which refuses it as out of range, a 500).
MAX_ID: Final = 2**31 - 1
READ_THREADS: Final = 2  # the store's readers at once (the writer has a thread of its own)
# Text the database can keep: PostgreSQL refuses NUL in text, and a name or a label is
# one line.
NO_NUL: Final = r"^[^\x00]*$"
ONE_LINE: Final = r"^[^\x00-\x1f\x7f]*$"

# --- parameters (path and query) -----------------------------------------------------------

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
Seconds = Annotated[
    float | None, Query(ge=0, le=4e9, description="a span's bound, Unix seconds (a hand's end)")
]
Limit = Annotated[int, Query(ge=1, le=1000, description="the page's size (newest first)")]
Before = Annotated[
    int | None, Query(ge=1, le=MAX_ID, description="the page below this id (the last one seen)")
]

# --- body fields -----------------------------------------------------------------------------

ListedPlayer = Annotated[int, Field(ge=1, le=MAX_ID)]
Player = Annotated[str, Field(min_length=1, max_length=64, pattern=ONE_LINE)]
MemberNo = Annotated[str, Field(min_length=1, max_length=32, pattern=ONE_LINE)]
Note = Annotated[str, Field(max_length=500, pattern=NO_NUL)]

# --- the errors each route declares ----------------------------------------------------------


class FieldError(BaseModel):
    loc: list[str | int] = Field(description="where: body/query/path, then the field's path")
    msg: str = Field(description="what is wrong with it")


class ErrorBody(BaseModel):
    error: str = Field(description="what was wrong, in one sentence")
    detail: list[FieldError] | None = Field(
        None, description="the fields at fault, for a request that did not validate"
    )


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
        409: "the table is not in a state that allows it, or another service process of "
        "several follows it (the message says which)",
        413: "a body over the limit (refused before it is read)",
        422: "a parameter or body that does not validate (`detail` names the fields)",
    }
    special = {401: _UNAUTHORIZED, 429: _TOO_MANY}
    return {code: special.get(code) or {**_ERROR, "description": described[code]} for code in codes}


def errors_in_json(*codes: int) -> dict[int | str, dict[str, Any]]:
    """`errors()` for a route whose own answer is not JSON: FastAPI files a declared model
    under the route's media type, so here the error body is named as JSON (ErrorBody, in
    the schema's components as every other route's)."""
    body = {"application/json": {"schema": {"$ref": REF_PREFIX + ErrorBody.__name__}}}
    return {
        code: {**{k: v for k, v in declared.items() if k != "model"}, "content": body}
        for code, declared in errors(*codes).items()
    }


class CsvResponse(PlainTextResponse):
    """A spreadsheet, as the schema names it (the route's answer gives the charset)."""

    media_type = "text/csv"


READ: Final = errors(422)  # query parameters only
READ_ONE: Final = errors(404, 409, 422)  # 409: a table another service process follows
REFEREE: Final = errors(401, 404, 409, 422, 429)
ADMIN: Final = errors(401, 403, 422, 429)
BODY: Final = errors(400, 413)  # a route that reads a body

# --- tokens ----------------------------------------------------------------------------------

bearer: Final = HTTPBearer(
    auto_error=False,
    description="a token from `mjtable token create` or POST /api/tokens",
)


async def authorize(
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
            429,
            f"too many unknown tokens from {client}; try again in {wait} s",
            {"Retry-After": str(wait)},
        )
    token = await asyncio.to_thread(request.app.state.store.token_for, credentials.credentials)
    if token is None:
        limiter.failed(client)
        raise HTTPException(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer"})
    if needed == "admin" and token.role != "admin":
        raise HTTPException(403, f"this needs the admin role; the token is {token.role}")
    return cast(TokenRow, token)


ROLE_OF: Final[dict[Callable[..., Any], Role]] = {}  # each token dependency and its role


def _needs(role: Role) -> Callable[..., Any]:
    """A dependency that passes a token of `role` (an admin may do what a referee does)."""

    async def check(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> TokenRow:
        return await authorize(request, credentials, role)

    ROLE_OF[check] = role
    return check


RefereeToken = Annotated[TokenRow, Depends(_needs("referee"))]
AdminToken = Annotated[TokenRow, Depends(_needs("admin"))]

# --- what the routes answer from -------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """The running service and its store, as the routes reach them: the store read in one
    of the readers' few threads (a crowd of readers queues there, and never outnumbers
    the writer's thread for the interpreter)."""

    service: Service
    store: Store
    readers: ThreadPoolExecutor

    async def db(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A store call in a reader's thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.readers, functools.partial(call, *args, **kwargs))

    async def kept(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """A store call in a reader's thread; what it names missing is a 404, what it
        refuses (a name taken, a merge that cannot be) a 409."""
        try:
            return await self.db(call, *args, **kwargs)
        except NotFound as exc:
            raise HTTPException(404, str(exc)) from None
        except InvalidEntry as exc:
            raise HTTPException(409, str(exc)) from None

    async def listed(self, player_id: int, where: str) -> PlayerRow:
        """A player of the club's list named in a body (at `where`), as they play: a merged
        entry as the player it joined. One the list does not hold is a refused body (409:
        the route's own resource is there)."""
        try:
            player = await self.db(self.store.player, player_id)
            if player.merged_into is not None:
                player = await self.db(self.store.player, player.merged_into)
        except NotFound:
            raise HTTPException(409, f"{where}: no player {player_id}") from None
        return player

    async def seated_elsewhere(self, player_ids: list[int], table: str) -> None:
        """A player sits at one table at a time: one in an open session elsewhere is a 409."""
        elsewhere = await self.db(self.store.seated_elsewhere, player_ids, table)
        if elsewhere:
            player_id, other = elsewhere[0]
            raise HTTPException(409, f"player {player_id} sits at table {other!r} already")

    def runner_or_404(self, table: str) -> TableRunner:
        """The table as this process follows it: 404 when no process does, 409 (and where
        to go) when another service process of several does."""
        runner = self.service.runner(table)
        if runner is None:
            elsewhere = self.service.followed_elsewhere(table)
            if elsewhere is not None:
                raise HTTPException(409, elsewhere)
            raise HTTPException(404, f"no table {table!r}")
        return runner


def day(at: float | None) -> str | None:
    """A time as its UTC date, for a file's name."""
    return None if at is None else datetime.fromtimestamp(at, UTC).date().isoformat()
