"""Hands: a table's hands, page by page; one hand; a hand's log, event by event."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from table_service.service.routes.common import (
    MAX_ID,
    READ_ONE,
    Backend,
    HandId,
    SessionFilter,
    TableName,
)
from table_service.service.routes.models import LogEntry
from table_service.store import HandRow


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    db, store = backend.db, backend.store

    @router.get("/api/tables/{table}/hands", responses=READ_ONE)
    async def table_hands(
        table: TableName,
        session_id: SessionFilter = None,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
        before: Annotated[int | None, Query(ge=1, le=MAX_ID, description="a hand id")] = None,
    ) -> list[HandRow]:
        """The table's hands, newest first, a page of `limit` below the hand `before`."""
        backend.runner_or_404(table)
        return list(await db(store.hands, table, session_id, limit, before))

    @router.get("/api/hands/{hand_id}", responses=READ_ONE)
    async def hand(hand_id: HandId) -> HandRow:
        row = await db(store.hand, hand_id)
        if row is None:
            raise HTTPException(404, f"no hand {hand_id}")
        return row

    @router.get("/api/hands/{hand_id}/events", responses=READ_ONE)
    async def hand_events(hand_id: HandId) -> list[LogEntry]:
        """Every entry of the table's log the hand was played in, in order: a finished hand
        stepped through event by event (its tiles are no secret once it is over)."""
        entries = await db(store.hand_entries, hand_id)
        if entries is None:
            raise HTTPException(404, f"no hand {hand_id}")
        return [LogEntry.of(e) for e in entries]

    return router
