"""The bridge's error paths with real parts: a pty, the simulator's controller, SQLite, a broker."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import to_frame
from firmware_bridge.protocol.frame import Frame, encode_frame

from .kit_link import numbered, rig
from .kit_mqtt import Recorder, new_table, running_bridge, running_device


async def wait(check: object, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():  # type: ignore[operator]
            await asyncio.sleep(0.005)


async def test_events_are_not_acknowledged_while_the_outbox_cannot_write(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        assert host.outbox is not None
        host.outbox._db.execute("PRAGMA busy_timeout = 20")  # fail fast, not after 5 s
        blocker = sqlite3.connect(tmp_path / "outbox.db", isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")  # another writer holds the database
        try:
            for m in numbered(3):
                device.emit(m)
            resent = device.session.sender.retransmits
            # the controller resends (its RTO doubles to 2 s); every store fails. The
            # timeouts here only stop a hang: each wait ends on the state it names.
            await wait(lambda: device.session.sender.retransmits >= resent + 6, timeout=120)
            assert device.backlog == 3  # nothing was acknowledged
            assert host.events() == []
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        await wait(lambda: len(host.events()) == 3, timeout=120)  # the next resend is stored
        assert [e.seq for e in host.events()] == [1, 2, 3]
        await device.wait_idle(120)  # and acknowledged


async def test_a_same_boot_hello_reports_the_events_the_device_discarded(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        device.session.queue_limit = 3
        await device.unplug()
        for m in numbered(10):  # the queue holds 3: events 1..7 are discarded
            device.emit(m)
        await device.start()
        await wait(lambda: any(r == "lost" for r, _ in host.errors))
        await device.wait_idle(5)
        [lost] = [d for r, d in host.errors if r == "lost"]
        assert lost.startswith("boot 4096: events 1..7 are missing")
        assert [e.seq for e in host.events()] == [8, 9, 10]
        assert host.counters.lost == 7


async def test_commands_survive_a_new_handshake_and_run_once(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        link = host.link
        assert link is not None
        before = link.session.sender.next_seq
        for m in (c.StartShuffle(), c.RaiseWall()):
            link.send(m)
        link.resync()
        await host.wait_state("up")
        link.send(c.SeatLed(1, c.LedMode.TURN))
        await wait(lambda: c.SeatLed(1, c.LedMode.TURN) in device.received)
        got = [m for m in device.received if not isinstance(m, c.TimeSync)]
        assert got == [c.StartShuffle(), c.RaiseWall(), c.SeatLed(1, c.LedMode.TURN)]
        assert link.session.sender.next_seq - before >= 3  # numbering went on, not from 1


async def test_malformed_control_frames_are_counted_and_ignored(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        for frame in (
            to_frame(c.Welcome(1, c.HelloResult.ACCEPTED, 1), 0, 0),  # host → device type
            to_frame(c.Sync(), 0, 0),
            Frame(c.Nak.TYPE, 0, 0, b"\x01"),  # NAK of 1 byte
            Frame(0x0F, 0, 0, b""),  # an unknown control type
        ):
            device.write_raw(encode_frame(frame))
        await wait(lambda: host.counters.frames_bad >= 4)
        assert host.counters.bad_by_reason == {"malformed": 3, "unknown_type": 1}
        assert host.link is not None and host.link.up
        device.emit(c.TilesLeft(5))
        await device.wait_idle(5)


async def test_request_state_is_answered_with_a_state_event(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, _device):
        await host.wait_state("up")
        assert host.link is not None
        host.link.send(c.RequestState())
        await wait(lambda: bool(host.events()))
        [event] = host.events()
        assert event.body.model_dump(mode="json")["kind"] == "state"


async def test_command_outcomes_over_mqtt_and_a_retry_is_never_sent_twice(
    tmp_path: Path, mqtt_url: str
) -> None:
    table = new_table()
    async with (
        running_device(tmp_path, 0xE22) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        await rec.wait(lambda: bridge.link.up and bridge.mqtt.connected.is_set())
        shuffle = {"command": "start_shuffle", "transaction": "once"}
        await rec.publish("set", shuffle)
        await rec.wait(lambda: len(rec.on("set/response")) == 1)
        await rec.publish("set", shuffle)  # the caller did not see the answer: it retries
        await rec.wait(lambda: len(rec.on("set/response")) == 2)
        first, retry = (json.loads(p) for p in rec.on("set/response"))
        assert first["outcome"] == retry["outcome"] == "done"
        assert retry["transaction"] == "once"
        await asyncio.sleep(0.1)
        assert [m for m in device.received if isinstance(m, c.StartShuffle)] == [c.StartShuffle()]
        assert bridge.outbox.command("once") == ("start_shuffle", "done", "")


async def test_a_command_while_the_link_is_down_is_an_error(tmp_path: Path, mqtt_url: str) -> None:
    table = new_table()
    async with running_device(tmp_path, 0xD0) as device:
        await device.freeze()  # the controller hangs before any handshake
        async with (
            Recorder(mqtt_url, table) as rec,
            running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
        ):
            await rec.wait(lambda: bridge.mqtt.connected.is_set())
            await rec.publish("set", {"command": "raise_wall", "transaction": "d1"})
            await rec.wait(lambda: len(rec.on("set/response")) == 1)
            reply = rec.last_json("set/response")
            assert (reply["outcome"], reply["status"]) == ("error", "error")
            assert "link: handshaking" in str(reply["error"])
            await rec.publish("set", {"command": "raise_wall", "transaction": "d1"})
            await rec.wait(lambda: len(rec.on("set/response")) == 2)
            assert rec.last_json("set/response")["outcome"] == "error"  # recorded, not retried
        device.thaw()


async def test_counters_and_resync_requests(tmp_path: Path, mqtt_url: str) -> None:
    table = new_table()
    async with (
        running_device(tmp_path, 0xC0) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        await rec.wait(lambda: bridge.link.up and bridge.mqtt.connected.is_set())
        device.emit(c.TilesLeft(3))
        await device.wait_idle()
        await rec.publish("bridge/request/counters", {"transaction": "k"})
        await rec.wait(lambda: bool(rec.on("bridge/response/counters")))
        counters = rec.last_json("bridge/response/counters")
        assert counters["status"] == "ok" and counters["transaction"] == "k"
        assert counters["data"]["events"] == 1 and counters["data"]["frames_good"] > 0
        hellos = bridge.counters.frames_good
        await rec.publish("bridge/request/resync", {"transaction": "r"})
        await rec.wait(lambda: bool(rec.on("bridge/response/resync")))
        assert rec.last_json("bridge/response/resync")["status"] == "ok"
        await rec.wait(lambda: bridge.link.up and bridge.counters.frames_good > hellos)
        states = [json.loads(p)["state"] for p in rec.on("bridge/link")]
        await rec.wait(lambda: [json.loads(p)["state"] for p in rec.on("bridge/link")][-1] == "up")
        assert "up" in states
        device.emit(c.TilesLeft(2))
        await device.wait_idle()
        await rec.wait(lambda: len(rec.events()) == 2)
        assert [e.seq for e in rec.events()] == [1, 2]  # the same boot, numbering kept
