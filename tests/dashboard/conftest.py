"""Fixtures of the dashboard tests: the shared broker, the service on a port (`site`) and a
headless Chromium (`chrome`); see kit.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.dashboard.kit import Chrome, Site, chromium

__all__ = ["chrome", "site"]


@pytest.fixture
async def site(mqtt_url: str, tmp_path: Path) -> AsyncIterator[Site]:
    """The service and its server on a free port, an SQLite database in tmp_path."""
    running = Site(mqtt_url, f"sqlite:///{tmp_path / 'mjtable.db'}")
    await running.start()
    try:
        yield running
    finally:
        await running.close()


@pytest.fixture
async def chrome() -> AsyncIterator[Chrome]:
    """A headless Chromium (every test module is marked `needs_browser`)."""
    async with chromium() as browser:
        yield browser
