"""Sessions: the list, one session with its standings, its ledger, its export; a session
started or ended at a table (POST /api/tables/{table}/session, …/session/end)."""

from __future__ import annotations

import re
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from fastapi.responses import PlainTextResponse

from table_service.mirror.session import SessionStart
from table_service.service.routes.common import (
    ADMIN,
    BODY,
    READ,
    READ_ONE,
    AdminToken,
    Backend,
    Before,
    Limit,
    SessionId,
    TableFilter,
    TableName,
    day,
    errors,
)
from table_service.service.routes.models import (
    Created,
    SessionBody,
    SessionDetail,
    SessionExport,
)
from table_service.store import LedgerRow, SessionRow


def csv_name(session: SessionRow) -> str:
    """The session's CSV file name: session-<id>-<table>-<start date, UTC>.csv (ASCII only,
    so every browser keeps it)."""
    table = re.sub(r"[^A-Za-z0-9_-]", "_", session.table)
    return f"session-{session.id}-{table}-{day(session.started_at)}.csv"


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    db, service, store = backend.db, backend.service, backend.store

    @router.get("/api/sessions", responses=READ)
    async def sessions(
        table: TableFilter = None, limit: Limit = 100, before: Before = None
    ) -> list[SessionRow]:
        """Sessions newest first, a page of `limit` below the session `before`."""
        return list(await db(store.sessions, table, limit, before))

    async def session_or_404(session_id: int) -> SessionRow:
        row = await db(store.session, session_id)
        if row is None:
            raise HTTPException(404, f"no session {session_id}")
        return row

    @router.get("/api/sessions/{session_id}", responses=READ_ONE)
    async def session(session_id: SessionId) -> SessionDetail:
        row = await session_or_404(session_id)
        return SessionDetail(session=row, standings=await db(store.standings, session_id))

    @router.get("/api/sessions/{session_id}/ledger", responses=READ_ONE)
    async def ledger(session_id: SessionId) -> list[LedgerRow]:
        await session_or_404(session_id)
        return list(await db(store.ledger, session_id))

    @router.get(
        "/api/sessions/{session_id}/export",
        response_model=None,
        responses={
            200: {
                "model": SessionExport,  # the JSON's schema; the CSV's is below
                "description": "the session, its hands, ledger and standings (JSON), or a "
                "spreadsheet of a row per hand and per correction (CSV, UTF-8 with a BOM, "
                "named session-<id>-<table>-<start date>.csv)",
                "content": {"text/csv": {"schema": {"type": "string"}}},
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

    @router.post(
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
            if player_id is not None:
                player = await backend.listed(player_id, f"player_ids.{seat}")
                names[seat] = player.name
                seated.append(player.id)
        if len(set(seated)) != len(seated):
            raise HTTPException(409, "player_ids: a player takes one seat")
        await backend.seated_elsewhere(seated, table)
        ids_now: list[int | None] = [None] * 4
        for seat, player_id in enumerate(ids):
            if player_id is not None:
                ids_now[seat] = seated.pop(0)
        return start.model_copy(update={"players": tuple(names), "player_ids": tuple(ids_now)})

    @router.post("/api/tables/{table}/session/end", responses={**ADMIN, **errors(404, 409)})
    async def end_session(table: TableName, _: AdminToken) -> Created:
        backend.runner_or_404(table)
        ended = await service.end_session(table)
        if ended is None:
            raise HTTPException(409, f"table {table!r} has no session running")
        return Created(id=ended)

    return router
