"""The intake's defences through a real broker: a forged boot published beside a real table
that keeps playing, and a pause whose deferred events come back by replay."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import aiomqtt

from firmware_bridge.messages import Event
from table_service.live.consumer import SuspectBoot
from tests.live.kit import A, ev, keys, running, until

FORGED = 4242


async def test_a_forged_boot_does_not_take_over_a_table_that_keeps_playing(
    mqtt_url: str,
) -> None:
    history = [ev(s) for s in range(1, 61)]
    suspects: list[SuspectBoot] = []
    options = {"reorder_window": 1.0, "gap_timeout": 2.0, "on_suspect": suspects.append}
    async with running(mqtt_url, history, **options) as (consumer, bridge, out):
        parts = urlsplit(mqtt_url)
        async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as forger:
            for n, event in enumerate(history):
                await bridge.publish(event)
                if n == 5:  # the forger publishes on the table's topic: no ACL stops it
                    for seq in (1, 2, 3):
                        forged = ev(seq, FORGED)
                        await forger.publish(f"{consumer.base}/t1/event", forged.model_dump_json())
                await asyncio.sleep(0.05)  # the table plays on, far within a reorder window
        await until(lambda: len(out) == 60 and len(suspects) == 1)
    assert keys(out) == [(A, s) for s in range(1, 61)]
    assert [(s.boot_id, s.first_seq, s.count) for s in suspects] == [(FORGED, 1, 3)]
    assert consumer.order.counts.late == 0


async def test_events_deferred_while_paused_come_back_by_replay(mqtt_url: str) -> None:
    history = [ev(s) for s in range(1, 6)]
    async with running(mqtt_url, history, reorder_window=0.1) as (consumer, bridge, out):
        for event in history[:2]:
            await bridge.publish(event)
        await until(lambda: len(out) == 2)
        consumer.pause()
        for event in history[2:]:
            await bridge.publish(event)
        await until(lambda: consumer.order.counts.deferred == 3)
        assert len(out) == 2
        assert await consumer.resume() == 1  # one replay, from the last delivered
        await until(lambda: len(out) == 5)
    assert bridge.replays[-1] == (A, 2)
    assert keys(out) == [(A, s) for s in range(1, 6)]
    assert all(isinstance(e, Event) for e in out)
