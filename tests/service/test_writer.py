"""The service's writer: a batch of every table's events goes into the records in one
transaction, and a table whose entries the records refuse costs the others nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from firmware_bridge.messages import Event
from table_service.service.hub import Hub
from table_service.service.live import SHOW_EARLY_UP_TO, Service, _Work
from table_service.service.outgoing import Outgoing
from table_service.service.settings import ServeSettings
from table_service.store import Applied, Store
from table_sim.recording import record_game


def first_events(table: str, count: int) -> list[Event]:
    hand = record_game(3, 1, table=table)[0]
    return hand.events[:count]


@pytest.fixture
async def writer(store_url: str) -> AsyncIterator[tuple[Service, Store]]:
    """A service's writer on a real store, fed by the test instead of the broker."""
    store = Store(store_url)
    store.migrate()
    service = Service(ServeSettings(db=store_url, drive_table=False), store, Hub())
    task = asyncio.create_task(service._writer())
    yield service, store
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    service._pool.shutdown()
    store.close()


async def drained(service: Service) -> None:
    async with asyncio.timeout(30):
        while service._backlog():
            await asyncio.sleep(0.01)


def stored_seqs(store: Store, table: str) -> list[int]:
    return [e.event.seq for e in store.entries(table) if e.event is not None]


async def test_one_batch_of_many_tables_is_stored_whole_and_announced(
    writer: tuple[Service, Store],
) -> None:
    service, store = writer
    tables = {name: first_events(name, 90) for name in ("t1", "t2", "t3")}
    async with service.hub.subscribe(None) as feed:
        for i in range(90):  # interleaved, as a club's arrive: one batch holds all tables
            for name, events in tables.items():
                service._queue.put_nowait(_Work(name, "event", event=events[i]))
        await drained(service)
        said = feed.take()
    for name, events in tables.items():
        assert stored_seqs(store, name) == [e.seq for e in events]
        assert any(f'"table":"{name}"' in text and '"type":"state"' in text for text in said)
    assert service.applied == 270 + 3  # each table's events, and its default session


async def test_a_table_whose_entries_are_refused_costs_the_others_nothing(
    writer: tuple[Service, Store], caplog: pytest.LogCaptureFixture
) -> None:
    """Another writer stored one of t2's events (this process's picture of t2 is behind
    the records): the batch is refused as a whole, then each table is stored alone, so
    t1's events go in and only t2 is rebuilt from its records and followed anew from
    them, as any table whose entries the records refuse."""
    service, store = writer
    ours, theirs = first_events("t1", 80), first_events("t2", 80)

    async def arrive(start: int, end: int) -> None:
        for one, other in zip(ours[start:end], theirs[start:end], strict=True):
            service._queue.put_nowait(_Work("t1", "event", event=one))
            service._queue.put_nowait(_Work("t2", "event", event=other))
        await drained(service)

    await arrive(0, 10)
    store.append("t2", [Applied("event", theirs[40], None)])
    with caplog.at_level(logging.WARNING, logger="table_service.service"):
        await arrive(10, 80)
    assert stored_seqs(store, "t1") == [e.seq for e in ours]
    assert theirs[40].seq in stored_seqs(store, "t2")
    assert stored_seqs(store, "t2").count(theirs[40].seq) == 1
    said = caplog.text
    assert "tables refused" in said and "storing each alone" in said
    assert "table t2: an event already stored; rebuilding from the records" in said
    assert "table t1: an event already stored" not in said
    # t2's stream is followed anew from its records (the bridge replays after them); t1's not
    assert service._epochs.get("t2") == 1 and service._epochs.get("t1", 0) == 0


async def hold_commits(
    service: Service, store: Store, first: Event, monkeypatch: pytest.MonkeyPatch
) -> tuple[threading.Event, list[list[int]]]:
    """`first` stored (with the table's default session); from then on each transaction
    is held open until the gate is set, and the seqs each one held are noted in order."""
    service._queue.put_nowait(_Work(first.table, "event", event=first))
    await drained(service)
    gate = threading.Event()
    return gate, note_commits(store, monkeypatch, gate)


