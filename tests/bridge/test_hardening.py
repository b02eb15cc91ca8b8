"""The bridge against hostile or broken surroundings: bodies, floods, retained commands,
secrets, a port that drops, a damaged outbox, a forged HELLO."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge import mqtt as bridge_mqtt
from firmware_bridge.messages import ReplayRequest
from firmware_bridge.outbox import Outbox, OutboxDamaged
from firmware_bridge.protocol import Frame, FrameDecoder, encode_frame, to_frame
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.settings import load_settings, redact_url
from mjtable.cli import main
from table_sim.broker import free_port, wait_listening
from table_sim.controller import PtyController

from .kit_link import LinkRig, numbered
from .kit_mqtt import Recorder, new_table, running_bridge, running_device

VALID = {"command": "request_state"}


def responses(rec: Recorder, suffix: str = "set/response") -> list[dict[str, object]]:
    return [json.loads(p) for p in rec.on(suffix)]


# --- 1, 2, 9b: bodies from outside --------------------------------------------------


async def test_hostile_bodies_get_error_replies_and_the_bridge_lives_on(
    tmp_path: Path, mqtt_url: str
) -> None:
    table = new_table()
    async with (
        running_device(tmp_path, 0x1E57) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        await rec.wait(lambda: bridge.link.up and bridge.mqtt.connected.is_set())
        nested = b"[" * 1000  # a RecursionError in json.loads before
        await rec.publish("set", nested)
        await rec.publish("bridge/request/status", nested)
        await rec.publish(
            "set", b'{"command": "seat_led", "transaction": "big", "x": "' + b"a" * 9000 + b'"}'
        )
        await rec.publish("set", {"command": "seat_led", "seat": 1, "transaction": "half"})
        after = {"boot_id": 1, "seq": 2**63}  # an OverflowError in SQLite before
        await rec.publish("bridge/request/replay", {"after": after, "transaction": "r"})
        await rec.publish("set", dict(VALID, transaction="alive"))
        await rec.wait(lambda: len(rec.on("set/response")) == 4)
        await rec.wait(lambda: len(rec.on("bridge/response/replay")) == 1)
        await rec.wait(lambda: len(rec.on("bridge/response/status")) == 1)
        deep, big, half, ok = responses(rec)
        assert deep["status"] == "error" and "recursion limit exceeded" in str(deep["error"])
        assert big["status"] == "error" and "more than the 4096" in str(big["error"])
        assert big["transaction"] is None  # an oversized body is not read at all
        assert (half["command"], half["transaction"]) == ("seat_led", "half")  # named (9b)
        assert "seat_led.mode: Field required" in str(half["error"])
        assert (ok["status"], ok["transaction"]) == ("ok", "alive")
        status = rec.last_json("bridge/response/status")
        assert status["status"] == "error" and "recursion limit" in str(status["error"])
        replay = rec.last_json("bridge/response/replay")
        assert replay["status"] == "error" and replay["transaction"] == "r"
        assert "after.seq: Input should be less than or equal to" in str(replay["error"])
        await rec.wait(lambda: c.RequestState() in device.received)
        # the bridge's own rejections are not the controller's refusals: two counters
        assert (bridge.counters.commands_rejected, bridge.counters.commands_refused) == (5, 0)
        device.emit(c.CommandRefused(7, c.SeatLed.TYPE, c.RefusalReason.NOT_NOW))
        await rec.wait(lambda: bridge.counters.commands_refused == 1)
        assert bridge.counters.commands_rejected == 5


def test_replay_request_bounds_every_number() -> None:
    with pytest.raises(ValueError, match=r"after\.seq"):
        ReplayRequest.model_validate({"after": {"boot_id": 1, "seq": 2**63}})
    with pytest.raises(ValueError, match=r"after\.boot_id"):
        ReplayRequest.model_validate({"after": {"boot_id": 2**32, "seq": 1}})
    with pytest.raises(ValueError, match="transaction"):
        ReplayRequest.model_validate({"transaction": "x" * 129})


# --- 3: a flood of refused commands ----------------------------------------------------


async def test_a_valid_command_is_answered_after_a_flood_of_refusals(
    tmp_path: Path, mqtt_url: str
) -> None:
    """Refusals beyond a burst are counted, not answered or reported: the flood stays cheap."""
    table = new_table()
    flood = 1000
    async with (
        running_device(tmp_path, 0xF100D) as device,
        Recorder(mqtt_url, table) as rec,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        bridge.mqtt.clock = lambda: 0.0  # the rate limits never refill: exact bounds
        await rec.wait(lambda: bridge.link.up and bridge.mqtt.connected.is_set())
        bad = {"command": "seat_led", "seat": 9, "mode": "turn"}
        for start in range(0, flood, 100):
            await asyncio.gather(*(rec.publish("set", bad) for _ in range(start, start + 100)))
        await rec.wait(lambda: bridge.counters.commands_rejected == flood, timeout=60)
        await rec.publish("set", dict(VALID, transaction="after-flood"))
        await rec.wait(lambda: any(r["transaction"] == "after-flood" for r in responses(rec)))
        ok = next(r for r in responses(rec) if r["transaction"] == "after-flood")
        assert ok["status"] == "ok"
        await rec.wait(lambda: c.RequestState() in device.received)
        answered = [r for r in responses(rec) if r["status"] == "error"]
        assert len(answered) == bridge_mqtt.ANSWER_BURST
        assert bridge.counters.refusals_unanswered == flood - bridge_mqtt.ANSWER_BURST
        assert all(r["command"] == "seat_led" for r in answered)
        reports = [json.loads(p) for p in rec.on("bridge/error")]
        assert [r["reason"] for r in reports] == ["command"] * bridge_mqtt.REPORT_BURST


# --- 4: retained commands --------------------------------------------------------------


async def test_a_retained_command_is_ignored_on_every_connect(
    tmp_path: Path, mqtt_url: str
) -> None:
    table = new_table()
    async with Recorder(mqtt_url, table) as setter:
        assert setter._client is not None
        await setter._client.publish(
            f"mjtable/{table}/set", json.dumps({"command": "start_shuffle"}), qos=1, retain=True
        )
        try:
            async with running_device(tmp_path, 0x4E7) as device:
                for run in (1, 2):  # a bridge restart is a reconnect too
                    async with (
                        Recorder(mqtt_url, table) as rec,
                        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
                    ):
                        await rec.wait(lambda: len(rec.on("set/response")) == 1)
                        refused = responses(rec)[0]
                        assert refused["status"] == "error", run
                        assert refused["command"] == "start_shuffle"
                        assert "retained" in str(refused["error"])
                        await rec.wait(lambda: bridge.link.up and bridge.mqtt.connected.is_set())
                        await rec.publish("set", dict(VALID, transaction=f"live{run}"))
                        await rec.wait(lambda: len(rec.on("set/response")) == 2)
                        await rec.wait(lambda: c.RequestState() in device.received)
                assert not any(isinstance(m, c.StartShuffle) for m in device.received)
        finally:
            await setter._client.publish(f"mjtable/{table}/set", b"", qos=1, retain=True)


# --- 5: secrets ---------------------------------------------------------------------------


def test_urls_are_redacted_and_credentials_unquoted() -> None:
    s = load_settings(None, port="/dev/null", table="t1", mqtt="mqtt://ops:p%40ss%3Aw@h:1884")
    assert s.credentials == ("ops", "p@ss:w")
    assert s.mqtt_shown == "mqtt://ops:***@h:1884"
    assert redact_url("socket://u:x@10.0.0.2:4000") == "socket://u:***@10.0.0.2:4000"
    assert redact_url("mqtt://h:1883") == "mqtt://h:1883"


@pytest.fixture
def password_broker(tmp_path: Path) -> Iterator[str]:
    """A Mosquitto that wants user `ops`, password `p@ss:w/rd` (percent-encoded in the URL)."""
    mosquitto, passwd = shutil.which("mosquitto"), shutil.which("mosquitto_passwd")
    if mosquitto is None or passwd is None:
        pytest.skip("needs mosquitto and mosquitto_passwd")
    work = tmp_path / "mosq"
    work.mkdir()
    subprocess.run([passwd, "-b", "-c", str(work / "pw"), "ops", "p@ss:w/rd"], check=True)
    port = free_port()
    user = "user root\n" if os.geteuid() == 0 else ""
    (work / "m.conf").write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous false\npassword_file {work / 'pw'}\n"
        f"{user}log_dest none\n"
    )
    proc = subprocess.Popen([mosquitto, "-c", str(work / "m.conf")], stderr=subprocess.DEVNULL)
    try:
        wait_listening(port, proc)
        yield f"mqtt://ops:p%40ss%3Aw%2Frd@127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_a_percent_encoded_password_logs_in_and_is_never_logged(
    tmp_path: Path, password_broker: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    table = new_table()
    async with running_device(tmp_path, 0x5EC) as device:
        async with running_bridge(tmp_path, password_broker, table, device.port) as bridge:
            async with asyncio.timeout(15):
                await bridge.mqtt.connected.wait()
        port = free_port()  # nothing listens: every attempt fails with a warning
        closed = f"mqtt://ops:hunter2@127.0.0.1:{port}"
        async with running_bridge(tmp_path, closed, table, device.port) as bridge:
            async with asyncio.timeout(15):
                while bridge.counters.mqtt_reconnects < 2:
                    await asyncio.sleep(0.01)
    text = caplog.text
    assert "connected as" in text and "retrying in" in text
    assert f"mqtt://ops:***@127.0.0.1:{port}" in text
    for secret in ("p%40ss", "p@ss", "hunter2"):
        assert secret not in text


# --- 6: a port that accepts and drops -------------------------------------------------


class _Events(logging.Handler):
    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def emit(self, record: logging.LogRecord) -> None:
        if "reopening in" in record.getMessage():
            self.events.append(record.getMessage().rsplit(" ", 1)[1])


async def test_a_port_that_drops_each_connection_is_retried_with_backoff(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="firmware_bridge.link")
    events: list[str] = []
    accepted = asyncio.Event()

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        events.append("accept")
        accepted.set()
        writer.close()

    server = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    handler = _Events(events)
    logging.getLogger("firmware_bridge.link").addHandler(handler)
    host = LinkRig(f"socket://127.0.0.1:{port}", tmp_path / "o.db")
    await host.start()
    try:
        async with asyncio.timeout(20):
            while events.count("accept") < 6:
                await asyncio.sleep(0.005)
    finally:
        await host.stop()
        logging.getLogger("firmware_bridge.link").removeHandler(handler)
        server.close()
    # every connection is followed by a backoff before the next: no spin
    accepts = [i for i, e in enumerate(events) if e == "accept"][:6]
    for a, b in itertools.pairwise(accepts):
        assert b - a == 2, events[: accepts[-1] + 1]
    delays = [e for e in events if e != "accept"][:5]
    assert delays == ["0.05s", "0.10s", "0.20s", "0.20s", "0.20s"]  # doubling to reopen_max


# --- 7: a damaged outbox -------------------------------------------------------------------


def _bridge_args(tmp_path: Path, outbox: Path) -> list[str]:
    return ["bridge", "--port", "/dev/null", "--table", "t1", "--outbox", str(outbox)]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_outbox_is_refused_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: str
) -> None:
    path = tmp_path / "bridge.db"
    if damage == "garbage":
        path.write_bytes(b"not sqlite at all\n" * 500)
    else:
        box = Outbox(path, "normal")
        rows = [("t/event", "x" * 200, 1, s) for s in range(1, 2001)]
        box.append(rows, 1, 2000)
        box.close()
        size = path.stat().st_size
        with path.open("r+b") as f:
            f.truncate(0 if damage == "empty" else size // 2)
    with pytest.raises(OutboxDamaged, match=f"outbox {path}"):
        Outbox(path)
    assert main(_bridge_args(tmp_path, path)) == 2
    err = capsys.readouterr().err
    assert f"bridge: outbox {path}: " in err and "Traceback" not in err
    if damage == "empty":
        assert "an empty file" in err


@pytest.mark.parametrize("wal", ["deleted", "damaged"])
async def test_a_lost_wal_is_reported_as_the_outboxs_loss(tmp_path: Path, wal: str) -> None:
    """Events acknowledged to the controller and then lost with the WAL: the outbox's loss."""
    port = tmp_path / "tty"
    device = PtyController(port, 0xA11)
    await device.start()
    first = LinkRig(port, tmp_path / "live" / "o.db")
    crash = tmp_path / "crash"
    crash.mkdir()
    try:
        await first.start()
        await first.wait_state("up")
        for m in numbered(5):
            device.emit(m)
        await device.wait_idle()  # acknowledged: stored in the WAL
        for name in ("o.db", "o.db-wal"):  # the files as a crash (kill -9) leaves them
            shutil.copy(tmp_path / "live" / name, crash / name)
        await first.stop()
        if wal == "deleted":
            (crash / "o.db-wal").unlink()
        else:
            with (crash / "o.db-wal").open("r+b") as f:
                f.seek(16)
                f.write(b"\xde\xad\xbe\xef")  # the header's salt: its checksum fails
        second = LinkRig(port, crash / "o.db")
        await second.start()
        try:
            await second.wait_state("up")
            assert second.outbox is not None and second.outbox.damage is not None
            assert second.events() == []
            reasons = [r for r, _ in second.errors]
            assert reasons == ["outbox_lost"]
            detail = second.errors[0][1]
            assert "boot 2577: events 1..5 were acknowledged to the controller" in detail
            assert "write-ahead log" in detail and "controller (discarded" not in detail
            assert second.counters.lost == 5
        finally:
            await second.stop()
    finally:
        await device.stop()


