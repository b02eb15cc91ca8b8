"""The service tests' helpers: a service process to start and kill (`Server`), a service
running in this process (`running`), and the checks of what was stored against the truth."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.request
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from firmware_bridge.messages import Event
from table_service.service.live import Service
from table_service.service.settings import ServeSettings
from table_service.store import Store
from table_sim.broker import free_port
from table_sim.recording import RecordedHand
from table_sim.service_end import stored_hands, stored_mismatches

MJTABLE = str(Path(sys.executable).with_name("mjtable"))


class Server:
    """`mjtable serve` as a child process that can be killed without warning."""

    def __init__(self, mqtt_url: str, db_url: str, base: str, data_dir: Path, *more: str) -> None:
        self.port = free_port()
        self.args = [
            MJTABLE, "serve", "--mqtt", mqtt_url, "--db", db_url, "--base-topic", base,
            "--client-id", base, "--port", str(self.port), "--data-dir", str(data_dir),
            "--snapshot-every", "97", "--log-level", "WARNING", *more,
        ]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        data_dir.mkdir(parents=True, exist_ok=True)
        self.log = data_dir / f"serve-{uuid.uuid4().hex[:6]}.log"  # every start's stderr

    async def start(self, poll: float = 0.1) -> dict[str, Any]:
        """Start it; the first health it answers, asked every `poll` seconds."""
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(self.args, stdout=subprocess.DEVNULL, stderr=log)
        self.starts += 1
        url = self.url("/api/health")
        async with asyncio.timeout(60):
            while True:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"serve exited: {self.errors()[-2000:]}")
                try:
                    response = await asyncio.to_thread(urllib.request.urlopen, url, timeout=1)
                    return dict(json.loads(response.read()))
                except OSError:
                    await asyncio.sleep(poll)

    def errors(self) -> str:
        """What the service wrote to stderr, all its starts."""
        return self.log.read_text(errors="replace")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def owned(self) -> list[str]:
        """The tables this process follows, as its health lists them (`/api/tables` also
        lists the others' while a page of it watches)."""
        with urllib.request.urlopen(self.url("/api/health"), timeout=5) as response:
            return [t["table"] for t in json.load(response)["followed"]]

    async def health(self) -> dict[str, Any]:
        url = self.url("/api/health")
        response = await asyncio.to_thread(urllib.request.urlopen, url, timeout=5)
        return dict(json.loads(response.read()))

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextlib.asynccontextmanager
async def running(settings: ServeSettings) -> AsyncIterator[Service]:
    store = Store(settings.database_url)
    service = Service(settings, store)
    task = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), 30)
        yield service
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        store.close()


def settings_for(mqtt_url: str, store_url: str, base: str) -> ServeSettings:
    return ServeSettings(mqtt=mqtt_url, db=store_url, base_topic=base, client_id=base)


def stored_matches_truth(store: Store, table: str, game: list[RecordedHand]) -> list[str]:
    """Every played hand stored once, with the truth's result, money, deal and 台."""
    return stored_mismatches(stored_hands(store, table), [h.truth for h in game])


async def stored_whole(store: Store, table: str, events: list[Event], server: Server) -> None:
    last = (events[-1].boot_id, events[-1].seq)
    async with asyncio.timeout(120):
        while store.last_event_key(table) != last:
            assert server.proc is not None and server.proc.poll() is None, "serve exited"
            await asyncio.sleep(0.2)


def assert_whole(store: Store, table: str, events: list[Event], game: list[RecordedHand]) -> None:
    stored = [e.event for e in store.entries(table) if e.kind == "event" and e.event]
    assert [(e.boot_id, e.seq) for e in stored] == [(e.boot_id, e.seq) for e in events]
    assert [e.body for e in stored] == [e.body for e in events]  # the bridge's own bodies
    assert stored_matches_truth(store, table, game) == []
