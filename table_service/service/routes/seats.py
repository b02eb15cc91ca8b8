"""Seats: who sits where before a session's first shuffle. The table's page shows a QR
code per seat (GET /api/tables/{table}/seats/{seat}/qr.svg); a player scans it and takes
the seat as themselves on their phone (POST …/claim, the code is its credential); an
admin seats anyone by hand (PUT /api/tables/{table}/seats/{seat}). Once the session's
first shuffle has come the seats stand, so nobody's hands change owner afterwards."""

from __future__ import annotations

import io
from typing import Annotated
from urllib.parse import urlencode

import segno
from fastapi import APIRouter, HTTPException, Path, Request, Response

from table_service.service.live import BadSeatCode, SeatingClosed, SeatTaken, TableRunner
from table_service.service.routes.common import (
    ADMIN,
    BODY,
    READ_ONE,
    AdminToken,
    Backend,
    TableName,
    errors,
    errors_in_json,
)
from table_service.service.routes.models import (
    ListedSeat,
    SeatBody,
    SeatClaim,
    Seated,
    Seating,
)
from table_service.store import InvalidEntry

SeatPath = Annotated[int, Path(ge=0, le=3, description="a seat, 0-3 (0: the 起莊位's)")]
SVG = "image/svg+xml"


def qr_svg(text: str) -> bytes:
    """`text` as a QR code in SVG, dark on white (a TV's dark page would hide a light one)."""
    out = io.BytesIO()
    segno.make(text, error="m").save(
        out, kind="svg", xmldecl=False, scale=6, border=2, dark="#000", light="#fff"
    )
    return out.getvalue()


def seating(runner: TableRunner) -> Seating:
    """The seats of the session being seated (or running), and whether they may change."""
    mirror = runner.mirror
    session = mirror.seated_session
    waiting = runner.seated_session_id
    if session is None:
        return Seating(open=False, session_id=None, seats=[])
    ids = session.player_ids or (None,) * 4
    seats = [
        Seated(session_id=waiting or 0, seat=seat, name=name, player_id=ids[seat])
        for seat, name in enumerate(session.players)
    ]
    return Seating(open=mirror.seating_open, session_id=waiting, seats=seats)


def router(backend: Backend) -> APIRouter:
    router = APIRouter()
    service = backend.service

    @router.get("/api/tables/{table}/seats", responses=READ_ONE)
    async def seats(table: TableName) -> Seating:
        """Who sits where in the session the table is waiting to begin (or plays), and
        whether seats may still be taken (until its first shuffle)."""
        return seating(backend.runner_or_404(table))

    @router.get(
        "/api/tables/{table}/seats/{seat}/qr.svg",
        response_class=Response,
        responses={
            200: {"content": {SVG: {"schema": {"type": "string"}}}, "description": "the QR"},
            **errors_in_json(404, 409, 422),
        },
    )
    async def seat_qr(table: TableName, seat: SeatPath, request: Request) -> Response:
        """The QR code the table's page shows for a seat: the address of the page where a
        player takes it (sit.html with the seat's code), at the service's public address
        (`public_url`) or the one this page was asked at."""
        code = backend.runner_or_404(table).seat_code(seat)
        if code is None:
            raise HTTPException(409, f"table {table!r} has no session waiting for players")
        base = service.settings.public_url or str(request.base_url)
        query = urlencode({"table": table, "seat": seat, "code": code})
        svg = qr_svg(f"{base.rstrip('/')}/sit.html?{query}")
        return Response(svg, media_type=SVG, headers={"Cache-Control": "no-store"})

    async def seat_taken(table: str, seat: int, body: SeatBody, code: str | None) -> Seated:
        backend.runner_or_404(table)
        player_id: int | None = None
        if isinstance(body, ListedSeat):
            player = await backend.listed(body.player_id, "player_id")
            player_id, name = player.id, player.name
            await backend.seated_elsewhere([player_id], table)
        else:
            name = body.name
        try:
            session_id = await service.seat(table, seat, name, player_id, code)
        except BadSeatCode as exc:
            raise HTTPException(403, str(exc)) from None
        except (SeatingClosed, SeatTaken, InvalidEntry) as exc:  # the store's: a player
            raise HTTPException(409, str(exc)) from None  # at another seat of the session
        return Seated(session_id=session_id, seat=seat, name=name, player_id=player_id)

    @router.post(
        "/api/tables/{table}/seats/{seat}/claim",
        responses={**BODY, **errors(403, 404, 409, 422)},
    )
    async def claim_seat(table: TableName, seat: SeatPath, body: SeatClaim) -> Seated:
        """A player takes a seat with the code the table's page shows for it (no token):
        as a player of the club's list, or as a guest by name. Refused: a code that is not
        the seat's now (403), a seat a listed player holds, a player at another seat or
        table, a session whose first shuffle has come (409)."""
        return await seat_taken(table, seat, body, body.code)

    @router.put(
        "/api/tables/{table}/seats/{seat}",
        responses={**ADMIN, **BODY, **errors(404, 409)},
    )
    async def seat_by_hand(
        table: TableName, seat: SeatPath, body: SeatBody, _: AdminToken
    ) -> Seated:
        """An admin seats anyone (a listed player or a guest) before the first shuffle,
        whoever held the seat."""
        return await seat_taken(table, seat, body, None)

    return router