async def test_an_outbox_new_to_a_running_controller_says_so(tmp_path: Path) -> None:
    port = tmp_path / "tty"
    device = PtyController(port, 0xB0B)
    await device.start()
    try:
        first = LinkRig(port, tmp_path / "a.db")
        await first.start()
        await first.wait_state("up")
        for m in numbered(3):
            device.emit(m)
        await device.wait_idle()
        await first.stop()
        second = LinkRig(port, tmp_path / "b.db")  # a new outbox, same controller boot
        await second.start()
        try:
            await second.wait_state("up")
            assert [r for r, _ in second.errors] == ["unknown_history"]
            assert "boot 2827: events 1..3 were acknowledged before" in second.errors[0][1]
        finally:
            await second.stop()
    finally:
        await device.stop()


# --- 8: a forged HELLO ---------------------------------------------------------------------


def test_a_sync_brings_a_refused_device_back() -> None:
    device = DeviceSession(0x77)
    assert device.poll(0.0)  # its HELLO
    refusal = c.Welcome(1, c.HelloResult.VERSION_UNSUPPORTED, 1)
    device.receive(encode_frame(to_frame(refusal, 0, 0)), 0.1)
    assert device.rejected and device.poll(1.0) == b""
    device.receive(encode_frame(to_frame(c.Sync(), 0, 0)), 1.1)
    assert not device.rejected
    frames = FrameDecoder().feed(device.poll(1.2))
    assert [f.type for f in frames if isinstance(f, Frame)] == [c.Hello.TYPE]


