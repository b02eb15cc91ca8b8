"""PostgreSQL away mid-game and while the tables are quiet, against the real `mjtable serve`
process: it waits the outage out in-process (no restart), says `degraded` on its health
while it lasts, takes its tables again when the database is back, and in the end every
event of the bridge is stored exactly once and every hand equals the truth.

The outage is a real one as the service sees it: its connections go through a TCP relay
that the test cuts (every connection dropped, new ones closed at once) and mends, so the
shared PostgreSQL other tests use is never stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from table_service.store import Store
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import record_game
from table_sim.violations import Violations
from tests.service.kit import Server, assert_whole, stored_whole


class Relay:
    """A TCP relay to the database that can be cut and mended."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.down = False
        self.port = 0
        self._links: set[asyncio.StreamWriter] = set()
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Relay:
        self._server = await asyncio.start_server(self._link, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()

    def cut(self) -> None:
        self.down = True
        for writer in list(self._links):
            writer.transport.abort()
        self._links.clear()

    def mend(self) -> None:
        self.down = False

    async def _link(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._links |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()
        self._links.discard(writer)


def through(url: str, relay: Relay) -> str:
    return make_url(url).set(host="127.0.0.1", port=relay.port).render_as_string(False)


async def until_health(server: Server, status: str, timeout: float = 30) -> dict[str, Any]:
    async with asyncio.timeout(timeout):
        while (health := await server.health())["status"] != status:
            await asyncio.sleep(0.2)
    return health


@pytest.mark.parametrize("quiet", [False, True], ids=["mid-game", "quiet"])
async def test_postgresql_away_is_waited_out_in_process(
    mqtt_url: str, store_url: str, tmp_path: Path, quiet: bool
) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("the outage of a database server (SQLite is a file in the process)")
    game = record_game(31, 4, violations=Violations(0.02))
    events = retable([e for h in game for e in h.events], "o1")
    base = f"outage-{uuid.uuid4().hex[:8]}"
    parsed = make_url(store_url)
    store = Store(store_url)
    async with Relay(parsed.host or "127.0.0.1", parsed.port or 5432) as relay:
        server = Server(mqtt_url, through(store_url, relay), base, tmp_path)
        try:
            await server.start()
            async with FakeBridge(mqtt_url, base, "o1") as bridge:
                third = len(events) // 3
                await bridge.publish(events[:third])
                await stored_whole(store, "o1", events[:third], server)
                relay.cut()
                if not quiet:
                    await bridge.publish(events[third : 2 * third])  # held, or left and asked for
                health = await until_health(server, "degraded")
                assert health["reasons"], health
                await asyncio.sleep(5)  # a while down, the table playing on (or quiet)
                assert server.proc is not None and server.proc.poll() is None
                relay.mend()
                await until_health(server, "ok", timeout=60)
                await bridge.publish(events[third if quiet else 2 * third :])
                await stored_whole(store, "o1", events, server)
            assert server.starts == 1  # ridden out in-process
            assert_whole(store, "o1", events, game)
        finally:
            server.stop()
            store.close()


async def test_a_database_that_takes_no_writes_pauses_intake_and_loses_nothing(
    mqtt_url: str, tmp_path: Path
) -> None:
    """SQLite locked by another process for a while: the backlog fills to its limit, the
    service stops taking events from the broker (they stay with the bridge), says so, and
    once writes go through again asks for what it left: every event stored once."""
    game = record_game(32, 4)
    events = retable([e for h in game for e in h.events], "o2")
    base = f"locked-{uuid.uuid4().hex[:8]}"
    url = f"sqlite:///{tmp_path / 'mjtable.db'}"
    server = Server(mqtt_url, url, base, tmp_path, "--backlog-max", "100")
    store = Store(url)
    try:
        await server.start()
        async with FakeBridge(mqtt_url, base, "o2") as bridge:
            await bridge.publish(events[:50])
            await stored_whole(store, "o2", events[:50], server)
            locker = sqlite3.connect(tmp_path / "mjtable.db", isolation_level=None)
            locker.execute("BEGIN EXCLUSIVE")  # no writer gets in until it commits
            try:
                await bridge.publish(events[50:400])
                async with asyncio.timeout(30):
                    while not (health := await server.health())["intake_paused"]:
                        await asyncio.sleep(0.2)
                assert health["status"] == "degraded" and health["backlog"] >= 100
            finally:
                locker.execute("COMMIT")
                locker.close()
            await bridge.publish(events[400:])
            await stored_whole(store, "o2", events, server)
            health = await until_health(server, "ok")
            assert not health["intake_paused"]
            assert bridge.replays >= 1  # what was left with the bridge was asked for
        assert server.starts == 1
        assert_whole(store, "o2", events, game)
    finally:
        server.stop()
        store.close()
