"""The service's retained topics: its own availability (`online` while it runs, `offline`
once stopped cleanly), and each table's picture, whole again after a lost connection."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import aiomqtt
import pytest

from table_sim.broker import OwnedBroker
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import record_game
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


async def test_each_picture_is_sent_again_on_a_new_connection(
    owned_broker: OwnedBroker, store_url: str
) -> None:
    """Pictures go at QoS 0 (no PUBACK for each), so one in flight when the connection
    broke may never reach the broker: the service sends every table's picture again when
    it connects anew, though no event comes (and though nothing else is published: the
    reader of its connection notices the loss too)."""
    url, base = owned_broker.url, f"svc-{uuid.uuid4().hex[:8]}"
    picture = f"{base}/t1/service/state"
    events = retable(record_game(3, 1)[0].events, "t1")[:30]
    async with running(settings_for(url, store_url, base)) as service:
        async with FakeBridge(url, base, "t1") as bridge:
            await bridge.publish(events)
            async with asyncio.timeout(20):
                while service.applied < len(events):
                    await asyncio.sleep(0.05)
        # the broker left holding an older picture, as if the last had been lost (and no
        # bridge's retained availability to make the service show the table anew)
        await forget(url, f"{base}/t1/bridge/availability")
        parts = urlsplit(url)
        async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as other:
            await other.publish(picture, b"stale", qos=1, retain=True)
        await asyncio.to_thread(owned_broker.stop)
        await asyncio.to_thread(owned_broker.start)  # (amqtt keeps nothing; Mosquitto, "stale")
        async with asyncio.timeout(30):
            while (got := await retained(url, picture)) in (None, b"stale"):
                await asyncio.sleep(0.1)
        runner = service.runner("t1")
        assert runner is not None
        assert json.loads(got) == json.loads(json.dumps(runner.state()))
