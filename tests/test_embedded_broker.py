"""The embedded amqtt broker delivers a retained message once, and only to its subscribers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest

from hil_tests.broker import OwnedBroker


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
