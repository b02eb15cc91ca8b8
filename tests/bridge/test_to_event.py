"""`to_event` never raises for a frame the catalogue accepted: a body the MQTT schema
refuses is stored as `invalid`, so the link acknowledges it and the numbering has no hole.

The schema is derived from the catalogue, so no real event is refused by it; these tests
pass a deliberately stricter schema (`bodies=`) to stand for a schema that drifted.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from firmware_bridge.counters import Counters
from firmware_bridge.event_store import OutboxEventStore, to_event
from firmware_bridge.link import HostLink, LinkEvent
from firmware_bridge.messages import EVENT_BODY, TileDiscarded, TilesLeft, Topics
from firmware_bridge.outbox import Outbox
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.stopping import cancel_and_wait
from table_sim.controller import PtyController


class StrictTilesLeft(TilesLeft):
    """A schema stricter than the wire: at most 100 tiles left."""

    count: Annotated[int, Field(ge=0, le=100)]


STRICT: TypeAdapter[Any] = TypeAdapter(
    Annotated[Union[StrictTilesLeft, TileDiscarded], Field(discriminator="kind")]  # noqa: UP007
)
REFUSED = {
    "kind": "invalid",
    "type": 26,
    "payload_hex": "78",
    "error": "tiles_left: refused by the MQTT schema: "
    "tiles_left.count: Input should be less than or equal to 100",
}


def body(message: c.Message, bodies: TypeAdapter[Any]) -> dict[str, Any]:
    item = LinkEvent(7, 3, 1.5, message.TYPE, message.pack(), message)
    event = json.loads(to_event("t07", item, bodies).model_dump_json())
    assert (event["boot_id"], event["seq"], event["ts"]) == (7, 3, 1.5)  # the key is kept
    return dict(event["body"])


def test_a_body_the_schema_refuses_is_invalid_not_an_exception() -> None:
    assert body(c.TilesLeft(120), STRICT) == REFUSED
    assert body(c.TilesLeft(71), STRICT) == {"kind": "tiles_left", "count": 71}


def test_a_kind_the_schema_does_not_know_is_invalid() -> None:
    assert body(c.Fault(c.FaultCode.JAM, 2, 1), STRICT) == {
        "kind": "invalid",
        "type": 27,
        "payload_hex": "010201",
        "error": "fault: refused by the MQTT schema: Input tag 'fault' found using 'kind' "
        "does not match any of the expected tags: 'tiles_left', 'tile_discarded'",
    }


def test_the_published_schema_accepts_what_the_stricter_one_refuses() -> None:
    assert body(c.TilesLeft(120), EVENT_BODY) == {"kind": "tiles_left", "count": 120}


async def test_a_refused_body_is_acknowledged_and_stored_once_in_order(tmp_path: Path) -> None:
    """A real link over a pty to the simulated controller, a real outbox, a strict schema."""
    port = tmp_path / "tty"
    device = PtyController(port, 0x70E)
    await device.start()
    outbox = Outbox(tmp_path / "outbox.db", synchronous="normal")
    counters = Counters()
    store = OutboxEventStore(outbox, Topics("mjtable", "t07"), "t07", lambda: None, STRICT)
    link = HostLink(str(port), store, counters, reopen_min=0.05, reopen_max=0.2)
    task = asyncio.create_task(link.run())
    try:
        device.emit(c.TilesLeft(120))
        device.emit(c.TileDiscarded(2, 108))
        await device.wait_idle(timeout=10)  # the controller's queue is empty: both acked
        rows = outbox.peek(100)
        assert {topic for _, topic, _ in rows} == {"mjtable/t07/event"}
        published = [json.loads(payload) for _, _, payload in rows]
        assert [(e["boot_id"], e["seq"]) for e in published] == [(0x70E, 1), (0x70E, 2)]
        assert [e["body"] for e in published] == [
            REFUSED,
            {"kind": "tile_discarded", "seat": 2, "tile": 108},
        ]
        await asyncio.sleep(0.5)  # nothing comes again: not resent, not stored twice
        assert len(outbox.peek(100)) == 2
        assert (counters.events, counters.duplicates) == (2, 0)
        assert device.backlog == 0
    finally:
        await cancel_and_wait([task])
        outbox.close()
        await device.stop()
