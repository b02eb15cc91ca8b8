"""`mjtable bridge`: options, settings precedence, and a real process killed hard (Last Will)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.settings import BridgeSettings, load_settings
from mjtable.cli import build_parser, main
from table_sim.controller import PtyController

from .kit_mqtt import Recorder, new_table

ROOT = Path(__file__).resolve().parents[2]


def test_help_lists_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args(["bridge", "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    for name in BridgeSettings.model_fields:
        assert "--" + name.replace("_", "-") in text
    assert "--config" in text and "MJTABLE_BRIDGE_" in text


def test_missing_port_names_the_field(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["bridge", "--table", "t1"])
    assert info.value.code == 2
    assert "bridge: port: Field required" in capsys.readouterr().err


def test_bad_values_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["bridge", "--port", "/dev/null", "--table", "t 1", "--mqtt", "http://x"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "bridge: table: String should match pattern" in err
    assert "bridge: mqtt: Value error, mqtt: 'http://x' is not mqtt://host" in err


def test_command_line_over_env_over_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf = tmp_path / "mjtable.toml"
    conf.write_text(
        '[bridge]\nport = "/dev/ttyUSB0"\ntable = "file"\nmqtt = "mqtts://user:pw@broker"\n'
        "metrics_port = 9100\n"
    )
    monkeypatch.setenv("MJTABLE_BRIDGE_TABLE", "env")
    monkeypatch.setenv("MJTABLE_BRIDGE_MQTT_PASSWORD", "envpw")
    s = load_settings(conf)
    assert (s.port, s.table, s.metrics_port) == ("/dev/ttyUSB0", "env", 9100)
    assert s.broker == ("broker", 8883, True)
    assert s.credentials == ("user", "envpw")
    assert load_settings(conf, table="cli").table == "cli"
    with pytest.raises(FileNotFoundError, match="config: no such file"):
        load_settings(tmp_path / "missing.toml")


@pytest.mark.parametrize("how", ["sigkill", "sigterm"])
async def test_bridge_process_goes_offline(tmp_path: Path, mqtt_url: str, how: str) -> None:
    """SIGKILL: the broker publishes the Last Will; SIGTERM: the bridge says it, exit 0."""
    table = new_table()
    device = PtyController(tmp_path / "tty", 0x4B1D)
    await device.start()
    cmd = [
        sys.executable, "-m", "mjtable", "bridge", "--port", str(device.port), "--table", table,
        "--mqtt", mqtt_url, "--outbox", str(tmp_path / "o.db"), "--status-interval", "0.2",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith("MJTABLE_BRIDGE_")}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stderr=subprocess.PIPE)
    try:
        async with Recorder(mqtt_url, table) as rec:
            await rec.wait(lambda: rec.on("bridge/availability")[-1:] == [b"online"], 20)
            device.emit(c.TileDrawn(1, 100, c.End.BACK))
            await rec.wait(lambda: len(rec.events()) == 1)
            assert rec.events()[0].body.model_dump(mode="json") == {
                "kind": "tile_drawn", "seat": 1, "tile": 100, "end": "back",
            }  # fmt: skip
            proc.send_signal(signal.SIGKILL if how == "sigkill" else signal.SIGTERM)
            code = await asyncio.to_thread(proc.wait, 15)
            assert code == (-signal.SIGKILL if how == "sigkill" else 0)
            await rec.wait(lambda: rec.on("bridge/availability")[-1:] == [b"offline"], 20)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
        await device.stop()


async def test_socket_url_port(tmp_path: Path) -> None:
    """The bridge link over `socket://` (a controller behind a TCP serial server)."""
    import time

    from firmware_bridge.protocol.device_session import DeviceSession

    from .kit_link import LinkRig

    session = DeviceSession(0x50C, now=time.monotonic())

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        async def pump() -> None:
            while True:
                writer.write(session.poll(time.monotonic()))
                await asyncio.sleep(0.005)

        task = asyncio.create_task(pump())
        try:
            while data := await reader.read(4096):
                session.receive(data, time.monotonic())
        finally:
            task.cancel()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    host = LinkRig(f"socket://127.0.0.1:{port}", tmp_path / "o.db")
    await host.start()
    try:
        for i in range(5):
            session.emit(c.TilesLeft(100 - i))
        async with asyncio.timeout(10):
            while not (session.welcomed and session.idle):
                await asyncio.sleep(0.01)
        assert [e.body.model_dump() for e in host.events()] == [
            {"kind": "tiles_left", "count": 100 - i} for i in range(5)
        ]
    finally:
        await host.stop()
        server.close()
