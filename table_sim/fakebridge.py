"""A stand-in for a table's bridge on a real broker: publishes recorded events as the bridge
does (QoS 1 on `<base>/<table>/event`), keeps them, and answers replay requests.

The service tests and the service's hardening bench need the bridge's contract, not its
serial link: the whole loop with the real bridge runs in the soak and the HIL suite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from urllib.parse import urlsplit

import aiomqtt

from firmware_bridge.messages import Event, ReplayRequest


class FakeBridge:
    """One table's bridge: `publish(events)`, and replays from everything published so far."""

    def __init__(self, url: str, base: str, table: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 1883
        self.base, self.table = base, table
        self.history: list[Event] = []
        self.replays = 0
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()

    async def __aenter__(self) -> FakeBridge:
        self._task = asyncio.create_task(self._run())
        await asyncio.wait_for(self._connected.wait(), 10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        # A client cancelled mid-publish may wait on its broker's answer: never hang a test.
        with contextlib.suppress(asyncio.CancelledError, TimeoutError):
            await asyncio.wait_for(self._task, 10)

    async def _run(self) -> None:
        async with aiomqtt.Client(self.host, self.port) as client:
            self._client = client
            await client.subscribe(f"{self.base}/{self.table}/bridge/request/replay", qos=1)
            await client.publish(
                f"{self.base}/{self.table}/bridge/availability", "online", qos=1, retain=True
            )
            self._connected.set()
            async for message in client.messages:
                if not str(message.topic).endswith("/bridge/request/replay"):
                    continue  # some brokers (amqtt) also echo the client's own publications
                request = ReplayRequest.model_validate_json(bytes(message.payload))  # type: ignore[arg-type]
                self.replays += 1
                after = request.after
                start = 0
                if after is not None:
                    keys = [(e.boot_id, e.seq) for e in self.history]
                    point = (after.boot_id, after.seq)
                    start = keys.index(point) + 1 if point in keys else 0
                for event in self.history[start:]:
                    await self._send(event)

    async def _send(self, event: Event) -> None:
        assert self._client is not None
        await self._client.publish(
            f"{self.base}/{self.table}/event", event.model_dump_json(), qos=1
        )

    async def publish(self, events: Sequence[Event], pause_every: int = 64) -> None:
        for i, event in enumerate(events):
            self.history.append(event)
            await self._send(event)
            if i % pause_every == pause_every - 1:
                await asyncio.sleep(0)

    async def offline(self) -> None:
        assert self._client is not None
        await self._client.publish(
            f"{self.base}/{self.table}/bridge/availability", "offline", qos=1, retain=True
        )


def retable(events: Sequence[Event], table: str) -> list[Event]:
    """Recorded events as another table's (the simulator records under one name)."""
    return [e.model_copy(update={"table": table}) for e in events]


def dumps(events: Sequence[Event]) -> str:
    return "\n".join(json.dumps(e.model_dump(mode="json")) for e in events)
