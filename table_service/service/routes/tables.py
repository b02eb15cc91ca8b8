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
        """Every table's live state (concealed tiles are never shown during play). With
        several service processes, the others' tables too while a page of this one
        watches (relayed as their owners publish them)."""
        return [cast(TableState, state) for state in service.states()]

    @router.get("/api/tables/{table}", responses=READ_ONE)
    async def table(table: TableName) -> TableState:
        """The table's live state as the public may see it: no concealed tiles during play
        (an 暗槓 by its kind alone), no 過水, a void declaration still shown as declared.
        A table another service process follows: its owner's state while a page of this
        one watches (relayed), else 409 naming that process."""
        state = service.public_state(table)
        return cast(TableState, backend.runner_or_404(table).state() if state is None else state)

    @router.get("/api/tables/{table}/referee", responses=REFEREE)
    async def table_for_referee(table: TableName, _: RefereeToken) -> TableState:
        """The table's live state as the referee sees it: every seat's concealed tiles and
        its 過水, an 暗槓's tiles, a declaration as judged."""
        return cast(TableState, backend.runner_or_404(table).state(concealed=True))

    return router
