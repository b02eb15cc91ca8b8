"""uvicorn's server woken once a second (http_server.py): a stop, by `stop()` or by a
signal, still ends it at once, and its answers still carry a current Date header."""

from __future__ import annotations

import asyncio
import os
import signal
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any

import pytest
import uvicorn

from table_service.service import http_server
from table_service.service.http_server import QuietServer
from table_sim.broker import free_port


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The smallest ASGI app: 200, no body."""
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b""})


async def started(monkeypatch: pytest.MonkeyPatch) -> tuple[QuietServer, asyncio.Task[None], int]:
    # a look far apart: a stop that waited for the next look would not end within the test
    monkeypatch.setattr(http_server, "LOOK_EVERY", 60.0)
    port = free_port()
    server = QuietServer(uvicorn.Config(app, port=port, lifespan="off", log_config=None))
    serving = asyncio.create_task(server.serve())
    async with asyncio.timeout(10):
        while not server.started:
            await asyncio.sleep(0.01)
    return server, serving, port


def get(url: str) -> tuple[int, datetime]:
    """A request from another thread (the server answers from this one's loop)."""
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, parsedate_to_datetime(response.headers["date"])


@pytest.fixture
def heard() -> Iterator[list[int]]:
    """SIGTERM recorded, not obeyed, for one test: uvicorn raises a signal it caught again
    once it has stopped, to the handler it found."""
    caught: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda sig, _frame: caught.append(sig))
    try:
        yield caught
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize("how", ["stop", "signal"])
async def test_a_stop_ends_the_server_without_waiting_for_its_next_look(
    how: str, heard: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, serving, port = await started(monkeypatch)
    status, date = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/")
    assert status == 200
    assert date.year >= 2024  # the Date header renewed at the first look
    if how == "stop":
        server.stop()
    else:
        os.kill(os.getpid(), signal.SIGTERM)  # to uvicorn's handler while it serves
    async with asyncio.timeout(10):
        await serving
    assert server.should_exit
    assert heard == ([signal.SIGTERM] if how == "signal" else [])
