"""Several `mjtable serve` on one PostgreSQL share the tables: each process owns an even
share and receives only those tables' events; a process that joins takes its share at
each table's hand end, one that stops cleanly hands its tables back, and no event is lost
or stored twice on the way."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import random
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect

from firmware_bridge.messages import Event
from table_service.service.ownership import played_recently, preference, share_out
from table_service.store import Store
from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import RecordedHand, record_game
from tests.service.kit import Server, assert_whole

NAMES = [f"t{i:02d}" for i in range(1, 51)]


@pytest.mark.parametrize("members", [[0, 1], [0, 1, 2], [0, 2, 5, 7], [3, 4, 5, 6, 9]])
@pytest.mark.parametrize("count", [6, 50, 203])
def test_the_tables_are_shared_out_evenly(members: list[int], count: int) -> None:
    names = [f"club-{i}" for i in range(count)]
    share = share_out(names, members)
    sizes = collections.Counter(share.values())
    assert set(share) == set(names)
    assert set(sizes) <= set(members)
    assert max(sizes.values()) == -(-count // len(members))  # nobody over n/k, rounded up
    assert min(sizes.get(m, 0) for m in members) >= count // len(members) - 1


def test_the_share_is_the_same_whatever_order_the_tables_are_read_in() -> None:
    shuffled = random.Random(7).sample(NAMES, len(NAMES))
    assert share_out(shuffled, [2, 0, 1]) == share_out(NAMES, [0, 1, 2])


def test_every_process_computes_the_same_share(tmp_path: Path) -> None:
    """Not Python's hash(), which differs per process (PYTHONHASHSEED)."""
    code = (
        "import json, sys; from table_service.service.ownership import share_out;"
        "print(json.dumps(share_out(sys.argv[1:], [0, 1, 2])))"
    )
    seen = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code, *NAMES], env=env, capture_output=True, check=True
        )
        seen.add(out.stdout)
    assert len(seen) == 1


def moved(before: dict[str, int], after: dict[str, int]) -> set[str]:
    return {t for t in before if before[t] != after[t]}


@pytest.mark.parametrize("seed", range(5))
def test_a_member_joining_or_leaving_moves_little_more_than_its_share(seed: int) -> None:
    names = [f"x{random.Random(seed).randrange(10**6)}-{i}" for i in range(60)]
    two, three = share_out(names, [0, 1]), share_out(names, [0, 1, 2])
    taken = {t for t, m in three.items() if m == 2}
    assert taken <= moved(two, three)
    assert len(moved(two, three)) <= len(taken) + 3  # the others keep what they have
    left = share_out(names, [0, 2])  # member 1 dies
    lost = {t for t, m in three.items() if m == 1}
    assert lost <= moved(three, left)
    assert len(moved(three, left)) <= len(lost) + 3


def test_a_table_long_unplayed_is_left_out_of_the_share() -> None:
    day = 86400.0
    newest = 1_767_225_600.0
    seen = {f"t{i:02}": newest - 60 * i for i in range(8)} | {"t90": newest - 30 * day}
    recent = played_recently(seen, retired_after=7 * day)
    assert recent == set(seen) - {"t90"}
    assert sorted(collections.Counter(share_out(recent, [0, 1]).values()).values()) == [4, 4]
    # Measured from the newest entry, not the clock: the edge is the same for everyone.
    assert played_recently({"a": newest, "b": newest - 7 * day}, 7 * day) == {"a", "b"}
    assert played_recently({"a": newest, "b": newest - 7 * day - 1}, 7 * day) == {"a"}
    assert played_recently({}, 7 * day) == set()


def test_a_table_prefers_every_member_once() -> None:
    order = preference("t07", [4, 1, 9])
    assert sorted(order) == [1, 4, 9]
    assert preference("t07", [9, 4, 1]) == order  # the members' order does not matter


# --- two processes, real broker, real database --------------------------------------------


def hands_of(game: list[RecordedHand], table: str) -> list[list[Event]]:
    return [retable(hand.events, table) for hand in game]


def flat(parts: Iterable[list[Event]]) -> list[Event]:
    return [e for part in parts for e in part]


async def until(check: Callable[[], Awaitable[bool]], seconds: float = 30.0) -> None:
    async with asyncio.timeout(seconds):
        while not await check():
            await asyncio.sleep(0.2)


