"""The API tests' kit: a running service behind its app, a table's bridge, waiting."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiomqtt
import httpx
import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection

from dashboard import STATIC
from firmware_bridge.messages import Event, ReplayRequest
from table_service.service.api import create_app
from table_service.service.live import Service
from table_service.service.settings import ServeSettings
from table_service.store import Store
from table_sim.broker import free_port
from table_sim.fakebridge import FakeBridge, retable
from table_sim.faults import TableFaults
from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations

BASE_URL = "http://testserver"


class Bridge(FakeBridge):
    """FakeBridge, deaf to what it did not ask for: amqtt 0.12.1 sends a client that
    connects the retained messages of every client's subscriptions (broker.py, "publish
    any topic retained messages" at connect), e.g. the bridges' availability, which a
    replay request is not."""

    async def _run(self) -> None:
        replay = f"{self.base}/{self.table}/bridge/request/replay"
        async with aiomqtt.Client(self.host, self.port) as client:
            self._client = client
            await client.subscribe(replay, qos=1)
            await client.publish(
                f"{self.base}/{self.table}/bridge/availability", "online", qos=1, retain=True
            )
            self._connected.set()
            async for message in client.messages:
                if not message.topic.matches(replay):
                    continue
                request = ReplayRequest.model_validate_json(bytes(message.payload))  # type: ignore[arg-type]
                self.replays += 1
                keys = [(e.boot_id, e.seq) for e in self.history]
                after = request.after
                point = None if after is None else (after.boot_id, after.seq)
                start = keys.index(point) + 1 if point in keys else 0
                for event in self.history[start:]:
                    await self._send(event)


async def clear_retained(url: str, base: str, tables: Sequence[str]) -> None:
    """Empty the retained messages a test's service and bridges left on the shared broker
    (so they reach no later test, and the broker's store does not grow run after run)."""
    parts = urlsplit(url)
    topics = [f"{base}/service/availability"]
    for table in tables:
        topics += [f"{base}/{table}/bridge/availability", f"{base}/{table}/service/state"]
    async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as client:
        for topic in topics:
            await client.publish(topic, b"", qos=1, retain=True)


def game_of(seed: int = 19, hands: int = 4) -> list[RecordedHand]:
    """A deterministic game: seed 19 has three wins worth 台 then a drawn hand, a few
    breaches and a few misread tiles (faults)."""
    return record_game(seed, hands, violations=Violations(0.01), faults=TableFaults(misread=0.003))


def events_of(game: Sequence[RecordedHand], table: str) -> list[Event]:
    return retable([e for hand in game for e in hand.events], table)


def timed(game: Sequence[RecordedHand]) -> dict[int, float]:
    """A time for every event (seq → Unix seconds), uneven as a table's pace is and always
    forward (0.5–2 s a step): the players' figures of time read these."""
    return {e.seq: 1.7e9 + 2.0 * e.seq + (e.seq % 7) * 0.25 for h in game for e in h.events}


def timed_events(game: Sequence[RecordedHand], table: str) -> list[Event]:
    """`events_of` with each event at its `timed` time."""
    ts = timed(game)
    return [e.model_copy(update={"ts": ts[e.seq]}) for e in events_of(game, table)]


async def until(check: Callable[[], Any], timeout: float = 30.0, what: str = "") -> None:
    """Wait for `check()` to be true (a sync check is run in a thread: it may read the store)."""
    try:
        async with asyncio.timeout(timeout):
            while not await asyncio.to_thread(check):
                await asyncio.sleep(0.05)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what or check}") from None


