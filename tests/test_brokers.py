"""The test brokers: the embedded one delivers retained messages right, a run clears its own."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from table_sim.broker import OwnedBroker
from tests.kit_brokers import clear_what_was_retained_since, retained_topics


@pytest.fixture
def amqtt_port(tmp_path: Path) -> Iterator[int]:
    broker = OwnedBroker(tmp_path, embedded=True)  # always amqtt, whatever CI provides
    broker.start()
    try:
        yield broker.port
    finally:
        broker.stop()


async def _received(client: aiomqtt.Client, quiet: float = 0.5) -> list[tuple[str, bytes]]:
    got: list[tuple[str, bytes]] = []
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(quiet):
            async for m in client.messages:
                assert isinstance(m.payload, bytes)
                got.append((str(m.topic), m.payload))
    return got


async def test_a_retained_message_reaches_a_new_subscriber_once(amqtt_port: int) -> None:
    root = f"t{uuid.uuid4().hex[:8]}"
    async with aiomqtt.Client("127.0.0.1", amqtt_port) as holder:
        await holder.subscribe(f"{root}/#", qos=1)  # another session holds a matching filter
        await holder.publish(f"{root}/set", b"retained", qos=1, retain=True)
        async with aiomqtt.Client("127.0.0.1", amqtt_port) as bystander:
            assert await _received(bystander) == []  # subscribed to nothing: gets nothing
        async with aiomqtt.Client("127.0.0.1", amqtt_port) as late:
            await late.subscribe(f"{root}/set", qos=1)
            await late.subscribe(f"{root}/other/+", qos=1)
            assert await _received(late) == [(f"{root}/set", b"retained")]


async def test_a_run_clears_what_it_retained_and_only_that(amqtt_port: int) -> None:
    url = f"mqtt://127.0.0.1:{amqtt_port}"
    async with aiomqtt.Client("127.0.0.1", amqtt_port) as c:
        await c.publish("mjtable/club/bridge/availability", b"online", qos=1, retain=True)
        before = await retained_topics(url)
        for suffix in ("availability", "link", "counters"):
            await c.publish(f"mjtable/t1/bridge/{suffix}", b"{}", qos=1, retain=True)
        assert await retained_topics(url) == before | {
            f"mjtable/t1/bridge/{s}" for s in ("availability", "link", "counters")
        }
    await clear_what_was_retained_since(url, before)
    assert await retained_topics(url) == {"mjtable/club/bridge/availability"}
