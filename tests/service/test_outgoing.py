"""The service's outgoing MQTT window (outgoing.py), over real brokers: many publishes in
flight, in order, and what a lost connection left unacknowledged sent again first."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from urllib.parse import urlsplit

import aiomqtt
import pytest

from firmware_bridge.stopping import cancel_and_wait
from table_service.service.outgoing import Outgoing, PublishWindow
from table_service.service.queues import WakingQueue
from table_sim.broker import OwnedBroker


def host_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 1883


class Watched:
    """A real client's publish, counting how many await the broker at once."""

    def __init__(self, client: aiomqtt.Client) -> None:
        self.client = client
        self.now = self.most = 0

    async def publish(self, topic: str, payload: str, qos: int, retain: bool) -> None:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await self.client.publish(topic, payload, qos=qos, retain=retain)
        finally:
            self.now -= 1


async def collect(listener: aiomqtt.Client, count: int, wait: float = 20) -> list[str]:
    got: list[str] = []
    async with asyncio.timeout(wait):
        async for message in listener.messages:
            got.append(bytes(message.payload).decode())  # type: ignore[arg-type]
            if len(got) == count:
                break
    return got


def messages(topic: str, count: int, start: int = 0) -> list[Outgoing]:
    return [Outgoing(topic, f"m{i:04d}", 1, False) for i in range(start, start + count)]


def test_a_window_holds_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least one"):
        PublishWindow(0)


async def test_many_await_the_broker_at_once_and_arrive_in_order(mqtt_url: str) -> None:
    host, port = host_port(mqtt_url)
    topic = f"window/{uuid.uuid4().hex[:8]}"
    outbox: WakingQueue[Outgoing] = WakingQueue()
    sent = messages(topic, 1000)
    window = PublishWindow(64)
    async with aiomqtt.Client(host, port) as listener:
        await listener.subscribe(topic, qos=1)
        async with aiomqtt.Client(host, port, max_inflight_messages=64) as client:
            watched = Watched(client)
            running = asyncio.create_task(window.run(watched, outbox))
            for message in sent:
                outbox.put_nowait(message)
            got = await collect(listener, len(sent))
            await asyncio.sleep(0.2)  # the last acknowledgements
            await cancel_and_wait([running])
    assert got == [m.payload for m in sent]
    assert 1 < watched.most <= 64  # not one at a time, and never more than the window
    assert window.published == len(sent)
    assert not window.unsent


async def test_a_window_of_one_publishes_one_at_a_time(mqtt_url: str) -> None:
    host, port = host_port(mqtt_url)
    topic = f"window/{uuid.uuid4().hex[:8]}"
    outbox: WakingQueue[Outgoing] = WakingQueue()
    window = PublishWindow(1)
    async with aiomqtt.Client(host, port) as listener:
        await listener.subscribe(topic, qos=1)
        async with aiomqtt.Client(host, port) as client:
            watched = Watched(client)
            running = asyncio.create_task(window.run(watched, outbox))
            for message in messages(topic, 50):
                outbox.put_nowait(message)
            got = await collect(listener, 50)
            await cancel_and_wait([running])
    assert got == [f"m{i:04d}" for i in range(50)]
    assert watched.most == 1


async def test_what_a_lost_connection_left_unacknowledged_goes_first_on_the_next(
    owned_broker: OwnedBroker,
) -> None:
    host, port = host_port(owned_broker.url)
    topic = f"window/{uuid.uuid4().hex[:8]}"
    outbox: WakingQueue[Outgoing] = WakingQueue()
    window = PublishWindow(64)
    async with aiomqtt.Client(host, port) as client:
        running = asyncio.create_task(window.run(client, outbox))
        await asyncio.to_thread(owned_broker.stop)
        for message in messages(topic, 10):
            outbox.put_nowait(message)
        with pytest.raises(aiomqtt.MqttError):
            async with asyncio.timeout(10):
                await running  # noticed though nothing more is to be sent
        with contextlib.suppress(aiomqtt.MqttError):
            await client.__aexit__(None, None, None)  # (already lost)
    assert [m.payload for m in window.unsent] == [f"m{i:04d}" for i in range(10)]
    for message in messages(topic, 5, start=10):
        outbox.put_nowait(message)  # made while the broker was away
    await asyncio.to_thread(owned_broker.start)
    async with aiomqtt.Client(host, port) as listener:
        await listener.subscribe(topic, qos=1)
        async with aiomqtt.Client(host, port) as client:
            running = asyncio.create_task(window.run(client, outbox))
            got = await collect(listener, 15)
            await cancel_and_wait([running])
    assert got == [f"m{i:04d}" for i in range(15)]  # the kept ones first, then the outbox
    assert not window.unsent
