"""The HTTP and WebSocket face of the service (FastAPI; OpenAPI at /docs).

Reads are public (the scoreboard); writes need a bearer token with a role: `referee`
(decide violations, enter corrections and penalties) or `admin` (also sessions and
tokens). Every error is a JSON `{"error": …}` with a precise 4xx status.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal, cast

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.websockets import WebSocketDisconnect

from table_service.mirror.session import SessionStart
from table_service.service.hub import RESYNC
from table_service.service.live import Service
from table_service.store import (
    CorrectionRow,
    DecisionRow,
    FaultRow,
    HandRow,
    LedgerRow,
    NotFound,
    SessionRow,
    StandingRow,
    Store,
    TokenRow,
    ViolationRow,
)

TableName = Annotated[str, Path(pattern=r"^[A-Za-z0-9_-]{1,32}$", description="table id")]
Role = Literal["referee", "admin"]


class ErrorBody(BaseModel):
    error: str = Field(description="what was wrong, in one sentence")
    detail: Any = Field(None, description="the fields at fault, for a body that did not validate")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SessionBody(_Body):
    """A session's start (replay-format.md's `session` body; the table is the path's)."""

    players: tuple[str, str, str, str] = ("0", "1", "2", "3")
    profile: str | dict[str, Any] = "mjonline"
    base: int = Field(100, ge=0, le=1_000_000)
    per_tai: int = Field(20, ge=0, le=1_000_000)
    start_seat: int = Field(0, ge=0, le=3)
    dealer: int = Field(0, ge=0, le=3)
    streak: int = Field(0, ge=0, le=100)
    round_wind: Literal["E", "S", "W", "N"] = "E"


class DecisionBody(_Body):
    decision: Literal["confirmed", "dismissed"]
    note: str = Field("", max_length=500)


class DealCorrection(_Body):
    """Who deals next (after a sensor fault misled a verdict)."""

    kind: Literal["deal"]
    dealer: int = Field(ge=0, le=3)
    streak: int = Field(ge=0, le=100)
    round_wind: int = Field(ge=0, le=3, description="0 東 … 3 北")
    note: str = Field("", max_length=500)


class PenaltyCorrection(_Body):
    """包賠 / 眼牌: the offender pays each other seat 底 + 台 (+ dealer 台 with the dealer)."""

    kind: Literal["penalty"]
    seat: int = Field(ge=0, le=3, description="the offender")
    tai: int = Field(0, ge=0, le=100, description="the 牌面 the penalty is paid on")
    reason: str = Field(max_length=200)


class NoteCorrection(_Body):
    kind: Literal["note"]
    note: str = Field(min_length=1, max_length=500)


Correction = Annotated[
    DealCorrection | PenaltyCorrection | NoteCorrection, Field(discriminator="kind")
]


class TokenBody(_Body):
    role: Role
    label: str = Field("", max_length=100)


class NewToken(BaseModel):
    token: TokenRow
    secret: str = Field(description="the bearer token; shown once, stored only hashed")


class SessionDetail(BaseModel):
    session: SessionRow
    standings: list[StandingRow]


class Created(BaseModel):
    id: int