async def test_a_forged_version_2_hello_does_not_wedge_the_link(tmp_path: Path) -> None:
    port = tmp_path / "tty"
    device = PtyController(port, 0xF0E)
    await device.start()
    host = LinkRig(port, tmp_path / "o.db")
    await host.start()
    try:
        await host.wait_state("up")
        hello = to_frame(c.Hello(2, 9, 9, 9, 1, 0xF0E, 1), 0, 0)
        device.write_raw(encode_frame(Frame(hello.type, 0, 0, hello.payload, 2)))
        await host.wait_state("version_mismatch")
        async with asyncio.timeout(5):
            while not device.session.rejected:
                await asyncio.sleep(0.005)
        await host.wait_state("up")  # the host's SYNC brings the device back
        device.emit(c.TilesLeft(33))
        await device.wait_idle()
        assert [e.body.model_dump() for e in host.events()] == [{"kind": "tiles_left", "count": 33}]
    finally:
        await host.stop()
        await device.stop()


# --- 9c: TLS files ------------------------------------------------------------------------


def test_a_missing_ca_file_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "ca.pem"
    args = ["bridge", "--port", "/dev/null", "--table", "t1", "--mqtt", "mqtts://broker"]
    with pytest.raises(SystemExit) as info:
        main([*args, "--mqtt-ca-file", str(missing)])
    assert info.value.code == 2
    assert f"bridge: mqtt_ca_file: Value error, no such file {missing}" in capsys.readouterr().err
    missing.write_text("not a certificate\n")
    with pytest.raises(SystemExit) as info:
        main([*args, "--mqtt-ca-file", str(missing)])
    assert info.value.code == 2
    assert "is not a PEM CA bundle" in capsys.readouterr().err


async def test_a_socket_closed_under_a_callback_is_one_line(
    tmp_path: Path, mqtt_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """What a broker's kill -9 leaves in asyncio's handler: one warning, no traceback."""
    table = new_table()
    async with (
        running_device(tmp_path, 0xEBAD) as device,
        running_bridge(tmp_path, mqtt_url, table, device.port) as bridge,
    ):
        async with asyncio.timeout(15):
            await bridge.mqtt.connected.wait()
        caplog.clear()
        error = OSError(9, "Bad file descriptor")
        asyncio.get_running_loop().call_exception_handler(
            {"message": "Exception in callback", "exception": error}
        )
    records = [r for r in caplog.records if "Bad file descriptor" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None
    assert records[0].levelno == logging.WARNING
