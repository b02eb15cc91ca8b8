"""The bridges' event streams, in order and exactly once: the bookkeeping, then a real broker."""

from __future__ import annotations

import asyncio
import uuid
from urllib.parse import urlsplit

import aiomqtt
import pytest

from firmware_bridge.messages import Event
from firmware_bridge.stopping import cancel_and_wait
from table_service.live.consumer import (
    Consumer,
    Gap,
    Hole,
    StreamOrder,
)
from table_sim.broker import OwnedBroker
from tests.live.kit import A, B, ev, feed, keys, running, until

# --- StreamOrder: no I/O --------------------------------------------------------------


def test_in_order_each_event_is_delivered_as_it_arrives() -> None:
    order = StreamOrder()
    for seq in range(1, 6):
        step = order.offer(ev(seq), 0.0)
        assert (step.status, keys(step.out)) == ("new", [(A, seq)])
    assert order.pointer("t1") == (A, 5)
    assert order.holes() == []
    assert (order.counts.received, order.counts.delivered) == (5, 5)


def test_redeliveries_are_dropped_and_counted() -> None:
    order = StreamOrder()
    out = feed(order, [ev(1), ev(2), ev(1), ev(4), ev(4), ev(2)])
    assert keys(out) == [(A, 1), (A, 2)]
    assert order.offer(ev(4), 0.0).status == "duplicate"  # held behind the hole: still known
    assert order.counts.duplicates == 4
    assert keys(order.offer(ev(3), 0.0).out) == [(A, 3), (A, 4)]
    assert order.counts.delivered == 4


def test_an_event_after_a_hole_is_held_until_a_replay_fills_it() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    assert keys(feed(order, [ev(1), ev(2), ev(5), ev(4)], now=0.0)) == [(A, 1), (A, 2)]
    assert order.holes() == [Hole("t1", A, 3, 3, 0.0)]
    assert order.due_replays(0.5) == []  # within the reorder window: maybe just late
    assert order.due_replays(1.0) == [("t1", (A, 2))]
    assert order.due_replays(1.5) == []  # asked; the same point again only after a wait
    assert order.due_replays(2.0) == [("t1", (A, 2))]
    assert order.due_replays(3.0) == []  # the wait doubles
    assert order.due_replays(4.0) == [("t1", (A, 2))]
    step = order.offer(ev(3), 4.2)
    assert keys(step.out) == [(A, 3), (A, 4), (A, 5)]
    assert order.holes() == []
    assert order.pointer("t1") == (A, 5)


def test_a_new_boot_starts_at_one_and_follows_the_old_one() -> None:
    """It takes over once the old boot has been quiet for a reorder window."""
    order = StreamOrder(reorder_window=1.0)
    out = feed(order, [ev(1), ev(2), ev(1, B), ev(2, B), ev(2), ev(1, B)])
    assert keys(out) == [(A, 1), (A, 2)]
    assert order.expire(0.9) == []
    assert keys(order.expire(1.0)) == [(B, 1), (B, 2)]
    assert order.counts.duplicates == 2
    assert order.pointer("t1") == (B, 2)


def test_a_new_boot_waits_behind_a_hole_in_the_old_one() -> None:
    order = StreamOrder(reorder_window=1.0)
    assert keys(feed(order, [ev(1), ev(3), ev(1, B), ev(2, B)])) == [(A, 1)]
    assert keys(order.offer(ev(2), 0.0).out) == [(A, 2), (A, 3)]
    assert keys(order.expire(1.0)) == [(B, 1), (B, 2)]
    # a new boot that lost its first events has a hole of its own: it cannot take over
    assert keys(feed(order, [ev(3, 0xC3), ev(4, 0xC3)], now=1.0)) == []
    assert order.holes() == [Hole("t1", 0xC3, 1, 2, 1.0)]
    assert order.due_replays(2.0) == [("t1", (B, 2))]  # the bridge's history is one list
    out = feed(order, [ev(1, 0xC3), ev(2, 0xC3)], now=2.0)
    assert keys(out) == [(0xC3, s) for s in (1, 2, 3, 4)]


def test_a_hole_never_filled_is_given_up_as_a_gap_in_its_place() -> None:
    order = StreamOrder(gap_timeout=10.0)
    feed(order, [ev(1), ev(4), ev(5), ev(7), ev(1, B)], now=0.0)
    assert order.expire(9.9) == []
    out = order.expire(10.0)
    assert keys(out) == [Gap("t1", A, 2, 3), (A, 4), (A, 5)]
    assert order.expire(15.0) == []  # the next hole's clock started when delivery moved
    assert keys(order.expire(20.0)) == [Gap("t1", A, 6, 6), (A, 7), (B, 1)]
    step = order.offer(ev(3), 21.0)  # the replay came after all: too late to deliver
    assert (step.status, step.out) == ("late", ())
    assert order.counts.gaps == 2 and order.counts.late == 1
    assert order.counts.delivered == 5


