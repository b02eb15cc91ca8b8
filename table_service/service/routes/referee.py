"""The referee's: violations (and a verdict on one), faults, rulings (and their earlier
name, corrections), a ruling entered at a table (POST /api/tables/{table}/rulings)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials

from table_service.mirror.rulings import Ruling
from table_service.service.disclosure import WITHHELD
from table_service.service.routes.common import (
    BODY,
    READ,
    REFEREE,
    Backend,
    Before,
    Limit,
    RefereeToken,
    SessionFilter,
    TableFilter,
    TableName,
    ViolationId,
    authorize,
    bearer,
    errors,
)
from table_service.service.routes.models import Created, DecisionBody
from table_service.store import CorrectionRow, DecisionRow, FaultRow, InvalidEntry, ViolationRow
from table_service.store.rows import VERDICT_STATUS


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    db, service, store = backend.db, backend.service, backend.store

    @router.get(
        "/api/violations",
        responses=errors(401, 422, 429),
        openapi_extra={"security": [{}, {"HTTPBearer": []}]},  # a token is optional here
    )
    async def violations(
        request: Request,
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
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
            await authorize(request, credentials, "referee")
            withhold = frozenset()
        return list(await db(store.violations, table, session_id, status, limit, before, withhold))

    @router.get("/api/faults", responses=READ)
    async def faults(
        table: TableFilter = None,
        session_id: SessionFilter = None,
        limit: Limit = 100,
        before: Before = None,
    ) -> list[FaultRow]:
        """Faults newest first, a page of `limit` below the fault `before`."""
        return list(await db(store.faults, table, session_id, limit, before))

    async def rule(table: str, body: dict[str, Any], token_id: int) -> CorrectionRow:
        runner = backend.runner_or_404(table)
        if body["kind"] == "penalty" and runner.session_id is None:
            raise HTTPException(409, f"table {table!r} has no session running to pay in")
        try:
            ruling_id = await service.correct(table, {**body, "token_id": token_id})
        except InvalidEntry as exc:
            raise HTTPException(409, str(exc)) from None
        row = await db(store.ruling, ruling_id)
        assert row is not None
        return row

    @router.post(
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

    @router.post(
        "/api/tables/{table}/corrections",
        status_code=201,
        responses={**REFEREE, **BODY, **errors(409)},
        include_in_schema=False,
    )
    async def correct(table: TableName, body: Ruling, token: RefereeToken) -> Created:
        """The rulings' earlier name (deal, penalty, note): answers the ruling's id."""
        return Created(id=(await rule(table, body.model_dump(mode="json"), token.id)).id)

    @router.get("/api/rulings", responses=READ)
    @router.get("/api/corrections", responses=READ, include_in_schema=False)  # the earlier name
    async def rulings(
        table: TableFilter = None,
        session_id: SessionFilter = None,
        limit: Limit = 100,
        before: Before = None,
    ) -> list[CorrectionRow]:
        """Rulings newest first, a page of `limit` below the ruling `before`: who, when,
        why, what each changed, and the undo that withdrew it."""
        return list(await db(store.corrections, table, session_id, limit, before))

    @router.post(
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
        decision = next(d for d, status in VERDICT_STATUS.items() if status == body.decision)
        verdict = {
            "kind": "verdict",
            "boot_id": found.boot_id,
            "seq": found.seq,
            "seat": found.seat,
            "code": found.code,
            "decision": decision,
            "reason": body.note or f"{body.decision} by the referee",
        }
        await rule(found.table, verdict, token.id)
        key = (found.table, found.boot_id, found.seq, found.seat, found.code)
        now = await db(store.violation_at, *key)  # its row, derived again or not
        ruled = now.decision if now is not None else None
        if ruled is None:
            raise HTTPException(409, "the verdict was stored, but no violation row shows it")
        return ruled

    return router
