"""Live: the service's health, and the WebSockets (the club's, one table's) that carry
every change as it happens."""

from __future__ import annotations

import asyncio
from typing import Any, Final

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from firmware_bridge.stopping import cancel_and_wait
from table_service.service.guards import TRY_AGAIN_LATER, SocketGate, client_of
from table_service.service.health import Health
from table_service.service.hub import RESYNC
from table_service.service.routes.common import Backend, TableName

GONE: Final = (WebSocketDisconnect, OSError, RuntimeError)  # a client that went mid-send


def router(backend: Backend, sockets: SocketGate) -> APIRouter:
    """`sockets`: the WebSockets' caps (per address, in all), counted in the health."""
    router = APIRouter()
    service = backend.service

    @router.get("/api/health")
    async def health() -> Health:
        """What the service does now: `degraded`, with the reasons, whenever events are not
        being stored (the database away, the broker away, the locks lost, the writer
        stalled, the backlog full); the tables it follows and the age of each one's last
        stored event."""
        return service.health().model_copy(update={"websockets": sockets.counts()})

    async def stream(ws: WebSocket, table: str | None) -> None:
        """A snapshot on connect, then every change (a fresh snapshot when the client
        lagged), until the client goes. Over the caps (per address, in all) the socket is
        closed at accept with 1013, try again later."""
        client = client_of(ws.scope)
        refused = sockets.admit(client)
        if refused is not None:
            await ws.accept()
            await ws.close(TRY_AGAIN_LATER, refused)
            return
        try:
            await ws.accept()
            await relay(ws, table)
        finally:
            sockets.leave(client)

    async def relay(ws: WebSocket, table: str | None) -> None:
        async with service.hub.subscribe(table) as feed:

            async def send() -> None:
                await ws.send_json(snapshot(table))
                while True:
                    for message in await feed.next():  # JSON texts, made once for all
                        if message is RESYNC:
                            await ws.send_json(snapshot(table))
                        else:
                            await ws.send_text(message)
                    await asyncio.sleep(service.hub.pace())  # states meanwhile: the newest

            async def receive() -> None:  # the client says nothing; this hears it go
                while (await ws.receive())["type"] != "websocket.disconnect":
                    pass

            tasks = [asyncio.create_task(send()), asyncio.create_task(receive())]
            try:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancel_and_wait(tasks)
            for task in done:
                failure = None if task.cancelled() else task.exception()
                if failure is not None and not isinstance(failure, GONE):
                    raise failure

    def snapshot(table: str | None) -> dict[str, Any]:
        if table is None:
            return {"type": "snapshot", "tables": service.states()}
        return {"type": "snapshot", "table": table, "state": service.public_state(table)}

    @router.websocket("/api/tables/{table}/ws")
    async def table_ws(ws: WebSocket, table: TableName) -> None:
        await stream(ws, table)

    @router.websocket("/api/ws")
    async def club_ws(ws: WebSocket) -> None:
        await stream(ws, None)

    return router