async def test_a_joining_process_takes_its_share_at_hand_ends_and_a_leaving_one_hands_it_back(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("several service processes share a PostgreSQL database; SQLite takes one")
    tables = [f"s{i}" for i in range(1, 7)]
    games = {t: record_game(40 + i, 3) for i, t in enumerate(tables)}
    hands = {t: hands_of(games[t], t) for t in tables}
    base = f"spread-{uuid.uuid4().hex[:8]}"
    first = Server(mqtt_url, store_url, base, tmp_path / "a", "--leave-wait", "2")
    second = Server(mqtt_url, store_url, base, tmp_path / "b", "--leave-wait", "2")
    store = Store(store_url)
    bridges = [FakeBridge(mqtt_url, base, t) for t in tables]
    entered: list[FakeBridge] = []

    async def stored(upto: dict[str, list[Event]]) -> bool:
        keys = await asyncio.gather(*(asyncio.to_thread(store.last_event_key, t) for t in tables))
        return all(
            k == (upto[t][-1].boot_id, upto[t][-1].seq) for t, k in zip(tables, keys, strict=True)
        )

    try:
        await first.start()
        for bridge in bridges:
            await bridge.__aenter__()
            entered.append(bridge)
        by_table = dict(zip(tables, bridges, strict=True))
        # hand 1 whole and hand 2 begun: every table mid-hand when the second joins
        part = {t: len(hands[t][1]) // 2 for t in tables}
        sent = {t: hands[t][0] + hands[t][1][: part[t]] for t in tables}
        await asyncio.gather(*(by_table[t].publish(sent[t]) for t in tables))
        await until(lambda: stored(sent))
        assert sorted(await asyncio.to_thread(first.owned)) == tables

        await second.start()
        share = share_out(tables, [0, 1])
        theirs = sorted(t for t in tables if share[t] == 1)
        assert theirs and len(theirs) == 3  # an even share

        async def both_see_two() -> bool:
            return (await first.health())["members"]["members"] == [0, 1] and (
                await second.health()
            )["members"]["members"] == [0, 1]

        await until(both_see_two)
        await asyncio.sleep(2.5)  # a claim round more: mid-hand, nothing moves yet
        health = (await first.health())["members"]
        assert health["handing_on"] == theirs
        assert sorted(await asyncio.to_thread(first.owned)) == tables
        assert await asyncio.to_thread(second.owned) == []

        # the rest of hand 2: each table the second's goes at its hand's end
        rest = {t: hands[t][1][part[t] :] for t in tables}
        await asyncio.gather(*(by_table[t].publish(rest[t]) for t in tables))
        sent = {t: hands[t][0] + hands[t][1] for t in tables}
        await until(lambda: stored(sent))

        async def settled() -> bool:
            return sorted(await asyncio.to_thread(second.owned)) == theirs and sorted(
                await asyncio.to_thread(first.owned)
            ) == sorted(set(tables) - set(theirs))

        await until(settled)
        one, two = (await first.health())["members"], (await second.health())["members"]
        assert one["subscribed"] == sorted(set(tables) - set(theirs))  # its own events only
        assert two["subscribed"] == theirs
        assert one["handing_on"] == [] and two["member"] == 1
        with pytest.raises(urllib.error.HTTPError) as refused:  # asked of the wrong process
            await asyncio.to_thread(urllib.request.urlopen, first.url(f"/api/tables/{theirs[0]}"))
        assert refused.value.code == 409
        assert "member 1" in json.loads(refused.value.read())["error"]

        # hand 3 half played, watched on the first's page: the second's tables are there too
        part = {t: len(hands[t][2]) // 2 for t in tables}
        half = {t: hands[t][2][: part[t]] for t in tables}
        async with connect(first.url("/api/ws").replace("http", "ws", 1)) as page:
            snapshot = json.loads(await page.recv())
            ours = sorted(set(tables) - set(theirs))
            assert sorted(s["table"] for s in snapshot["tables"]) == ours
            await asyncio.gather(*(by_table[t].publish(half[t]) for t in tables))
            sent = {t: sent[t] + half[t] for t in tables}
            await until(lambda: stored(sent))
            last: dict[str, dict[str, Any]] = {}  # each table's latest state on the page

            async def page_has_every_hand_under_way() -> bool:
                with contextlib.suppress(TimeoutError):
                    while True:
                        message = json.loads(await asyncio.wait_for(page.recv(), 0.1))
                        if message["type"] == "state":
                            last[message["table"]] = message["state"]
                under_way = ("dealing", "play")
                return sorted(last) == tables and all(
                    s["hand"] is not None and s["hand"]["phase"] in under_way for s in last.values()
                )

            await until(page_has_every_hand_under_way)
            asked = first.url(f"/api/tables/{theirs[0]}")
            read = await asyncio.to_thread(urllib.request.urlopen, asked)
            assert json.loads(read.read()) == last[theirs[0]]  # the owner's, relayed
            listed = await asyncio.to_thread(urllib.request.urlopen, first.url("/api/tables"))
            assert [s["table"] for s in json.loads(listed.read())] == tables
            assert (await first.health())["members"]["relaying"]

        async def relay_stopped() -> bool:  # nobody watching: the others' news not received
            return not (await first.health())["members"]["relaying"]

        await until(relay_stopped)
        with pytest.raises(urllib.error.HTTPError) as refused:
            await asyncio.to_thread(urllib.request.urlopen, first.url(f"/api/tables/{theirs[0]}"))
        assert refused.value.code == 409

        # then the second stops cleanly mid-hand: its tables come back
        await asyncio.to_thread(second.stop)
        assert second.proc is not None and second.proc.returncode == 0

        async def alone_again() -> bool:
            health = (await first.health())["members"]
            return health["members"] == [0] and health["subscribed"] is None

        await until(alone_again)
        rest = {t: hands[t][2][part[t] :] for t in tables}
        await asyncio.gather(*(by_table[t].publish(rest[t]) for t in tables))
        everything = {t: flat(hands[t]) for t in tables}
        await until(lambda: stored(everything), 60)
        assert sorted(await asyncio.to_thread(first.owned)) == tables
        for table in tables:  # each event once, in order; every hand as the truth has it
            assert_whole(store, table, everything[table], games[table])
    finally:
        for bridge in entered:
            await bridge.__aexit__(None, None, None)
        first.stop()
        second.stop()
        store.close()
