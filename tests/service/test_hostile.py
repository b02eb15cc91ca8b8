"""Hostile and broken messages on every topic the service reads, against the real
`mjtable serve` process: it never exits, no other table is disturbed, and every event
of the real table's bridge is stored exactly once, its hands as the truth says.

The broker has no ACL here (as the demo runs), so anyone may publish anything anywhere.
"""

from __future__ import annotations

import asyncio
import json
import random
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiomqtt

from firmware_bridge.messages import Event
from table_service.store import Store
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import record_game
from table_sim.violations import Violations
from tests.service.kit import Server, assert_whole, stored_matches_truth, stored_whole

TOPICS = ("event", "bridge/link", "bridge/availability")  # what the service subscribes to


def named(payloads: list[tuple[str, bytes]], base: str, tables: Iterator[str]) -> list[Any]:
    """Each (suffix, payload) on a topic of one of `tables`, round robin."""
    return [(f"{base}/{next(tables)}/{suffix}", payload) for suffix, payload in payloads]


def fixed_garbage(real: Event) -> list[tuple[str, bytes]]:
    """The messages a fault campaign stopped the service with, and their cousins."""
    event = real.model_dump(mode="json")
    at = {**event, "table": "fresh"}

    def body(**changes: Any) -> bytes:
        return json.dumps({**at, **changes}).encode()

    return [
        ("event", body(ts=float("nan"))),  # json.dumps writes NaN, as a hostile peer would
        ("event", body(ts=float("inf"))),
        ("event", body(ts=1e400)),
        ("event", body(seq=2**63 - 1)),
        ("event", body(seq=2**63)),
        ("event", body(seq=30_000_000)),
        ("event", body(seq=-1)),
        ("event", body(boot_id=2**40)),
        ("event", body(table="x" * 300)),
        ("event", b"[1, 2, 3]"),
        ("event", b"\xff\xfe\x00garbage"),
        ("event", b"[" * 50_000 + b"]" * 50_000),
        ("event", b"{" + b'"a": 1, ' * 200_000 + b'"b": 2}'),
        ("bridge/link", b"[1, 2, 3]"),
        ("bridge/link", b'{"state": "up"}'),
        ("bridge/link", b"null"),
        ("bridge/link", b"\xff"),
        ("bridge/availability", b"\xff\xfe"),
        ("bridge/availability", b"maybe"),
        ("bridge/availability", b"x" * 100_000),
    ]


def mutated(real: list[Event], rng: random.Random, count: int) -> list[tuple[str, bytes]]:
    """Real events with fields dropped, retyped or pushed out of range (for other tables)."""
    weird: list[Any] = [
        None, True, -1, 0, 2**31, 2**63, 2**64, -(2**63) - 1, 1e308, -1e308, "", "八", [], {},
        [1, 2], {"kind": "tile_drawn"}, "x" * 10_000,
    ]  # fmt: skip
    out: list[tuple[str, bytes]] = []
    for _ in range(count):
        data = rng.choice(real).model_dump(mode="json")
        data["table"] = f"m{rng.randrange(40)}"
        target = data if rng.random() < 0.5 else data["body"]
        key = rng.choice(sorted(target))
        if rng.random() < 0.3:
            del target[key]
        else:
            target[key] = rng.choice(weird)
        out.append((rng.choice(TOPICS), json.dumps(data).encode()))
    return out


async def garble(mqtt_url: str, messages: list[tuple[str, bytes]], retain: bool) -> None:
    parts = urlsplit(mqtt_url)
    async with aiomqtt.Client(parts.hostname or "", parts.port or 1883) as client:
        for i, (topic, payload) in enumerate(messages):
            await client.publish(topic, payload, qos=1, retain=retain and "/bridge/" in topic)
            if i % 32 == 31:
                await asyncio.sleep(0)


async def clear_retained(mqtt_url: str, messages: list[tuple[str, bytes]]) -> None:
    parts = urlsplit(mqtt_url)
    async with aiomqtt.Client(parts.hostname or "", parts.port or 1883) as client:
        for topic in {t for t, _ in messages if "/bridge/" in t}:
            await client.publish(topic, b"", qos=1, retain=True)