@dataclass
class Api:
    """A running service, its app, a client of the app and two tokens."""

    service: Service
    store: Store
    app: FastAPI
    client: httpx.AsyncClient
    mqtt_url: str
    base: str
    admin: str  # the admin token's secret
    referee: str  # the referee token's secret
    admin_id: int
    referee_id: int
    bridges: list[Bridge] = field(default_factory=list)

    @staticmethod
    def auth(secret: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {secret}"}

    @property
    def as_admin(self) -> dict[str, str]:
        return self.auth(self.admin)

    @property
    def as_referee(self) -> dict[str, str]:
        return self.auth(self.referee)

    async def get(self, url: str, **params: Any) -> Any:
        """GET that must succeed: the JSON body."""
        response = await self.client.get(url, params=params)
        assert response.status_code == 200, (url, response.status_code, response.text)
        return response.json()

    async def get_as(self, headers: dict[str, str], url: str, **params: Any) -> Any:
        """GET with a token that must succeed: the JSON body."""
        response = await self.client.get(url, params=params, headers=headers)
        assert response.status_code == 200, (url, response.status_code, response.text)
        return response.json()

    async def bridge(self, table: str) -> Bridge:
        """A bridge of `table` on the broker, closed with the fixture."""
        bridge = Bridge(self.mqtt_url, self.base, table)
        await bridge.__aenter__()
        self.bridges.append(bridge)
        return bridge

    async def play(self, table: str, events: Sequence[Event]) -> None:
        """Publish `events` as the table's bridge and wait until the last one is stored."""
        bridge = next((b for b in self.bridges if b.table == table), None)
        if bridge is None:
            bridge = await self.bridge(table)
        await bridge.publish(events)
        last = (events[-1].boot_id, events[-1].seq)
        await until(lambda: self.store.last_event_key(table) == last, what=f"{table} at {last}")


@contextlib.asynccontextmanager
async def running_service(mqtt_url: str, store_url: str, base: str) -> AsyncIterator[Service]:
    settings = ServeSettings(
        mqtt=mqtt_url, db=store_url, base_topic=base, client_id=base, gap_timeout=2.0
    )
    store = Store(settings.database_url)
    service = Service(settings, store)
    task = asyncio.create_task(service.run(), name=f"service {base}")
    try:
        ready = asyncio.create_task(service.ready.wait())
        done, _ = await asyncio.wait({task, ready}, timeout=30, return_when="FIRST_COMPLETED")
        if task in done:
            ready.cancel()
            task.result()  # raises why it stopped
        assert ready in done, "the service was not ready in 30 s"
        yield service
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        store.close()


@contextlib.asynccontextmanager
async def running_api(mqtt_url: str, store_url: str) -> AsyncIterator[Api]:
    base = f"api-{uuid.uuid4().hex[:8]}"
    tables: set[str] = set()
    try:
        async with running_service(mqtt_url, store_url, base) as service:
            store = service.store
            admin_row, admin = store.create_token("admin", "the tests' admin")
            referee_row, referee = store.create_token("referee", "the tests' referee")
            app = create_app(service, store, static=STATIC)
            transport = httpx.ASGITransport(app)
            async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
                api = Api(
                    service, store, app, client, mqtt_url, base, admin, referee,
                    admin_row.id, referee_row.id,
                )  # fmt: skip
                try:
                    yield api
                finally:
                    for bridge in api.bridges:
                        await bridge.__aexit__(None, None, None)
                    tables = {*service.table_names(), *(b.table for b in api.bridges)}
    finally:
        await clear_retained(mqtt_url, base, sorted(tables))


@contextlib.asynccontextmanager
async def serving(app: FastAPI, port: int | None = None) -> AsyncIterator[str]:
    """The app on `port` (a free one by default) of 127.0.0.1 in this loop; its base URL."""
    port = port or free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(10):
            while not server.started:
                assert not task.done(), "uvicorn stopped"
                await asyncio.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)  # open streams must not hold the shutdown up


SECRET_KEYS = {"concealed", "concealed_ids", "passed_win"}  # 過水 tells a wait


def has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return bool(SECRET_KEYS & value.keys()) or any(has_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(has_secret(v) for v in value)
    return False


def ws_base(url: str) -> str:
    """The ws:// base of a served app's http:// URL."""
    return "ws" + url.removeprefix("http")


async def receive(ws: ClientConnection) -> dict[str, Any]:
    message = json.loads(await asyncio.wait_for(ws.recv(), 20))
    assert isinstance(message, dict)
    return message