def test_give_up_now_delivers_past_every_hole() -> None:
    order = StreamOrder()
    feed(order, [ev(2), ev(4)])
    assert keys(order.give_up("t1", 0.0)) == [
        Gap("t1", A, 1, 1),
        (A, 2),
        Gap("t1", A, 3, 3),
        (A, 4),
    ]
    assert order.give_up("nowhere", 0.0) == []


def test_the_tail_of_a_boot_taken_over_is_a_late_gap() -> None:
    order = StreamOrder(reorder_window=1.0)
    feed(order, [ev(1), ev(1, B)])
    assert keys(order.expire(1.0)) == [(B, 1)]
    step = order.offer(ev(3), 1.0)
    assert (step.status, keys(step.out)) == ("late", [Gap("t1", A, 2, 3, late=True)])
    assert order.offer(ev(2), 1.0).status == "late"  # already reported: no second gap
    assert order.counts.gaps == 1


def test_after_a_reconnect_a_new_boot_waits_for_the_old_boots_tail() -> None:
    """A broker restart can lose the old boot's tail; the replay brings it, maybe after
    the new boot's first events: those wait a reorder window before taking over."""
    order = StreamOrder(reorder_window=1.0)
    feed(order, [ev(1), ev(2)], now=0.0)
    assert order.reconnected(5.0) == [("t1", (A, 2))]
    assert order.offer(ev(1, B), 5.1).out == ()
    assert keys(feed(order, [ev(3), ev(4)], now=5.2)) == [(A, 3), (A, 4)]
    assert order.expire(6.0) == []  # the hold is over, but the old boot spoke at 5.2
    assert keys(order.expire(6.3)) == [(B, 1)]


def test_malformed_payloads_are_counted_not_raised() -> None:
    order = StreamOrder()
    good = ev(1).model_dump_json()
    assert order.receive(good, 0.0, "t1").status == "new"
    refused = [
        order.receive(b"{not json", 0.0),
        order.receive(b"\xff\xfe", 0.0),
        order.receive(b'{"table": "t1"}', 0.0),
        order.receive(good.replace('"tiles_left"', '"tile_teleported"'), 0.0),
        order.receive(good, 0.0, "t2"),  # published under another table's topic
        order.receive(good.replace('"seq":1', '"seq":0'), 0.0),
    ]
    assert [s.status for s in refused] == ["invalid"] * 6
    assert all(s.error for s in refused)
    assert "t2" in (refused[4].error or "") and "seq" in (refused[5].error or "")
    assert (order.counts.invalid, order.counts.received) == (6, 1)


def test_resume_starts_after_a_saved_point() -> None:
    order = StreamOrder()
    order.resume("t1", A, 40)
    assert order.offer(ev(40), 0.0).status == "duplicate"
    assert keys(feed(order, [ev(41)])) == [(A, 41)]
    with pytest.raises(ValueError, match=r"table 't1' already has a stream"):
        order.resume("t1", A, 1)


def test_the_on_message_path_calls_back_in_order_and_never_raises() -> None:
    seen: list[object] = []
    refused: list[str] = []

    def on_event(event: Event) -> None:
        seen.append((event.boot_id, event.seq))
        if event.seq == 2:
            raise RuntimeError("a mirror bug")

    consumer = Consumer(
        "unused", base="mj/x", on_event=on_event, on_gap=seen.append,
        on_invalid=lambda topic, payload, error: refused.append(topic), gap_timeout=1.0,
    )  # fmt: skip
    topic = "mj/x/t1/event"
    for seq in (1, 3, 2):
        consumer.handle(topic, ev(seq).model_dump_json().encode(), now=0.0)
    consumer.handle(topic, b"garbage", now=0.0)
    consumer.handle("mj/x/t9/event", ev(4).model_dump_json().encode(), now=0.0)
    consumer.handle(topic, ev(5).model_dump_json().encode(), now=0.0)
    assert seen == [(A, 1), (A, 2), (A, 3)]
    assert refused == [topic, "mj/x/t9/event"]
    assert consumer.callback_errors == 1
    consumer._deliver(consumer.order.expire(1.0))  # what the watcher does
    assert seen[3:] == [Gap("t1", A, 4, 4), (A, 5)]


# --- Consumer against a real broker ---------------------------------------------------


async def test_a_hole_and_redeliveries_come_out_in_order_exactly_once(mqtt_url: str) -> None:
    history = [ev(s) for s in range(1, 6)] + [ev(s, B) for s in (1, 2)]
    async with running(mqtt_url, history, reorder_window=0.1) as (consumer, bridge, out):
        by_key = {(e.boot_id, e.seq): e for e in history}
        for key in [(A, 1), (A, 2), (A, 2), (A, 4), (A, 5), (A, 5), (B, 1), (B, 2), (A, 1)]:
            await bridge.publish(by_key[key])  # (A, 3) lost on the way
        await until(lambda: len(out) == 7)
        await asyncio.sleep(0.2)  # nothing more comes out, replayed copies included
    assert keys(out) == [(A, 1), (A, 2), (A, 3), (A, 4), (A, 5), (B, 1), (B, 2)]
    assert bridge.replays and bridge.replays[0] == (A, 2)
    assert consumer.order.counts.duplicates >= 3
    assert consumer.order.counts.gaps == 0 and consumer.callback_errors == 0


