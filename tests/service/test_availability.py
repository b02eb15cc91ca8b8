"""The service's own availability: `online` while it runs, `offline` once stopped cleanly."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import aiomqtt
import pytest

from tests.service.kit import Server, running, settings_for


async def retained(url: str, topic: str) -> bytes | None:
    """The retained payload of `topic` as a new subscriber gets it (None: nothing)."""
    parts = urlsplit(url)
    async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as client:
        await client.subscribe(topic, qos=1)
        try:
            async with asyncio.timeout(2):
                async for message in client.messages:
                    payload = message.payload
                    return bytes(payload) if isinstance(payload, bytes | bytearray) else None
        except TimeoutError:
            return None
    return None


async def online(url: str, topic: str) -> None:
    async with asyncio.timeout(10):
        while await retained(url, topic) != b"online":
            await asyncio.sleep(0.05)


async def forget(url: str, topic: str) -> None:
    """Leave the shared broker clean: no retained message for a later test."""
    parts = urlsplit(url)
    async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as client:
        await client.publish(topic, b"", qos=1, retain=True)


async def test_a_clean_stop_says_offline(mqtt_url: str, tmp_path: Path) -> None:
    base = f"svc-{uuid.uuid4().hex[:8]}"
    topic = f"{base}/service/availability"
    settings = settings_for(mqtt_url, f"sqlite:///{tmp_path / 'mjtable.db'}", base)
    try:
        async with running(settings):
            await online(mqtt_url, topic)
        assert await retained(mqtt_url, topic) == b"offline"
    finally:
        await forget(mqtt_url, topic)


@pytest.mark.parametrize("loop_name", ["uvloop", "asyncio"])
async def test_mjtable_serve_stopped_by_sigterm_says_offline(
    mqtt_url: str, tmp_path: Path, loop_name: str
) -> None:
    """On either `event_loop` the service starts, says which, and stops cleanly."""
    base = f"svc-{uuid.uuid4().hex[:8]}"
    topic = f"{base}/service/availability"
    db = f"sqlite:///{tmp_path / 'mjtable.db'}"
    chosen = ("--event-loop", loop_name, "--log-level", "INFO")
    server = Server(mqtt_url, db, base, tmp_path, *chosen)
    try:
        await server.start()
        await online(mqtt_url, topic)
        server.stop()  # SIGTERM: a clean stop
        assert server.proc is not None and server.proc.returncode == 0
        assert await retained(mqtt_url, topic) == b"offline"
        assert f"running on the event loop: {loop_name}" in server.errors()
    finally:
        server.stop()
        if server.proc is not None and server.proc.stderr is not None:
            server.proc.stderr.close()
        await forget(mqtt_url, topic)
