"""Players: the club's list (added, changed, merged), a player's figures and hands, the
leaderboard, every player's figures as a spreadsheet (GET /api/players.csv)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse

from table_service.service.routes.common import (
    ADMIN,
    BODY,
    READ,
    READ_ONE,
    AdminToken,
    Backend,
    CsvResponse,
    PlayerId,
    ProfileFilter,
    Seconds,
    SessionFilter,
    day,
    errors,
    errors_in_json,
)
from table_service.service.routes.models import MergeBody, PlayerBody, PlayerChange
from table_service.store import RANKED, PlayerHand, PlayerRow, PlayerStats, Standing


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    db, kept, store = backend.db, backend.kept, backend.store

    @router.get("/api/players", responses=READ)
    async def list_players(merged: bool = False) -> list[PlayerRow]:
        """The club's players by name; `merged`: those merged into another too."""
        return list(await db(store.players, merged))

    @router.post("/api/players", status_code=201, responses={**ADMIN, **BODY, **errors(409)})
    async def add_player(body: PlayerBody, _: AdminToken) -> PlayerRow:
        """A player added to the list (a name and a member number are the club's once)."""
        return await kept(store.add_player, body.name, body.nickname, body.member_no)

    @router.get("/api/players/{player_id}", responses=READ_ONE)
    async def player(player_id: PlayerId) -> PlayerRow:
        return await kept(store.player, player_id)

    @router.patch("/api/players/{player_id}", responses={**ADMIN, **BODY, **errors(404, 409)})
    async def change_player(player_id: PlayerId, body: PlayerChange, _: AdminToken) -> PlayerRow:
        """A player renamed, nicknamed or numbered; the sessions played keep their names."""
        changes = body.model_dump(exclude_unset=True)
        return await kept(store.change_player, player_id, changes)

    @router.post("/api/players/{player_id}/merge", responses={**ADMIN, **BODY, **errors(404, 409)})
    async def merge_player(player_id: PlayerId, body: MergeBody, _: AdminToken) -> PlayerRow:
        """Two entries of one person made one: this player's history counts under `into`
        (both kept); the player kept is returned."""
        return await kept(store.merge_players, player_id, body.into)

    @router.get("/api/players/{player_id}/stats", responses=READ_ONE)
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
        return await kept(store.player_stats, player_id, session_id, since, until, profile)

    @router.get("/api/players/{player_id}/hands", responses=READ_ONE)
    async def player_hands(
        player_id: PlayerId,
        limit: Annotated[
            int, Query(ge=1, le=10_000, description="the newest hands, this many")
        ] = 1000,
    ) -> list[PlayerHand]:
        """The player's newest hands, oldest first, as their charts read them: the money of
        each, the 台 of each win."""
        return await kept(store.player_hands, player_id, limit)

    @router.get("/api/leaderboard", responses=READ)
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

    @router.get(
        "/api/players.csv",
        response_class=CsvResponse,
        responses={
            200: {
                "description": "every listed player's figures over the span, a row each "
                "(UTF-8 with a BOM, named players-<from>-<to>.csv)"
            },
            **errors_in_json(422),
        },
    )
    async def players_csv(
        since: Seconds = None, until: Seconds = None, profile: ProfileFilter = None
    ) -> PlainTextResponse:
        """The players' figures as a spreadsheet: the same figures as
        /api/players/{id}/stats, a column each."""
        name = f"players-{day(since) or 'start'}-{day(until) or 'now'}.csv"
        return PlainTextResponse(
            await db(store.players_csv, since, until, profile),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    return router
