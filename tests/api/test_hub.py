"""The hub fans a change out as one JSON text to every client (a queue put each, not a
dumps each), and a client too slow to keep up is told to resync."""

from __future__ import annotations

import json

from table_service.service.hub import RESYNC, Hub


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
        texts = [one.get_nowait(), two.get_nowait(), club.get_nowait()]
        assert all(text is texts[0] for text in texts)  # made once, handed to all
        assert json.loads(texts[0]) == change and "東" in texts[0]
        assert other.empty()
    assert hub.listeners == 0


async def test_a_slow_subscriber_is_told_to_resync() -> None:
    hub = Hub(maxsize=2)
    async with hub.subscribe("t1") as slow, hub.subscribe(None) as club:
        for n in range(3):
            hub.publish("t1", {"type": "state", "table": "t1", "n": n})
        assert slow.get_nowait() is RESYNC and slow.empty()
        assert club.get_nowait() is RESYNC and club.empty()
        assert json.loads(RESYNC) == {"type": "resync"}
        hub.publish("t1", {"type": "state", "table": "t1", "n": 3})  # then changes again
        assert json.loads(slow.get_nowait())["n"] == 3