def note_commits(
    store: Store, monkeypatch: pytest.MonkeyPatch, gate: threading.Event | None = None
) -> list[list[int]]:
    """From now on the seqs each transaction holds, in order (each held open until `gate`
    is set, when given)."""
    committed: list[list[int]] = []
    real = store.append_tables

    def noted(parts: Any) -> Any:
        if gate is not None:
            gate.wait(10)
        committed.append([a.event.seq for _, applied, _ in parts for a in applied if a.event])
        return real(parts)

    monkeypatch.setattr(store, "append_tables", noted)
    return committed


@pytest.mark.parametrize("watchers", [1, SHOW_EARLY_UP_TO + 1])
async def test_a_picture_goes_out_before_its_commit_only_while_few_watch(
    writer: tuple[Service, Store], monkeypatch: pytest.MonkeyPatch, watchers: int
) -> None:
    """While a batch's transaction is held open, a lone scoreboard already has the table's
    new picture; a crowd gets it only once the commit is done (their sends would take the
    GIL from it)."""
    service, store = writer
    events = first_events("t1", 3)
    gate, _ = await hold_commits(service, store, events[0], monkeypatch)
    async with contextlib.AsyncExitStack() as stack:
        watching = [service.hub.subscribe("t1") for _ in range(watchers)]
        feeds = [await stack.enter_async_context(feed) for feed in watching]
        service._queue.put_nowait(_Work("t1", "event", event=events[1]))
        await asyncio.sleep(0.3)  # the writer folded it and waits on the held transaction
        early = feeds[0].take()
        gate.set()
        await drained(service)
        late = feeds[0].take()
    if watchers == 1:
        assert early and all('"type":"state"' in text for text in early)
        assert late == []  # shown once, not again after the commit
    else:
        assert early == [] and any('"type":"state"' in text for text in late)
    assert stored_seqs(store, "t1") == [e.seq for e in events[:2]]


