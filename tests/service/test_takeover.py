"""More than one `mjtable serve`: one owner per table (PostgreSQL advisory locks), a standby
takes over within 10 s when the owner is killed mid-hand, and SQLite refuses a second."""

from __future__ import annotations

import asyncio
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from table_service.store import Store
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import record_game
from tests.service.kit import MJTABLE, Server, stored_matches_truth


async def test_a_standby_takes_over_a_killed_owners_table_within_10_s(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("several service processes share a PostgreSQL database; SQLite takes one")
    game = record_game(21, 5)
    events = retable([e for h in game for e in h.events], "o1")
    base = f"own-{uuid.uuid4().hex[:8]}"
    first = Server(mqtt_url, store_url, base, tmp_path / "a")
    second = Server(mqtt_url, store_url, base, tmp_path / "b")
    second.args[second.args.index("--client-id") + 1] = base + "-b"  # its own MQTT sessions
    store = Store(store_url)
    try:
        await first.start()
        async with FakeBridge(mqtt_url, base, "o1") as bridge:
            half = len(events) // 2
            await bridge.publish(events[:10])  # the first process owns the table from here
            async with asyncio.timeout(20):
                while "o1" not in await asyncio.to_thread(first.owned):
                    await asyncio.sleep(0.1)
            await second.start()
            await bridge.publish(events[10:half])
            await asyncio.sleep(0.5)
            assert "o1" not in await asyncio.to_thread(second.owned)  # it stands by
            first.kill()  # mid-hand
            killed = time.monotonic()
            async with asyncio.timeout(10):
                while "o1" not in await asyncio.to_thread(second.owned):
                    await asyncio.sleep(0.1)
            taken = time.monotonic() - killed
            await bridge.publish(events[half:])
            last = (events[-1].boot_id, events[-1].seq)
            async with asyncio.timeout(60):
                while store.last_event_key("o1") != last:
                    await asyncio.sleep(0.2)
        print(f"taken over in {taken:.1f} s")
        stored = [(e.event.boot_id, e.event.seq) for e in store.entries("o1") if e.event]
        assert stored == [(e.boot_id, e.seq) for e in events]  # each event once, in order
        assert stored_matches_truth(store, "o1", game) == []
    finally:
        first.stop()
        second.stop()
        store.close()


def test_a_second_service_on_one_sqlite_database_refuses_to_start(tmp_path: Path) -> None:
    args = [MJTABLE, "serve", "--data-dir", str(tmp_path), "--mqtt", "mqtt://127.0.0.1:9",
            "--port", "0"]  # fmt: skip
    holder = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "mjtable.db.lock").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)
        second = subprocess.run(args, capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert "another mjtable serve holds" in second.stderr
    finally:
        holder.terminate()
        holder.wait(10)
