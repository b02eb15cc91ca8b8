"""The hub fans a change out as one JSON text to every client; each client's feed keeps
its records in order but only the newest state of each table (its sender takes a batch
at its share of one budget of sends, however fast the tables play); one too far behind
is told to resync."""

from __future__ import annotations

import json

import pytest

from table_service.service.hub import RESYNC, SENDS_PER_SECOND, Hub


def state(table: str, n: int) -> dict[str, object]:
    return {"type": "state", "table": table, "state": {"n": n}}


async def test_a_change_is_one_text_for_every_subscriber() -> None:
    hub = Hub()
    change = {"type": "state", "table": "t1", "state": {"players": ["東", "B", "C", "D"]}}
    async with (
        hub.subscribe("t1") as one,
        hub.subscribe("t1") as two,
        hub.subscribe(None) as club,
        hub.subscribe("t2") as other,
    ):
        assert hub.listeners == 4
        hub.publish("t1", change)
        texts = [*one.take(), *two.take(), *club.take()]
        assert len(texts) == 3 and all(text is texts[0] for text in texts)  # made once
        assert json.loads(texts[0]) == change and "東" in texts[0]
        assert other.take() == []
    assert hub.listeners == 0


async def test_records_keep_their_order_and_a_table_s_state_only_its_newest() -> None:
    hub = Hub()
    async with hub.subscribe(None) as club:
        hub.publish("t1", state("t1", 1))
        hub.publish("t1", {"type": "violation", "table": "t1", "n": 1})
        hub.publish("t2", state("t2", 1))
        hub.publish("t1", state("t1", 2))
        hub.publish("t1", {"type": "hand", "table": "t1", "n": 2})
        hub.publish("t1", state("t1", 3))
        got = [json.loads(text) for text in await club.next()]
        assert [(m["type"], m["table"]) for m in got] == [
            ("violation", "t1"), ("hand", "t1"), ("state", "t1"), ("state", "t2"),
        ]  # fmt: skip
        assert got[2]["state"] == {"n": 3}  # the newest picture; the ones between are gone
        assert club.take() == []


async def test_a_subscriber_too_far_behind_is_told_to_resync() -> None:
    hub = Hub(maxsize=2)
    async with hub.subscribe("t1") as slow, hub.subscribe(None) as club:
        for n in range(3):
            hub.publish("t1", {"type": "violation", "table": "t1", "n": n})
        hub.publish("t1", state("t1", 9))  # the snapshot to come holds it
        assert slow.take() == [RESYNC] and club.take() == [RESYNC]
        assert json.loads(RESYNC) == {"type": "resync"}
        hub.publish("t1", {"type": "violation", "table": "t1", "n": 3})  # then changes again
        assert [json.loads(t)["n"] for t in slow.take()] == [3]


async def test_every_sender_shares_one_budget_of_sends() -> None:
    """A lone scoreboard waits a fraction of a millisecond between batches, so a change
    reaches it at once; a crowd waits longer each, so together they never send more than
    the budget however fast the tables play."""
    hub = Hub()
    async with hub.subscribe("t1"):
        alone = hub.pace()
    assert 0 < alone < 0.001
    crowd = [hub.subscribe(None) for _ in range(600)]
    for feed in crowd:
        await feed.__aenter__()
    try:
        assert hub.listeners / hub.pace() == SENDS_PER_SECOND  # batches a second, all told
        assert hub.pace() == pytest.approx(600 * alone)
    finally:
        for feed in crowd:
            await feed.__aexit__(None, None, None)
    assert hub.pace() == 0