def create_app(service: Service, store: Store) -> FastAPI:
    """The app over a running service and its store."""
    app = FastAPI(
        title="mjtable",
        description="Live state, records and referee tools of automatic mahjong tables "
        "(Taiwanese 16-tile rules).",
        version="1",
        responses={400: {"model": ErrorBody}, 404: {"model": ErrorBody}, 422: {"model": ErrorBody}},
    )
    bearer = HTTPBearer(auto_error=False)

    async def db(call: Any, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.to_thread(call, *args, **kwargs)

    def role(needed: Role) -> Any:
        async def check(
            credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
        ) -> TokenRow:
            if credentials is None:
                raise HTTPException(401, "a bearer token is needed", {"WWW-Authenticate": "Bearer"})
            token = await db(store.token_for, credentials.credentials)
            if token is None:
                raise HTTPException(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer"})
            if needed == "admin" and token.role != "admin":
                raise HTTPException(403, f"this needs the admin role; the token is {token.role}")
            return cast(TokenRow, token)

        return Depends(check)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_body(_: Request, exc: RequestValidationError) -> JSONResponse:
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
        first = detail[0] if detail else {"loc": [], "msg": "invalid"}
        where = ".".join(str(p) for p in first["loc"])
        return JSONResponse({"error": f"{where}: {first['msg']}", "detail": detail}, 422)

    def runner_or_404(table: str) -> Any:
        runner = service.runner(table)
        if runner is None:
            raise HTTPException(404, f"no table {table!r}")
        return runner

    # --- reads ------------------------------------------------------------------------

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", "tables": len(service.tables)}

    @app.get("/api/tables")
    async def tables() -> list[dict[str, Any]]:
        """Every table's live state (concealed tiles are never shown during play)."""
        return [service.tables[t].state() for t in service.table_names()]

    @app.get("/api/tables/{table}")
    async def table(table: TableName) -> dict[str, Any]:
        return dict(runner_or_404(table).state())

    @app.get("/api/tables/{table}/hands")
    async def table_hands(
        table: TableName,
        session_id: int | None = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        before: int | None = None,
    ) -> list[HandRow]:
        runner_or_404(table)
        return list(await db(store.hands, table, session_id, limit, before))

    @app.get("/api/hands/{hand_id}")
    async def hand(hand_id: int) -> HandRow:
        row = await db(store.hand, hand_id)
        if row is None:
            raise HTTPException(404, f"no hand {hand_id}")
        return row  # type: ignore[no-any-return]

    @app.get("/api/sessions")
    async def sessions(table: str | None = None) -> list[SessionRow]:
        return list(await db(store.sessions, table))

    async def session_or_404(session_id: int) -> SessionRow:
        row = await db(store.session, session_id)
        if row is None:
            raise HTTPException(404, f"no session {session_id}")
        return row  # type: ignore[no-any-return]

    @app.get("/api/sessions/{session_id}")
    async def session(session_id: int) -> SessionDetail:
        row = await session_or_404(session_id)
        return SessionDetail(session=row, standings=await db(store.standings, session_id))

    @app.get("/api/sessions/{session_id}/ledger")
    async def ledger(session_id: int) -> list[LedgerRow]:
        await session_or_404(session_id)
        return list(await db(store.ledger, session_id))

    @app.get("/api/sessions/{session_id}/export", response_model=None)
    async def export(
        session_id: int, format: Literal["json", "csv"] = "json"
    ) -> PlainTextResponse | dict[str, Any]:
        await session_or_404(session_id)
        if format == "csv":
            return PlainTextResponse(await db(store.export_csv, session_id), media_type="text/csv")
        return dict(await db(store.export_session, session_id))

    @app.get("/api/violations")
    async def violations(
        table: str | None = None,
        session_id: int | None = None,
        status: Literal["open", "confirmed", "dismissed"] | None = None,
    ) -> list[ViolationRow]:
        return list(await db(store.violations, table, session_id, status))

    @app.get("/api/faults")
    async def faults(table: str | None = None, session_id: int | None = None) -> list[FaultRow]:
        return list(await db(store.faults, table, session_id))

    @app.get("/api/corrections")
    async def corrections(
        table: str | None = None, session_id: int | None = None
    ) -> list[CorrectionRow]:
        return list(await db(store.corrections, table, session_id))

    # --- writes -----------------------------------------------------------------------

    @app.post("/api/tables/{table}/session", status_code=201, dependencies=[role("admin")])
    async def start_session(table: TableName, body: SessionBody) -> Created:
        """Start a session at a table (ending the one that runs)."""
        try:
            start = SessionStart.model_validate({"table": table, **body.model_dump()})
        except ValueError as exc:
            raise HTTPException(422, str(exc).splitlines()[-1].strip()) from None
        return Created(id=await service.start_session(table, start))

    @app.post("/api/tables/{table}/session/end", dependencies=[role("admin")])
    async def end_session(table: TableName) -> Created:
        runner_or_404(table)
        ended = await service.end_session(table)
        if ended is None:
            raise HTTPException(409, f"table {table!r} has no session running")
        return Created(id=ended)

    @app.post("/api/tables/{table}/corrections", status_code=201)
    async def correct(
        table: TableName, body: Correction, token: Annotated[TokenRow, role("referee")]
    ) -> Created:
        runner_or_404(table)
        payload = {**body.model_dump(), "token_id": token.id}
        return Created(id=await service.correct(table, payload))

    @app.post("/api/violations/{violation_id}/decision", status_code=201)
    async def decide(
        violation_id: int, body: DecisionBody, token: Annotated[TokenRow, role("referee")]
    ) -> DecisionRow:
        try:
            row = await db(store.decide, violation_id, body.decision, body.note, token.id)
        except NotFound:
            raise HTTPException(404, f"no violation {violation_id}") from None
        return row  # type: ignore[no-any-return]

    @app.get("/api/tokens", dependencies=[role("admin")])
    async def tokens() -> list[TokenRow]:
        return list(await db(store.tokens))

    @app.post("/api/tokens", status_code=201, dependencies=[role("admin")])
    async def new_token(body: TokenBody) -> NewToken:
        row, secret = await db(store.create_token, body.role, body.label)
        return NewToken(token=row, secret=secret)

    @app.delete("/api/tokens/{token_id}", dependencies=[role("admin")])
    async def revoke(token_id: int) -> Created:
        try:
            await db(store.revoke_token, token_id)
        except NotFound:
            raise HTTPException(404, f"no token {token_id}") from None
        return Created(id=token_id)

    # --- live -------------------------------------------------------------------------

    async def stream(ws: WebSocket, table: str | None) -> None:
        """A snapshot on connect, then every change (a `resync` when the client lagged)."""
        await ws.accept()
        async with service.hub.subscribe(table) as queue:
            await ws.send_json(snapshot(table))
            try:
                while True:
                    message = await queue.get()
                    await ws.send_json(snapshot(table) if message is RESYNC else message)
            except (WebSocketDisconnect, RuntimeError):
                return

    def snapshot(table: str | None) -> dict[str, Any]:
        if table is None:
            states = [service.tables[t].state() for t in service.table_names()]
            return {"type": "snapshot", "tables": states}
        runner = service.runner(table)
        return {"type": "snapshot", "table": table, "state": runner.state() if runner else None}

    @app.websocket("/api/tables/{table}/ws")
    async def table_ws(ws: WebSocket, table: str) -> None:
        await stream(ws, table)

    @app.websocket("/api/ws")
    async def club_ws(ws: WebSocket) -> None:
        await stream(ws, None)

    return app
