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
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hil_tests.broker import OwnedBroker, free_port

__all__ = ["OwnedBroker", "free_port", "mqtt_url", "owned_broker"]


@pytest.fixture(scope="session")
def mqtt_url() -> Iterator[str]:
    """URL of the shared test broker."""
    env = os.environ.get("MJTABLE_TEST_MQTT")
    if env:
        yield env
        return
    with tempfile.TemporaryDirectory() as tmp:
        broker = OwnedBroker(Path(tmp), embedded=True)  # the embedded default (the guide)
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