async def test_no_message_on_any_topic_stops_the_service_or_disturbs_a_table(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    game = record_game(21, 4, violations=Violations(0.02))
    events = retable([e for h in game for e in h.events], "h1")
    base = f"hostile-{uuid.uuid4().hex[:8]}"
    rng = random.Random(21)
    garbage = named(fixed_garbage(events[0]), base, iter(lambda: "fresh", None))
    garbage += named(fixed_garbage(events[0]), base, iter(lambda: "h1", None))[-7:]
    garbage += [(f"{base}/{t}", p) for t, p in mutated(events, rng, 400)]
    rng.shuffle(garbage)
    server = Server(mqtt_url, store_url, base, tmp_path)
    store = Store(store_url)
    try:
        await server.start()
        async with FakeBridge(mqtt_url, base, "h1") as bridge:
            third = len(events) // 3
            await bridge.publish(events[:third])
            await garble(mqtt_url, garbage, retain=True)
            await bridge.publish(events[third : 2 * third])
            server.stop()  # restarted with the retained garbage still on the broker
            await server.start()
            await garble(mqtt_url, garbage[::-1], retain=False)
            await bridge.publish(events[2 * third :])
            await stored_whole(store, "h1", events, server)
        assert server.proc is not None and server.proc.poll() is None
        assert_whole(store, "h1", events, game)
        assert "Traceback" not in server.errors()
    finally:
        await clear_retained(mqtt_url, garbage)
        server.stop()
        store.close()


async def test_a_flood_of_new_tables_costs_the_real_table_nothing(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    game = record_game(22, 3)
    events = retable([e for h in game for e in h.events], "h1")
    base = f"flood-{uuid.uuid4().hex[:8]}"
    flood = [
        (f"{base}/f{i}/event", e.model_copy(update={"table": f"f{i}"}).model_dump_json().encode())
        for i, e in enumerate(events[i % len(events)] for i in range(2_000))
    ]
    server = Server(mqtt_url, store_url, base, tmp_path, "--max-tables", "4")
    store = Store(store_url)
    try:
        await server.start()
        async with FakeBridge(mqtt_url, base, "h1") as bridge:
            await bridge.publish(events[:50])
            await garble(mqtt_url, flood, retain=False)
            await bridge.publish(events[50:])
            await stored_whole(store, "h1", events, server)
        health = await server.health()
        assert health["tables"] == 4  # the real table and the first three of the flood
        assert 0 < len(health["waiting"]) <= 256  # remembered by name, bounded
        assert "h1" not in health["waiting"]
        assert_whole(store, "h1", events, game)
        assert len(store.tables()) == 4
    finally:
        server.stop()
        store.close()


async def test_a_forged_boot_and_forged_events_are_faults_not_the_table(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    """A boot from nowhere is never switched to (a `suspect_boot` fault), and events forged
    at the table's next seqs, ahead of its bridge, are `conflict` faults when the bridge's
    own come: every key stored once, none of the bridge's events dropped."""
    game = record_game(23, 3)
    events = retable([e for h in game for e in h.events], "h1")
    base = f"forged-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path, "--gap-timeout", "3")
    store = Store(store_url)
    half = len(events) // 2
    forged_boot = [
        (f"{base}/h1/event", e.model_copy(update={"boot_id": 4242}).model_dump_json().encode())
        for e in events[40:45]
    ]
    ahead = [
        (f"{base}/h1/event", e.model_copy(update={"ts": e.ts + 1000}).model_dump_json().encode())
        for e in events[half : half + 20]
    ]
    try:
        await server.start()
        async with FakeBridge(mqtt_url, base, "h1") as bridge:
            await bridge.publish(events[:half])
            await garble(mqtt_url, forged_boot, retain=False)
            await stored_whole(store, "h1", events[:half], server)
            await garble(mqtt_url, ahead, retain=False)
            await asyncio.sleep(1)
            await bridge.publish(events[half:])
            await stored_whole(store, "h1", events, server)
            async with asyncio.timeout(30):  # the forged boot is given up after the timeout
                while not any(f.code == "suspect_boot" for f in store.faults("h1")):
                    await asyncio.sleep(0.2)
        stored = [e.event for e in store.entries("h1") if e.kind == "event" and e.event]
        assert [(e.boot_id, e.seq) for e in stored] == [(e.boot_id, e.seq) for e in events]
        assert stored_matches_truth(store, "h1", game) == []  # forged only in their times
        faults = store.faults("h1")
        conflicts = sorted(f.seq for f in faults if f.code == "conflict")
        assert conflicts == [e.seq for e in events[half : half + 20]]  # each told once
        (suspect,) = [f for f in faults if f.code == "suspect_boot"]
        assert suspect.boot_id == 4242 and "4242" in suspect.detail
    finally:
        server.stop()
        store.close()


async def test_a_table_first_heard_mid_boot_is_recorded_from_the_boots_start(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    """The operator's guide starts the bridges before the service: the service, hearing a
    table in the middle of a boot, asks its bridge for the boot from seq 1 (it keeps it)
    instead of giving the first events up."""
    game = record_game(24, 3)
    events = retable([e for h in game for e in h.events], "h1")
    base = f"midboot-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path)
    store = Store(store_url)
    try:
        async with FakeBridge(mqtt_url, base, "h1") as bridge:
            await bridge.publish(events[:150])  # nobody subscribed yet: the broker drops them
            await server.start()
            await bridge.publish(events[150:])
            await stored_whole(store, "h1", events, server)
            assert bridge.replays >= 1
        assert_whole(store, "h1", events, game)
        assert not [f for f in store.faults("h1") if f.code == "gap"]
    finally:
        server.stop()
        store.close()
