"""The link session through a real pseudo-terminal: handshake, order, faults, restarts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from firmware_bridge.protocol import Frame, encode_frame
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import plain

from .kit_link import SAMPLE_BODIES, numbered, numbered_bodies, rig, sample_events


def bodies(events: list) -> list[dict]:
    return [e.body.model_dump(mode="json") for e in events]


async def test_catalogue_round_trip_both_ways(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        sent = sample_events()
        for m in sent:
            device.emit(m)
        await device.wait_idle()
        events = host.events()
        assert bodies(events) == SAMPLE_BODIES
        assert [e.seq for e in events] == list(range(1, len(sent) + 1))
        assert {e.boot_id for e in events} == {0x1000}
        assert host.link is not None and host.link.info.firmware_version == "1.2.3"
        commands = [
            c.StartShuffle(),
            c.RaiseWall(),
            c.SeatLed(2, c.LedMode.TURN),
            c.Alert(1, c.AlertCode.FALSE_WIN, 3),
            c.RequestState(),
        ]
        for m in commands:
            host.link.send(m)
        async with asyncio.timeout(5):
            while len([m for m in device.received if not isinstance(m, c.TimeSync)]) < 5:
                await asyncio.sleep(0.005)
        got = [m for m in device.received if not isinstance(m, c.TimeSync)]
        assert got == commands
        assert any(isinstance(m, c.TimeSync) for m in device.received)


async def test_one_percent_corruption_delivers_each_event_once_in_order(tmp_path: Path) -> None:
    async with rig(tmp_path, noise=0.01) as (host, device):
        sent = numbered(300)
        for m in sent:
            device.emit(m)
        await host.wait_state("up")
        assert host.link is not None
        commands = [c.SeatLed(i % 4, c.LedMode(i % 4)) for i in range(20)]
        for m in commands:
            host.link.send(m)
        await device.wait_idle(timeout=60)
        events = host.events()
        assert bodies(events) == numbered_bodies(300)
        assert [e.seq for e in events] == list(range(1, 301))
        assert host.counters.frames_bad > 0
        assert host.counters.events == 300
        async with asyncio.timeout(30):
            while len([m for m in device.received if isinstance(m, c.SeatLed)]) < 20:
                await asyncio.sleep(0.01)
        assert [m for m in device.received if isinstance(m, c.SeatLed)] == commands


async def test_unplug_and_replug(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        sent = numbered(30)
        for m in sent[:10]:
            device.emit(m)
        await device.wait_idle()
        await device.unplug()
        for m in sent[10:20]:  # produced while the cable is out: queued on the controller
            device.session.emit(m)
        await host.wait_state("connecting")  # the bridge noticed and is reopening the port
        await device.start()
        for m in sent[20:]:
            device.emit(m)
        await device.wait_idle()
        events = host.events()
        assert bodies(events) == numbered_bodies(30)
        assert [e.seq for e in events] == list(range(1, 31))
        assert host.counters.reconnects >= 1


async def test_controller_reboot_is_reported_not_deduplicated(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        first, second = numbered(8), numbered(5)
        for m in first:
            device.emit(m)
        await device.wait_idle()
        device.reboot(0x2000)
        for m in second:
            device.emit(m)
        await device.wait_idle()
        events = host.events()
        assert [(e.boot_id, e.seq) for e in events] == [(0x1000, i) for i in range(1, 9)] + [
            (0x2000, i) for i in range(1, 6)
        ]
        assert bodies(events) == numbered_bodies(8) + numbered_bodies(5)
        assert host.counters.reboots == 1
        assert host.link is not None and host.link.info.boot_id == 0x2000


async def test_bridge_restart_loses_and_repeats_nothing(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        sent = numbered(40)
        for m in sent[:20]:
            device.emit(m)
        await device.wait_idle()
        await host.stop()
        for m in sent[20:30]:
            device.emit(m)  # no bridge: the controller keeps them unacknowledged
        await host.start()
        for m in sent[30:]:
            device.emit(m)
        await device.wait_idle()
        events = host.events()
        assert bodies(events) == numbered_bodies(40)
        assert [e.seq for e in events] == list(range(1, 41))
        assert host.counters.reboots == 0


async def test_silence_takes_the_link_down_and_it_recovers(tmp_path: Path) -> None:
    timing = Timing(heartbeat=0.1, silence=0.4, sync_repeat=0.1, hello_repeat=0.1)
    async with rig(tmp_path, timing=timing) as (host, device):
        await host.wait_state("up")
        await device.freeze()
        await host.wait_state("down")
        assert host.counters.link_downs == 1
        device.session.emit(c.TilesLeft(50))
        device.thaw()  # SYNC → HELLO → WELCOME, then the queued event
        await host.wait_state("up")
        await device.wait_idle()
        assert bodies(host.events()) == [{"kind": "tiles_left", "count": 50}]


async def test_protocol_version_mismatch_is_refused(tmp_path: Path) -> None:
    port = tmp_path / "ttyTABLE"
    from table_sim.controller import PtyController

    from .kit_link import LinkRig

    device = PtyController(port, 0x77, protocol_version=2)
    await device.start()
    host = LinkRig(port, tmp_path / "o.db")
    await host.start()
    try:
        await host.wait_state("version_mismatch")
        async with asyncio.timeout(5):
            while not device.session.rejected:
                await asyncio.sleep(0.005)
        assert host.counters.bad_by_reason["version"] >= 1
        assert host.events() == []
    finally:
        await host.stop()
        await device.stop()


async def test_bad_frames_are_counted_by_reason_and_change_nothing(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        await host.wait_state("up")
        device.emit(c.TilesLeft(9))
        await device.wait_idle()
        good = bytearray(encode_frame(Frame(0x1A, 40, 0, b"\x05")))
        good[-2] ^= 0xFF  # bad CRC
        device.write_raw(b"\x02\x01\x00" + bytes(good) + b"\x01" * 70 + b"\x00")
        async with asyncio.timeout(5):
            while host.counters.frames_bad < 3:
                await asyncio.sleep(0.005)
        assert host.counters.bad_by_reason["too_short"] == 1
        assert host.counters.bad_by_reason["crc"] == 1
        assert host.counters.bad_by_reason["too_long"] == 1
        assert {r for r, _ in host.errors} >= {"crc", "too_short", "too_long"}
        assert bodies(host.events()) == [{"kind": "tiles_left", "count": 9}]


async def test_intact_but_refused_events_keep_their_number(tmp_path: Path) -> None:
    async with rig(tmp_path) as (host, device):
        device.emit(c.TilesLeft(9))
        await device.wait_idle()

        # Bypass the constructor's checks the way broken firmware would.
        class Raw(c.TilesLeft):
            TYPE = 0x3F

        device.emit(Raw(1))  # unknown event type
        bad = c.TilesLeft(1)
        object.__setattr__(bad, "count", 200)  # out of range on the wire
        device.emit(bad)
        device.emit(c.TilesLeft(8))
        await device.wait_idle()
        events = host.events()
        assert [e.seq for e in events] == [1, 2, 3, 4]
        assert [e.kind for e in events] == ["tiles_left", "invalid", "invalid", "tiles_left"]
        assert "unknown message type 0x3F" in events[1].body.error
        assert "count: 200 out of range" in events[2].body.error
        assert host.counters.invalid_events == 2
        assert plain(c.TilesLeft(8)) == {"count": 8}


async def test_time_sync_after_welcome_and_then_periodically(tmp_path: Path) -> None:
    """§7.4: TIME_SYNC follows every WELCOME, then every `time_sync` seconds (an hour)."""
    async with rig(tmp_path, timing=Timing(time_sync=0.3)) as (host, device):
        await host.wait_state("up")
        async with asyncio.timeout(10):
            while sum(isinstance(m, c.TimeSync) for m in device.received) < 3:
                await asyncio.sleep(0.02)
        syncs = [m for m in device.received if isinstance(m, c.TimeSync)]
        assert all(abs(m.unix_ms / 1000 - time.time()) < 60 for m in syncs)
        assert [m.unix_ms for m in syncs] == sorted(m.unix_ms for m in syncs)
