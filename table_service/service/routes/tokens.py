"""Tokens: the bearer tokens (an admin's), listed, made, revoked."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException

from table_service.service.routes.common import (
    ADMIN,
    BODY,
    AdminToken,
    Backend,
    Before,
    Limit,
    TokenId,
    errors,
)
from table_service.service.routes.models import Created, NewToken, TokenBody
from table_service.store import NotFound, TokenRow


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    db, store = backend.db, backend.store

    @router.get("/api/tokens", responses=errors(401, 403, 422, 429))
    async def tokens(_: AdminToken, limit: Limit = 100, before: Before = None) -> list[TokenRow]:
        """Tokens newest first, revoked ones included (never a secret), a page of `limit`
        below the token `before`."""
        return list(await db(store.tokens, limit, before))

    @router.post("/api/tokens", status_code=201, responses={**ADMIN, **BODY})
    async def new_token(body: TokenBody, _: AdminToken) -> NewToken:
        row, secret = await db(store.create_token, body.role, body.label)
        return NewToken(token=row, secret=secret)

    @router.delete("/api/tokens/{token_id}", responses={**ADMIN, **errors(404)})
    async def revoke(token_id: TokenId, _: AdminToken) -> Created:
        try:
            await db(store.revoke_token, token_id)
        except NotFound:
            raise HTTPException(404, f"no token {token_id}") from None
        return Created(id=token_id)

    return router
