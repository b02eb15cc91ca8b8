"""`mjtable demo` as a visitor runs it: one command, every real part, a clean stop.

Each test starts the command as a subprocess (its own embedded broker, its own pty
tables and bridges, the service on a SQLite file), reads the dashboard from its URL,
stops it by signal and then opens the records it left.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.store import Store
from table_sim.broker import free_port

MJTABLE = [sys.executable, "-m", "mjtable"]
START_TIMEOUT = 60.0


class Demo:
    """A running `mjtable demo` whose stdout lines are read as they come."""

    def __init__(self, db: Path, *args: str) -> None:
        self.port = free_port()
        self.db = db
        self.proc = subprocess.Popen(
            [*MJTABLE, "demo", "--port", str(self.port), "--db", f"sqlite:///{db}", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            start_new_session=True,  # its own process group, as a command typed at a terminal
        )  # fmt: skip
        self.lines: list[str] = []

    def wait_line(self, pattern: str, timeout: float = START_TIMEOUT) -> re.Match[str]:
        """The first stdout line matching `pattern` (fails on exit or timeout)."""
        deadline = time.monotonic() + timeout
        assert self.proc.stdout is not None
        for seen in self.lines:
            if found := re.search(pattern, seen):
                return found
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line.rstrip("\n"))
            if found := re.search(pattern, line):
                return found
        stderr = (
            self.proc.stderr.read() if self.proc.poll() is not None and self.proc.stderr else ""
        )
        pytest.fail(f"no line /{pattern}/ from the demo; stdout {self.lines}; stderr {stderr}")

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=10) as r:
            body = r.read().decode()
            return json.loads(body) if "json" in r.headers["content-type"] else body

    def stop(self, sig: signal.Signals, group: bool = False) -> tuple[int, str, str]:
        """`sig` to the demo, or (`group`) to its whole process group as a terminal's
        Ctrl-C does: the broker and every other child get it too."""
        if group:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        out, err = self.proc.communicate(timeout=60)
        self.lines += out.splitlines()
        return self.proc.returncode, "\n".join(self.lines), err


@pytest.fixture
def demo_db(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "demo.db"


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    pytest.fail(f"timed out waiting for {what}")


def assert_log_whole(store: Store, table: str) -> int:
    """Each boot's events are stored from seq 1 with no hole and no repeat."""
    by_boot: dict[int, list[int]] = {}
    for entry in store.entries(table):
        if entry.kind == "event":
            assert entry.event is not None
            by_boot.setdefault(entry.event.boot_id, []).append(entry.event.seq)
    for boot_id, seqs in by_boot.items():
        assert seqs == list(range(1, len(seqs) + 1)), f"{table} boot {boot_id} has a hole"
    return sum(len(s) for s in by_boot.values())


def test_demo_plays_serves_the_dashboard_and_stops_cleanly_on_sigterm(demo_db: Path) -> None:
    mqtt_port = free_port()
    demo = Demo(demo_db, "--tables", "2", "--speed", "0", "--hands", "2", "--violations", "0.05",
                "--mqtt-port", str(mqtt_port))  # fmt: skip
    try:
        url = demo.wait_line(r"dashboard: (http://\S+)").group(1)
        assert url.endswith(f":{demo.port}/")
        broker = demo.wait_line(r"broker: (\S+)").group(1)
        assert broker == f"mqtt://127.0.0.1:{mqtt_port}"  # the port asked for, not a random one
        admin = demo.wait_line(r"admin token: (\S+)").group(1)
        demo.wait_line(r"every table has played its hands", timeout=240)
        tables = {t["table"]: t for t in demo.get("/api/tables")}
        assert set(tables) == {"t01", "t02"}
        assert tables["t01"]["players"] == ["阿明", "Bea", "陳小華", "Dora"]
        for table in ("t01", "t02"):  # the records may trail the live mirror a moment
            wait_for(lambda t=table: len(demo.get(f"/api/tables/{t}/hands")) == 2, 60, "2 hands")
        hands = demo.get("/api/tables/t01/hands")
        assert len(hands) == 2 and all(
            h["result"] in ("win", "flower_win", "false_win", "drawn") for h in hands
        )
        assert all(sum(h["net"]) == 0 for h in hands)
        assert "<html" in demo.get("/").lower()
        assert "<html" in demo.get("/table.html").lower()
        assert admin
        demo_violations = len(demo.get("/api/violations"))
    finally:
        code, out, err = demo.stop(signal.SIGTERM)
    assert code == 0, err
    assert "stopped: every part closed; the records hold every event the tables sent" in out
    store = Store(f"sqlite:///{demo_db}")
    try:
        for table in ("t01", "t02"):
            assert assert_log_whole(store, table) > 0
            assert len(store.hands(table, limit=None)) == 2
        flagged = demo_violations
        assert len(store.violations()) == flagged
    finally:
        store.close()


def test_ctrl_c_mid_game_leaves_the_records_whole_and_up_to_date(demo_db: Path) -> None:
    demo = Demo(demo_db, "--tables", "3", "--speed", "0")
    try:
        demo.wait_line(r"dashboard: ")
        wait_for(lambda: sum(t["hands"] for t in demo.get("/api/tables")) >= 3, 240, "3 hands")
    finally:
        code, out, err = demo.stop(signal.SIGINT, group=True)
    assert code == 0, err
    assert "Traceback" not in err
    assert "the records hold every event the tables sent" in out, out
    store = Store(f"sqlite:///{demo_db}")
    try:
        assert set(store.tables()) == {"t01", "t02", "t03"}
        for table in store.tables():
            assert_log_whole(store, table)
        assert len(store.hands(limit=None)) >= 3
    finally:
        store.close()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tables", "0"], "--tables: at least 1, got 0"),
        (["--speed", "-1"], "--speed: 0 or more, got -1"),
        (["--violations", "2"], "--violations: a rate from 0 to 1, got 2"),
        (["--mqtt-port", "70000"], "--mqtt-port: 1 to 65535, got 70000"),
        (["--mqtt", "mqtt://club:1883", "--mqtt-port", "1884"], "not with --mqtt"),
    ],
)
def test_bad_options_exit_2_naming_the_option(args: list[str], message: str) -> None:
    done = subprocess.run([*MJTABLE, "demo", *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*MJTABLE, "demo", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert f"--port {port}: 127.0.0.1:{port} is in use" in done.stderr
    assert not (tmp_path / "x.db").exists()


def test_an_mqtt_port_in_use_is_refused_before_anything_starts(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = subprocess.run(
            [*MJTABLE, "demo", "--port", str(free_port()), "--mqtt-port", str(port),
             "--db", f"sqlite:///{tmp_path / 'x.db'}"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert done.returncode == 2
    assert f"--mqtt-port {port}: 127.0.0.1:{port} is in use" in done.stderr
    assert not (tmp_path / "x.db").exists()