async def test_what_arrives_during_a_commit_is_shown_at_once_and_stored_in_the_next(
    writer: tuple[Service, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Events that arrive while the transaction before them is under way are applied and
    shown at once, not after that commit, and are stored together in the next one: one
    transaction at a time, in order."""
    service, store = writer
    events = first_events("t1", 5)
    gate, committed = await hold_commits(service, store, events[0], monkeypatch)
    async with service.hub.subscribe("t1") as feed:
        service._queue.put_nowait(_Work("t1", "event", event=events[1]))
        await asyncio.sleep(0.3)  # applied, shown, its transaction held open
        assert feed.take()
        shown_meanwhile = []
        for event in events[2:4]:
            service._queue.put_nowait(_Work("t1", "event", event=event))
            await asyncio.sleep(0.3)
            shown_meanwhile.append(feed.take())
        assert service._backlog() == 3  # all wait to be stored: the health counts them
        gate.set()
        await drained(service)
        after = feed.take()
    assert all(texts and all('"type":"state"' in t for t in texts) for texts in shown_meanwhile)
    assert after == []  # each picture was sent once, before its commit
    assert committed == [[events[1].seq], [events[2].seq, events[3].seq]]
    assert stored_seqs(store, "t1") == [e.seq for e in events[:4]]


@pytest.mark.parametrize(
    ("gather", "watchers", "transactions"),
    [(0.5, 1, 1), (0.0, 1, 2), (0.5, SHOW_EARLY_UP_TO + 1, 2)],
)
async def test_entries_gather_into_one_transaction_while_their_pictures_go_out_at_once(
    writer: tuple[Service, Store],
    monkeypatch: pytest.MonkeyPatch,
    gather: float,
    watchers: int,
    transactions: int,
) -> None:
    """Within `store_gather` of a transaction's start, the next waits for more entries
    (each costs about the same whatever it holds), while the pictures go out at once; with
    no gathering, or with a crowd watching (whose pictures wait for the commit), each
    entry that finds the writer idle is stored at once."""
    service, store = writer
    events = first_events("t1", 3)
    service._queue.put_nowait(_Work("t1", "event", event=events[0]))
    await drained(service)
    monkeypatch.setattr(service.settings, "store_gather", gather)
    committed = note_commits(store, monkeypatch)
    async with contextlib.AsyncExitStack() as stack:
        watching = [service.hub.subscribe("t1") for _ in range(watchers)]
        feeds = [await stack.enter_async_context(feed) for feed in watching]
        service._began = time.monotonic()  # a transaction began just now
        service._queue.put_nowait(_Work("t1", "event", event=events[1]))
        await asyncio.sleep(0.1)
        shown = feeds[0].take()
        service._queue.put_nowait(_Work("t1", "event", event=events[2]))
        await drained(service)
    if watchers == 1:  # the picture out within 0.1 s, gathering or not
        assert shown and all('"type":"state"' in text for text in shown)
    assert len(committed) == transactions
    assert [seq for seqs in committed for seq in seqs] == [e.seq for e in events[1:]]
    assert stored_seqs(store, "t1") == [e.seq for e in events]


def concluding(after: Event) -> Event:
    """An event right after `after` that concludes something: a discard during the deal
    (an `impossible` fault, a record the public waits on)."""
    body = {"kind": "tile_discarded", "seat": 0, "tile": 5}
    return Event.model_validate(after.model_dump() | {"seq": after.seq + 1, "body": body})


async def test_an_entry_that_concludes_something_is_stored_at_once_with_what_gathered(
    writer: tuple[Service, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What gathers is out already (its picture, its LEDs); what concludes something (a
    hand's records, a violation, a fault) waits for its commit, so it does not wait for
    the gathering: it starts the transaction at once, taking what gathered before it."""
    service, store = writer
    events = first_events("t1", 7)
    for event in events[:6]:
        service._queue.put_nowait(_Work("t1", "event", event=event))
    await drained(service)
    monkeypatch.setattr(service.settings, "store_gather", 0.8)
    committed = note_commits(store, monkeypatch)
    service._began = time.monotonic()  # a transaction began just now
    service._queue.put_nowait(_Work("t1", "event", event=events[6]))
    await asyncio.sleep(0.2)
    assert committed == []  # a plain draw gathers
    bad = concluding(events[6])
    began = time.monotonic()
    service._queue.put_nowait(_Work("t1", "event", event=bad))
    await drained(service)
    assert time.monotonic() - began < 0.4  # not the 0.6 s left of the gathering
    assert committed == [[events[6].seq, bad.seq]]


def led_commands_sent(service: Service) -> list[dict[str, Any]]:
    """The commands to t1's table taken from the service's outbox (its MQTT client's)."""
    sent: list[Outgoing] = []
    while not service._outbox.empty():
        sent.append(service._outbox.get_nowait())
    return [json.loads(o.payload) for o in sent if o.topic == service._topics("t1").set]


async def test_the_seat_leds_go_out_before_the_commit(
    writer: tuple[Service, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seat LEDs are the tiles as they lie, like the picture: a player sees whose move
    it is without waiting for the gathering or the commit."""
    service, store = writer
    monkeypatch.setattr(service.settings, "drive_table", True)
    events = first_events("t1", 135)  # the 135th is the dealer's first draw: a turn LED
    for event in events[:133]:
        service._queue.put_nowait(_Work("t1", "event", event=event))
    await drained(service)
    assert led_commands_sent(service) == []  # dealing: every seat's LED off
    gate, committed = await hold_commits(service, store, events[133], monkeypatch)
    service._queue.put_nowait(_Work("t1", "event", event=events[134]))
    await asyncio.sleep(0.3)  # applied; its transaction held open
    sent = led_commands_sent(service)
    assert committed == []
    assert sent == [{"command": "seat_led", "seat": events[134].body.seat, "mode": "turn"}]
    gate.set()
    await drained(service)
    assert led_commands_sent(service) == []  # not sent again after the commit
    assert stored_seqs(store, "t1") == [e.seq for e in events]
