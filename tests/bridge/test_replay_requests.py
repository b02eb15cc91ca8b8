"""Replay requests through a real broker: a boot from its start, and the per-bridge limit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from firmware_bridge.mqtt import REPLAY_BURST, REPLAY_RATE

from .kit_link import numbered
from .kit_mqtt import Recorder, new_table, running_bridge, running_device

BOOT = 0x5EED


def answer(rec: Recorder, transaction: str) -> dict[str, Any] | None:
    """The reply to the replay request with this transaction id, once it came."""
    for raw in rec.on("bridge/response/replay"):
        reply: dict[str, Any] = json.loads(raw)
        if reply.get("transaction") == transaction:
            return reply
    return None


async def test_a_boot_from_its_start_then_requests_over_the_limit_refused(
    tmp_path: Path, mqtt_url: str
) -> None:
    table = new_table()
    async with (
        running_device(tmp_path, BOOT) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        for m in numbered(6):
            device.emit(m)
        await rec.wait(lambda: len(rec.events()) == 6)
        await rec.wait(lambda: bridge.outbox.depth == 0)
        now = [1000.0]
        bridge.mqtt.clock = lambda: now[0]  # the limit refills only when the test says

        await rec.publish(
            "bridge/request/replay", {"after": {"boot_id": BOOT, "seq": 0}, "transaction": "start"}
        )
        await rec.wait(lambda: answer(rec, "start") is not None)
        start = answer(rec, "start")
        assert start is not None and start["status"] == "ok"
        assert start["data"] == {"queued": 6, "already_queued": 0, "first_seq": 1}
        await rec.wait(lambda: len(rec.events()) == 12)
        assert [e.seq for e in rec.events()[6:]] == list(range(1, 7))

        last = {"boot_id": BOOT, "seq": 6}
        for n in range(REPLAY_BURST):  # the burst's other requests pass, the next is refused
            await rec.publish("bridge/request/replay", {"after": last, "transaction": f"r{n}"})
        await rec.wait(lambda: all(answer(rec, f"r{n}") for n in range(REPLAY_BURST)))
        served = [answer(rec, f"r{n}") for n in range(REPLAY_BURST - 1)]
        assert all(r is not None and r["status"] == "ok" for r in served)
        refused = answer(rec, f"r{REPLAY_BURST - 1}")
        assert refused is not None and refused["status"] == "error"
        wait = 1 / REPLAY_RATE
        assert f"ask again in {wait:.2f} s" in str(refused["error"])
        assert refused["data"] == {"retry_after": wait}
        assert (bridge.counters.replays_limited, bridge.counters.replays) == (1, REPLAY_BURST)

        now[0] += wait  # as the refusal said: asked again then, it is served
        await rec.publish("bridge/request/replay", {"after": last, "transaction": "later"})
        await rec.wait(lambda: answer(rec, "later") is not None)
        later = answer(rec, "later")
        assert later is not None and later["status"] == "ok"
        assert later["data"] == {"queued": 0, "already_queued": 0}