async def test_a_hole_the_bridge_cannot_fill_is_given_up(mqtt_url: str) -> None:
    history = [ev(s) for s in (1, 2, 4)]
    options = {"reorder_window": 0.1, "gap_timeout": 0.4}
    async with running(mqtt_url, history, **options) as (_, bridge, out):
        bridge.answer = False
        for event in history:
            await bridge.publish(event)
        await until(lambda: len(out) == 4)
    assert keys(out) == [(A, 1), (A, 2), Gap("t1", A, 3, 3), (A, 4)]
    assert bridge.replays  # it did ask first


async def test_reconnects_through_a_broker_restart_and_asks_a_replay(
    owned_broker: OwnedBroker,
) -> None:
    history = [ev(s) for s in range(1, 5)]
    async with running(owned_broker.url, history, reorder_window=0.1) as (consumer, bridge, out):
        for event in history[:2]:
            await bridge.publish(event)
        await until(lambda: len(out) == 2)
        await asyncio.to_thread(owned_broker.restart)
        await until(lambda: consumer.reconnects >= 1 and consumer.connected)
        await until(lambda: (A, 2) in bridge.replays)  # asked on reconnect: what was lost?
        for event in history[2:]:
            await bridge.publish(event)
        await until(lambda: len(out) == 4)
    assert keys(out) == [(A, s) for s in range(1, 5)]


# --- a consumer of some tables (one service process of several) -----------------------


async def test_a_consumer_of_some_tables_receives_only_theirs(mqtt_url: str) -> None:
    async with running(mqtt_url, [], tables={"t1"}) as (consumer, bridge, out):
        parts = urlsplit(mqtt_url)
        async with aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883) as pub:

            async def send(event: Event) -> None:  # one publisher: the broker keeps its order
                await pub.publish(f"{bridge.base}/{event.table}/event", event.model_dump_json(), 1)

            await send(ev(1, table="t2"))
            await send(ev(1))
            await until(lambda: len(out) == 1)
            await consumer.watch("t2")  # subscribed once it returns
            await send(ev(2, table="t2"))  # seq 2 first: held, its seq 1 asked of the bridge
            await send(ev(1, table="t3"))
            await send(ev(2))
            await until(lambda: (A, 2) in keys(out))
            assert [(e.table, e.seq) for e in out] == [("t1", 1), ("t1", 2)]
            assert consumer.order.holes() and consumer.order.holes()[0].table == "t2"
            await consumer.unwatch("t2")
            assert consumer.order.holes() == []  # its stream forgotten with it
            await consumer.select(None)  # every table's again
            await send(ev(1, table="t3"))
            await until(lambda: len(out) == 3)
    assert [(e.table, e.seq) for e in out] == [("t1", 1), ("t1", 2), ("t3", 1)]
    assert consumer.watched is None


async def test_a_stray_subscription_of_an_earlier_session_is_dropped_and_undone(
    mqtt_url: str,
) -> None:
    """A process that handed a table on while away still has its subscription in the
    broker's session: the table's events are dropped, and the subscription undone."""
    base = f"live-{uuid.uuid4().hex[:8]}"
    parts = urlsplit(mqtt_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 1883
    first = Consumer(host, port, base=base, client_id=f"{base}-c", tables={"t1", "t2"})
    task = asyncio.create_task(first.run())
    await asyncio.wait_for(first.subscribed.wait(), 5)
    await cancel_and_wait([task])  # the session (and its two subscriptions) stays
    out: list[Event] = []
    again = Consumer(
        host, port, base=base, client_id=f"{base}-c", tables={"t1"}, on_event=out.append
    )
    task = asyncio.create_task(again.run())
    try:
        await asyncio.wait_for(again.subscribed.wait(), 5)
        async with aiomqtt.Client(host, port) as pub:
            for event in (ev(1, table="t2"), ev(1), ev(2, table="t2"), ev(2)):
                await pub.publish(f"{base}/{event.table}/event", event.model_dump_json(), 1)
            await until(lambda: len(out) == 2)
        assert [(e.table, e.seq) for e in out] == [("t1", 1), ("t1", 2)]
        assert 1 <= again.unwatched <= 2  # the second came before the undoing, or not
        await asyncio.sleep(0.5)  # the undoing is a round trip to the broker
        unwatched = again.unwatched
        async with aiomqtt.Client(host, port) as pub:
            for event in (ev(3, table="t2"), ev(3)):
                await pub.publish(f"{base}/{event.table}/event", event.model_dump_json(), 1)
            await until(lambda: len(out) == 3)
        assert again.unwatched == unwatched  # undone: the broker no longer sends t2's
    finally:
        await cancel_and_wait([task])
        await again.forget()
