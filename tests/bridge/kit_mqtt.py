"""A recording MQTT subscriber and a bridge running in the test's loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiomqtt

from firmware_bridge.bridge import Bridge
from firmware_bridge.messages import Event
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.settings import load_settings
from firmware_bridge.stopping import cancel_and_wait
from table_sim.controller import PtyController


def new_table() -> str:
    """A table id no earlier run used: retained topics on a shared broker never collide."""
    return "t" + uuid.uuid4().hex[:10]


def client(url: str, **kwargs: Any) -> aiomqtt.Client:
    parts = urlsplit(url)
    return aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883, **kwargs)


@dataclass
class Recorder:
    """Subscribes to `<base>/<table>/#` and keeps everything, reconnecting if the broker goes."""

    url: str
    table: str
    identifier: str | None = None
    clean_session: bool = True
    messages: list[tuple[str, bytes, bool]] = field(default_factory=list)
    subscribed: asyncio.Event = field(default_factory=asyncio.Event)
    _task: asyncio.Task[None] | None = None
    _client: aiomqtt.Client | None = None

    async def _run(self) -> None:
        while True:
            try:
                async with client(
                    self.url, identifier=self.identifier, clean_session=self.clean_session
                ) as c:
                    self._client = c
                    await c.subscribe(f"mjtable/{self.table}/#", qos=1)
                    self.subscribed.set()
                    async for m in c.messages:
                        payload = m.payload if isinstance(m.payload, bytes) else b""
                        self.messages.append((str(m.topic), payload, bool(m.retain)))
            except aiomqtt.MqttError as exc:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError from exc  # stopping: do not reconnect
                self.subscribed.clear()
                await asyncio.sleep(0.02)

    async def __aenter__(self) -> Recorder:
        self._task = asyncio.create_task(self._run())
        async with asyncio.timeout(10):
            await self.subscribed.wait()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        await cancel_and_wait([self._task])

    async def publish(self, suffix: str, payload: Any) -> None:
        assert self._client is not None
        body = payload if isinstance(payload, str | bytes) else json.dumps(payload)
        await self._client.publish(f"mjtable/{self.table}/{suffix}", body, qos=1)

    def on(self, suffix: str) -> list[bytes]:
        topic = f"mjtable/{self.table}/{suffix}"
        return [p for t, p, _ in self.messages if t == topic]

    def last_json(self, suffix: str) -> dict[str, Any]:
        return dict(json.loads(self.on(suffix)[-1]))

    def events(self) -> list[Event]:
        return [Event.model_validate_json(p) for p in self.on("event")]

    async def wait(self, check: Callable[[], bool], timeout: float = 15.0) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def running_bridge(
    tmp_path: Path, mqtt_url: str, table: str, port: Path, timing: Timing | None = None,
    **overrides: Any,
) -> AsyncIterator[Bridge]:  # fmt: skip
    options: dict[str, Any] = {
        "port": str(port),
        "table": table,
        "mqtt": mqtt_url,
        "outbox": tmp_path / "bridge.db",
        "outbox_sync": "normal",
        "status_interval": 0.2,
        "mqtt_reconnect_min": 0.1,
        "mqtt_reconnect_max": 0.5,
        "reopen_min": 0.05,
        "reopen_max": 0.2,
    }
    settings = load_settings(None, **(options | overrides))
    bridge = Bridge(settings, timing)
    task = asyncio.create_task(bridge.run())
    try:
        yield bridge
    finally:
        await cancel_and_wait([task])


@contextlib.asynccontextmanager
async def running_device(tmp_path: Path, boot_id: int) -> AsyncIterator[PtyController]:
    """A simulated controller on `tmp_path/tty`, plugged in for the test's duration."""
    device = PtyController(tmp_path / "tty", boot_id)
    await device.start()
    try:
        yield device
    finally:
        await device.stop()
