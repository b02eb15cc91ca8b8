"""MQTT brokers for tests: the shared one (env or embedded amqtt) and a restartable owned one.

Use from any test folder's conftest: `from tests.brokers import mqtt_url, owned_broker`.
- `mqtt_url`: the broker at $MJTABLE_TEST_MQTT (CI: Mosquitto), else amqtt in a
  subprocess for the session (its own process: no in-process PUBACK race).
- `owned_broker`: a broker this test alone owns, on a free port, that it may stop and
  restart: Mosquitto when the binary exists (with persistence, so a persistent
  subscriber's session and queue survive the restart), else amqtt
  (or when MJTABLE_TEST_OWNED_BROKER=amqtt).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

AMQTT_MAIN = """
import asyncio, sys
from amqtt.broker import Broker
async def main(port):
    broker = Broker({
        "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    })
    await broker.start()
    await asyncio.Event().wait()
asyncio.run(main(int(sys.argv[1])))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode} before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"broker not listening on 127.0.0.1:{port} after {timeout}s")


class OwnedBroker:
    """A broker process on a fixed port that a test may stop and start again."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.workdir = workdir
        forced = os.environ.get("MJTABLE_TEST_OWNED_BROKER")  # "amqtt" forces the fallback
        self.mosquitto = None if forced == "amqtt" else shutil.which("mosquitto")
        self.persistent = self.mosquitto is not None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.mosquitto:
            conf = self.workdir / "mosquitto.conf"
            conf.write_text(
                f"listener {self.port} 127.0.0.1\n"
                "allow_anonymous true\n"
                "persistence true\n"
                f"persistence_location {self.workdir}/\n"
                "max_queued_messages 100000\n"
                "log_dest none\n"
            )
            cmd = [self.mosquitto, "-c", str(conf)]
        else:
            cmd = [sys.executable, "-c", AMQTT_MAIN, str(self.port)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_listening(self.port, self.proc)

    def stop(self) -> None:
        """SIGTERM (Mosquitto then saves its sessions), SIGKILL if it lingers."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture(scope="session")
def mqtt_url() -> Iterator[str]:
    """URL of the shared test broker."""
    env = os.environ.get("MJTABLE_TEST_MQTT")
    if env:
        yield env
        return
    with tempfile.TemporaryDirectory() as tmp:
        broker = OwnedBroker(Path(tmp))
        broker.mosquitto = None  # the embedded default, as the developers' guide asks
        broker.persistent = False
        broker.start()
        try:
            yield broker.url
        finally:
            broker.stop()


@pytest.fixture
def owned_broker(tmp_path: Path) -> Iterator[OwnedBroker]:
    """A broker only this test uses; stop() and start() it at will."""
    workdir = tmp_path / "broker"
    workdir.mkdir()
    broker = OwnedBroker(workdir)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
