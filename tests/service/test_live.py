"""The service live: a table's events from the broker, judged, stored, published, restored."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit

import aiomqtt
import pytest

from table_sim.fakebridge import FakeBridge, retable
from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations
from tests.service.kit import running, settings_for, stored_matches_truth


async def until(check: Callable[[], bool], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.05)


async def test_a_game_is_stored_as_the_truth_says_and_published(
    mqtt_url: str, store_url: str, game: list[RecordedHand]
) -> None:
    base = f"svc-{uuid.uuid4().hex[:8]}"
    events = retable([e for h in game for e in h.events], "t1")
    parts = urlsplit(mqtt_url)
    seen: list[dict[str, object]] = []
    async with (
        running(settings_for(mqtt_url, store_url, base)) as service,
        aiomqtt.Client(parts.hostname or "", parts.port or 1883) as watcher,
    ):
        await watcher.subscribe(f"{base}/t1/service/hand", qos=1)

        async def watch() -> None:
            async for message in watcher.messages:
                if str(message.topic).endswith("/service/hand"):
                    seen.append(json.loads(bytes(message.payload)))  # type: ignore[arg-type]

        watching = asyncio.create_task(watch())
        async with FakeBridge(mqtt_url, base, "t1") as bridge:
            await bridge.publish(events)
            await until(lambda: service.applied >= len(events) + 1)
        await until(lambda: len(seen) >= len(game) - 1, 10)
        watching.cancel()
        store = service.store
        assert stored_matches_truth(store, "t1", game) == []
        session = store.open_session("t1")
        assert session is not None
        standings = store.standings(session.id)
        assert sum(s.total for s in standings) == 0
        flagged = {(v.seq, v.seat, v.code) for v in store.violations("t1", None, None)}
        injected = {(seq, seat, code) for h in game for _, seq, seat, code, *_ in h.breaches}
        assert injected <= flagged
        state = service.runner("t1").state()  # type: ignore[union-attr]
        assert state["online"] is True and state["hands"] >= len(game) - 1
        assert [h["seat"] for h in seen] == [
            r.seat for r in reversed(store.hands("t1", None, 100, None))
        ][: len(seen)]


async def test_a_restarted_service_has_the_same_state_and_carries_on(
    mqtt_url: str, store_url: str, game: list[RecordedHand]
) -> None:
    base = f"svc-{uuid.uuid4().hex[:8]}"
    events = retable([e for h in game for e in h.events], "t2")
    half = len(events) // 2
    async with FakeBridge(mqtt_url, base, "t2") as bridge:
        async with running(settings_for(mqtt_url, store_url, base)) as first:
            await bridge.publish(events[:half])
            await until(lambda: first.applied >= half + 1)
            before = first.runner("t2").state(concealed=True)  # type: ignore[union-attr]
        async with running(settings_for(mqtt_url, store_url, base)) as second:
            after = second.runner("t2").state(concealed=True)  # type: ignore[union-attr]
            live = ("online", "link")  # heard from the broker, not folded from the records
            assert {k: v for k, v in after.items() if k not in live} == {
                k: v for k, v in before.items() if k not in live
            }  # the fold of the stored log is the state it had
            await bridge.publish(events[half:])
            await until(lambda: second.store.last_event_key("t2") == (1, events[-1].seq))
            assert stored_matches_truth(second.store, "t2", game) == []


@pytest.fixture(scope="module")
def game() -> list[RecordedHand]:
    return record_game(7, 6, violations=Violations(0.03))
