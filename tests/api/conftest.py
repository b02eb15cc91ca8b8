"""Fixtures of the API tests: a real `Service` (its `run()` task, a real broker, a real
database on each backend) behind `create_app`, and a client that talks to the app without
sockets (httpx's ASGI transport)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from table_sim.recording import RecordedHand
from tests.api.kit import Api, game_of, running_api

__all__ = ["api", "game"]


@pytest.fixture(scope="session")
def game() -> list[RecordedHand]:
    """A short game with wins worth 台, players' breaches and sensor faults."""
    return game_of()


@pytest.fixture
async def api(mqtt_url: str, store_url: str) -> AsyncIterator[Api]:
    """A running service and its app, with an admin and a referee token."""
    async with running_api(mqtt_url, store_url) as running:
        yield running
