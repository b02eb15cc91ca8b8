"""Tables, live: every table's state, one table's as the public and as the referee see it.

(A table's hands are in hands.py, its session in sessions.py, its rulings in referee.py,
its WebSocket in live.py.)
"""

from __future__ import annotations

from typing import cast

from fastapi import APIRouter

from table_service.service.routes.common import READ_ONE, REFEREE, Backend, RefereeToken, TableName
from table_service.service.routes.models import TableState


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    service = backend.service

    @router.get("/api/tables")
    async def tables() -> list[TableState]:
        """Every table's live state (concealed tiles are never shown during play)."""
        return [cast(TableState, service.tables[t].state()) for t in service.table_names()]

    @router.get("/api/tables/{table}", responses=READ_ONE)
    async def table(table: TableName) -> TableState:
        """The table's live state as the public may see it: no concealed tiles during play
        (an 暗槓 by its kind alone), no 過水, a void declaration still shown as declared."""
        return cast(TableState, backend.runner_or_404(table).state())

    @router.get("/api/tables/{table}/referee", responses=REFEREE)
    async def table_for_referee(table: TableName, _: RefereeToken) -> TableState:
        """The table's live state as the referee sees it: every seat's concealed tiles and
        its 過水, an 暗槓's tiles, a declaration as judged."""
        return cast(TableState, backend.runner_or_404(table).state(concealed=True))

    return router
