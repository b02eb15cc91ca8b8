"""SIGKILL at random moments of play: the service restarted has exactly the records it would
have had without the kills (no hand lost or scored twice, no payment lost or doubled).

The real `mjtable serve` process, a real broker and database; a stand-in bridge publishes
a simulated game and answers replay requests from its history, as the bridge does.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import pytest

from table_service.store import Store
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import record_game
from table_sim.violations import Violations
from tests.service.kit import Server, stored_matches_truth


async def test_sigkill_at_random_points_loses_and_doubles_nothing(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    # one game per database (two of a minute each): MJTABLE_CRASH_SEED plays another
    seed = int(os.environ.get("MJTABLE_CRASH_SEED", 3 if store_url.startswith("sqlite") else 12))
    game = record_game(seed, 8, violations=Violations(0.02))
    events = retable([e for h in game for e in h.events], "k1")
    rng = random.Random(seed)
    kills = sorted(rng.sample(range(40, len(events) - 40), 4))
    base = f"crash-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path)
    store = Store(store_url)
    try:
        await server.start()
        async with FakeBridge(mqtt_url, base, "k1") as bridge:
            done = 0
            for at in kills:
                await bridge.publish(events[done:at])
                done = at
                # killed mid-batch, mid-commit or idle:
                await asyncio.sleep(rng.choice([0.0, 0.005, 0.02, 0.2]))
                server.kill()
                if rng.random() < 0.5:  # the table plays on while the service is down
                    step = rng.randrange(1, 30)
                    await bridge.publish(events[done : done + step])
                    done += step
                await server.start()
            await bridge.publish(events[done:])
            last = (events[-1].boot_id, events[-1].seq)
            async with asyncio.timeout(90):
                while store.last_event_key("k1") != last:
                    await asyncio.sleep(0.2)
        assert server.starts == len(kills) + 1
        print(f"replays asked of the bridge: {bridge.replays}")
        stored = [e for e in store.entries("k1") if e.kind == "event"]
        assert [(e.event.boot_id, e.event.seq) for e in stored if e.event] == [
            (e.boot_id, e.seq) for e in events
        ]  # every event once, in order
        assert stored_matches_truth(store, "k1", game) == []
        session = store.open_session("k1")
        assert session is not None
        ledger = store.ledger(session.id)
        assert sum(line.amount for line in ledger) == 0
        totals = [sum(line.amount for line in ledger if line.seat == s) for s in range(4)]
        judged = stored_count = len(store.hands("k1", None, 1000, None))
        want = [sum(h.truth.net[s] for h in game[:stored_count]) for s in range(4)]
        assert totals == want  # no payment lost or doubled
        flagged = {(v.seq, v.seat, v.code) for v in store.violations("k1", None, None)}
        injected = {
            (seq, seat, code) for h in game[:judged] for _, seq, seat, code, *_ in h.breaches
        }
        assert injected <= flagged
    finally:
        server.stop()
        store.close()


def folded_hands(store: Store, table: str) -> list[tuple[Any, ...]]:
    """The hands a fold of the table's whole stored log gives through the rulings stored:
    what the records must be, whatever moment a kill came at."""
    from table_service.mirror.fold import fold
    from table_service.mirror.mirror import TableMirror
    from table_service.mirror.records import HandRecord

    rulings = store.rulings(table)
    mirror = TableMirror(table)
    out = []
    for entry in store.entries(table):
        out += fold(mirror, entry.kind, entry.event, entry.body, rulings, entry.log_id)
    return [(r.result, r.seat, r.dealer, r.streak, r.net) for r in out if isinstance(r, HandRecord)]


def stored_hand_rows(store: Store, table: str) -> list[tuple[Any, ...]]:
    rows = sorted(store.hands(table, None, None, None), key=lambda h: h.id)
    return [(h.result, h.seat, h.dealer, h.streak, h.net) for h in rows]


@pytest.mark.parametrize("delay", [0.05, 0.3])
async def test_sigkill_during_a_ruling_leaves_the_records_exact(
    mqtt_url: str, store_url: str, tmp_path: Path, delay: float
) -> None:
    """A ruling and the records it re-derives are one transaction: the service killed
    while it re-derives 30 hands leaves either the old records or the new ones, never a
    mix; restarted, the records are what the stored log folds to, and the same ruling
    entered again gives the records a replay through it gives."""
    game = record_game(16, 30, violations=Violations(0.02))
    events = retable([e for h in game for e in h.events], "k2")
    base = f"crash-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path)
    store = Store(store_url)
    try:
        store.migrate()
        _, secret = store.create_token("referee", "the crash test's referee")
        await server.start()
        async with FakeBridge(mqtt_url, base, "k2") as bridge:
            await bridge.publish(events)
            last = (events[-1].boot_id, events[-1].seq)
            async with asyncio.timeout(90):
                while store.last_event_key("k2") != last:
                    await asyncio.sleep(0.2)
            before = stored_hand_rows(store, "k2")
            v = sorted(store.violations("k2"), key=lambda v: v.seq)[0]
            body = {"kind": "verdict", "boot_id": v.boot_id, "seq": v.seq, "seat": v.seat,
                    "code": v.code, "decision": "overturn", "reason": "killed mid-way"}  # fmt: skip

            def post() -> int:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{server.port}/api/tables/k2/rulings",
                    data=json.dumps(body).encode(), method="POST",
                    headers={"Authorization": f"Bearer {secret}",
                             "Content-Type": "application/json"},
                )  # fmt: skip
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        return int(response.status)
                except OSError:
                    return 0  # killed before it answered

            posting = asyncio.create_task(asyncio.to_thread(post))
            await asyncio.sleep(delay)
            server.kill()
            await posting
            await server.start()
            assert stored_hand_rows(store, "k2") == folded_hands(store, "k2")
            ruled = len(store.corrections("k2"))
            assert ruled in (0, 1)
            if ruled == 0:
                assert stored_hand_rows(store, "k2") == before
                assert await asyncio.to_thread(post) == 201
            assert stored_hand_rows(store, "k2") == folded_hands(store, "k2")
            assert len(store.corrections("k2")) == 1
    finally:
        server.stop()
        store.close()
