"""The live tests' helpers: events and their keys, a stand-in bridge, a consumer running
against a real broker."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any
from urllib.parse import urlsplit

import aiomqtt

from firmware_bridge.messages import Event, ReplayRequest
from firmware_bridge.stopping import cancel_and_wait
from table_service.live.consumer import (
    Consumer,
    Delivery,
    Gap,
    StreamOrder,
    SuspectBoot,
)

A, B = 0xA1, 0xB2  # two boots' ids


def ev(seq: int, boot: int = A, table: str = "t1") -> Event:
    return Event(
        table=table, boot_id=boot, seq=seq, ts=0.0, body={"kind": "tiles_left", "count": 99}
    )


def keys(out: Sequence[Delivery]) -> list[tuple[int, int] | Gap | SuspectBoot]:
    """Events as (boot, seq), gaps and suspect boots as themselves: what came out, in order."""
    return [(d.boot_id, d.seq) if isinstance(d, Event) else d for d in out]


def feed(order: StreamOrder, events: list[Event], now: float = 0.0) -> list[Delivery]:
    out: list[Delivery] = []
    for e in events:
        out += order.offer(e, now).out
    return out


class FakeBridge:
    """Publishes a table's events as told and answers replay requests from its history,
    reconnecting if the broker goes (as the real bridge does)."""

    def __init__(self, url: str, base: str, table: str, history: list[Event]) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 1883
        self.base, self.table, self.history = base, table, history
        self.replays: list[tuple[int, int] | None] = []
        self.answer = True
        self.ready = asyncio.Event()
        self._client: aiomqtt.Client | None = None

    async def publish(self, event: Event) -> None:
        await self.ready.wait()
        assert self._client is not None
        topic = f"{self.base}/{self.table}/event"
        await self._client.publish(topic, event.model_dump_json(), qos=1)

    async def run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client(self.host, self.port) as client:
                    await client.subscribe(f"{self.base}/{self.table}/bridge/request/replay", qos=1)
                    self._client = client
                    online = f"{self.base}/{self.table}/bridge/availability"
                    await client.publish(online, "online", qos=1, retain=True)
                    self.ready.set()
                    async for message in client.messages:
                        assert isinstance(message.payload, bytes)
                        await self._replay(ReplayRequest.model_validate_json(message.payload))
            except aiomqtt.MqttError:
                self.ready.clear()
                await asyncio.sleep(0.05)

    async def _replay(self, request: ReplayRequest) -> None:
        after = request.after
        point = None if after is None else (after.boot_id, after.seq)
        self.replays.append(point)
        if self.answer:
            keys = [(e.boot_id, e.seq) for e in self.history]
            start = 0 if point is None else keys.index(point) + 1
            for event in self.history[start:]:
                await self.publish(event)


@contextlib.asynccontextmanager
async def running(url: str, history: list[Event], **options: Any) -> AsyncIterator[
    tuple[Consumer, FakeBridge, list[Delivery]]
]:  # fmt: skip
    """A consumer and a fake bridge on `url`, topics and session of this test alone."""
    base, table = f"live-{uuid.uuid4().hex[:8]}", "t1"
    out: list[Delivery] = []
    parts = urlsplit(url)
    consumer = Consumer(
        parts.hostname or "127.0.0.1", parts.port or 1883, base=base, client_id=f"{base}-c",
        on_event=out.append, on_gap=out.append, **options,
    )  # fmt: skip
    bridge = FakeBridge(url, base, table, history)
    tasks = [asyncio.create_task(consumer.run()), asyncio.create_task(bridge.run())]
    try:
        async with asyncio.timeout(5):
            await consumer.subscribed.wait()
            await bridge.ready.wait()
        yield consumer, bridge, out
    finally:
        await cancel_and_wait(tasks)
        await consumer.forget()


async def until(check: object, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.01)
