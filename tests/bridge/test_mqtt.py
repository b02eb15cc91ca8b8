"""The bridge end to end: pty controller → bridge → real MQTT broker, and commands back."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path

from firmware_bridge.messages import CountersPayload, LinkStatus
from firmware_bridge.protocol import Frame, encode_frame
from firmware_bridge.protocol import catalogue as c
from tests.kit_brokers import OwnedBroker, free_port

from .kit_link import SAMPLE_BODIES, numbered, numbered_bodies, sample_events
from .kit_mqtt import Recorder, new_table, running_bridge, running_device


def link_state(rec: Recorder) -> str | None:
    links = rec.on("bridge/link")
    return LinkStatus.model_validate_json(links[-1]).state if links else None


def counters(rec: Recorder) -> CountersPayload | None:
    raw = rec.on("bridge/counters")
    return CountersPayload.model_validate_json(raw[-1]) if raw else None


async def test_events_state_and_commands_over_mqtt(tmp_path: Path, mqtt_url: str) -> None:
    table = new_table()
    async with running_device(tmp_path, 0xB007) as device, Recorder(mqtt_url, table) as rec:
        async with running_bridge(tmp_path, mqtt_url, table, device.port) as bridge:
            await rec.wait(lambda: rec.on("bridge/availability") == [b"online"])
            sent = sample_events()
            for m in sent:
                device.emit(m)
            await rec.wait(lambda: len(rec.events()) == len(sent))
            events = rec.events()
            assert [e.body.model_dump(mode="json") for e in events] == SAMPLE_BODIES
            assert [e.key for e in events] == [(table, 0xB007, i) for i in range(1, len(sent) + 1)]

            await rec.wait(lambda: link_state(rec) == "up")
            status = LinkStatus.model_validate_json(rec.on("bridge/link")[-1])
            assert (status.firmware_version, status.boot_id) == ("1.2.3", 0xB007)

            led = {"command": "seat_led", "seat": 2, "mode": "turn", "transaction": "x1"}
            await rec.publish("set", led)
            await rec.publish("set", {"command": "alert", "seat": 1, "code": "nope"})
            await rec.publish("set", b"{not json")
            await rec.wait(lambda: len(rec.on("set/response")) == 3)
            replies = [json.loads(p) for p in rec.on("set/response")]
            # the refusals are answered at once, the command once the controller acked it
            bad_enum, bad_json, ok = sorted(replies, key=lambda r: r["transaction"] == "x1")
            assert ok["status"] == "ok" and ok["transaction"] == "x1"
            assert ok["outcome"] == "done"
            assert bad_enum["outcome"] == bad_json["outcome"] == "error"
            assert bad_enum["status"] == "error" and "alert.code" in bad_enum["error"]
            assert bad_json["status"] == "error" and "Invalid JSON" in bad_json["error"]
            await rec.wait(lambda: c.SeatLed(2, c.LedMode.TURN) in device.received)
            assert not any(isinstance(m, c.Alert) for m in device.received)

            await rec.publish("bridge/request/status", {"transaction": "q7"})
            await rec.publish("bridge/request/explode", {})
            await rec.wait(lambda: bool(rec.on("bridge/response/explode")))
            resp = rec.last_json("bridge/response/status")
            assert resp["status"] == "ok" and resp["transaction"] == "q7"
            assert resp["data"]["boot_id"] == 0xB007
            explode = rec.last_json("bridge/response/explode")
            assert "unknown bridge operation" in explode["error"]

            await rec.wait(lambda: getattr(counters(rec), "published", 0) == len(sent))
            assert bridge.counters.events == len(sent)
        # a clean stop: the bridge itself says its link is down, then offline (both retained)
        await rec.wait(lambda: rec.on("bridge/availability")[-1:] == [b"offline"])
        last = [t.rsplit("/", 1)[1] for t, _, _ in rec.messages if "/bridge/" in t][-2:]
        assert last == ["link", "availability"] and link_state(rec) == "down"
        async with Recorder(mqtt_url, table) as late:
            # (amqtt may deliver the retained value twice; Mosquitto once)
            await late.wait(lambda: late.on("bridge/availability")[-1:] == [b"offline"])
            assert set(late.on("bridge/availability")) == {b"offline"}
            await late.wait(lambda: link_state(late) is not None)
            assert {LinkStatus.model_validate_json(p).state for p in late.on("bridge/link")} == {
                "down"
            }


async def test_broker_outage_loses_nothing(tmp_path: Path, owned_broker: OwnedBroker) -> None:
    table = new_table()
    sent = numbered(60)
    persistent = owned_broker.persistent
    async with (
        running_device(tmp_path, 0xD00D) as device,
        Recorder(owned_broker.url, table, f"rec-{table}", clean_session=not persistent) as rec,
        running_bridge(
            tmp_path,
            owned_broker.url,
            table,
            device.port,
            # without persistent sessions the recorder must resubscribe before the
            # bridge reconnects: give it a clear head start (amqtt fallback only)
            mqtt_reconnect_min=0.1 if persistent else 1.0,
            mqtt_reconnect_max=0.5 if persistent else 1.0,
        ) as bridge,
    ):
        for m in sent[:20]:
            device.emit(m)
        await rec.wait(lambda: len(rec.events()) == 20)
        owned_broker.stop()
        for m in sent[20:45]:
            device.emit(m)
        await device.wait_idle()  # acknowledged, so stored durably, with no broker
        assert bridge.outbox.depth == 25
        owned_broker.start()
        for m in sent[45:]:
            device.emit(m)
        await rec.wait(lambda: len({e.seq for e in rec.events()}) == 60, timeout=30)
        events = rec.events()
        unique = sorted({e.seq: e for e in events}.values(), key=lambda e: e.seq)
        assert [e.body.model_dump(mode="json") for e in unique] == numbered_bodies(60)
        # in order: the first arrival of each seq comes after that of its predecessor
        seen: list[int] = []
        for e in events:
            if e.seq not in seen:
                seen.append(e.seq)
        assert seen == list(range(1, 61))
        assert bridge.counters.mqtt_reconnects >= 1
        await rec.wait(lambda: bridge.outbox.depth == 0)


async def test_bad_frames_are_reported_and_counted(tmp_path: Path, mqtt_url: str) -> None:
    table = new_table()
    metrics_port = free_port()
    async with (
        running_device(tmp_path, 0xBAD) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port, metrics_port=metrics_port) as bridge,
    ):
        device.emit(c.TilesLeft(40))
        await rec.wait(lambda: len(rec.events()) == 1)
        bad_crc = bytearray(encode_frame(Frame(0x1A, 9, 0, b"\x05")))
        bad_crc[-2] ^= 0x01
        device.write_raw(b"\x02\x01\x00" + bytes(bad_crc))
        await rec.wait(lambda: len(rec.on("bridge/error")) >= 2)
        reasons = {json.loads(p)["reason"] for p in rec.on("bridge/error")}
        assert reasons == {"too_short", "crc"}
        await rec.wait(lambda: getattr(counters(rec), "frames_bad", 0) == 2)
        assert getattr(counters(rec), "bad_by_reason", None) == {"too_short": 1, "crc": 1}
        assert len(rec.events()) == 1 and bridge.counters.events == 1

        url = f"http://127.0.0.1:{metrics_port}/metrics"
        body = await asyncio.to_thread(lambda: urllib.request.urlopen(url, timeout=5).read())
        text = body.decode()
        label = f'table="{table}"'
        assert f"mjtable_bridge_frames_bad_total{{{label}}} 2.0" in text
        assert f'mjtable_bridge_frames_bad_by_reason_total{{reason="crc",{label}}} 1.0' in text
        assert f"mjtable_bridge_link_up{{{label}}} 1.0" in text


async def test_unplug_replug_and_reboot_mid_stream_over_mqtt(tmp_path: Path, mqtt_url: str) -> None:
    table = new_table()
    async with (
        running_device(tmp_path, 0xA) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        first = numbered(10)
        for m in first[:5]:
            device.emit(m)
        await device.wait_idle()
        await device.unplug()
        for m in first[5:]:
            device.session.emit(m)  # while the cable is out
        await rec.wait(lambda: link_state(rec) == "connecting")
        await device.start()
        await device.wait_idle()
        await rec.wait(lambda: len(rec.events()) == 10)

        # Mid-stream: three more leave the controller, the first is lost on the
        # wire, and the controller resets before it could resend them.
        await device.freeze()
        for m in numbered(13)[10:]:
            device.session.emit(m)
        frames = [f for f in device.session.poll(time.monotonic()).split(b"\x00") if f]
        device.write_raw(b"\x00".join(frames[1:]) + b"\x00")
        await rec.wait(lambda: bridge.counters.gaps >= 1)
        device.reboot(0xB)
        device.thaw()
        second = numbered(4)
        for m in second:
            device.emit(m)
        await device.wait_idle()
        await rec.wait(lambda: len(rec.events()) == 14)
        keys = [(e.boot_id, e.seq) for e in rec.events()]
        assert keys == [(0xA, i) for i in range(1, 11)] + [(0xB, i) for i in range(1, 5)]
        bodies = [e.body.model_dump(mode="json") for e in rec.events()]
        assert bodies == numbered_bodies(10) + numbered_bodies(4)
        await rec.wait(
            lambda: any(json.loads(p)["reason"] == "reboot" for p in rec.on("bridge/error"))
        )
        reboot = next(json.loads(p) for p in rec.on("bridge/error") if b"reboot" in p)
        assert "boot 10 → 11; 3 it had sent are lost" in reboot["detail"]
        assert (bridge.counters.reboots, bridge.counters.lost) == (1, 3)
        assert bridge.counters.reconnects >= 1
        await rec.wait(lambda: getattr(counters(rec), "reboots", 0) == 1)


async def test_replay_fills_a_consumers_gap_from_the_history(tmp_path: Path, mqtt_url: str) -> None:
    """A consumer that lost events (a broker restart, a full queue) has them published again."""
    table = new_table()
    sent = numbered(30)
    async with (
        running_device(tmp_path, 0xAB1E) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        for m in sent:
            device.emit(m)
        await rec.wait(lambda: len(rec.events()) == 30)
        await rec.wait(lambda: bridge.outbox.depth == 0)
        after = {"boot_id": 0xAB1E, "seq": 10}
        await rec.publish("bridge/request/replay", {"after": after, "transaction": "r1"})
        await rec.wait(lambda: len(rec.events()) == 50)
        await rec.wait(lambda: bool(rec.on("bridge/response/replay")))  # may follow the events
        answered = rec.last_json("bridge/response/replay")["data"]
        assert answered == {"queued": 20, "already_queued": 0}
        again = [e.seq for e in rec.events()[30:]]
        assert again == list(range(11, 31))
        assert [e.body for e in rec.events()[30:]] == [e.body for e in rec.events()[10:30]]

        await rec.publish("bridge/request/replay", {"after": {"boot_id": 7, "seq": 1}})
        await rec.wait(lambda: len(rec.on("bridge/response/replay")) == 2)
        refused = rec.last_json("bridge/response/replay")
        assert refused["status"] == "error" and "history" in refused["error"]
        assert bridge.counters.replays == 1
