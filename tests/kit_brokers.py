"""MQTT brokers for tests: the shared one (env or embedded amqtt) and a restartable owned one.

Use from any test folder's conftest: `from tests.kit_brokers import mqtt_url, owned_broker`.
- `mqtt_url`: the broker at $MJTABLE_TEST_MQTT (CI: Mosquitto), else amqtt in a
  subprocess for the session (its own process: no in-process PUBACK race).
- `remember_retained` / `clear_new_retained` (the root conftest's session hooks): what a
  run retains on the shared broker at $MJTABLE_TEST_MQTT is cleared when it ends.
- `owned_broker`: a broker this test alone owns, on a free port, that it may stop and
  restart: Mosquitto when the binary exists (with persistence, so a persistent
  subscriber's session and queue survive the restart), else amqtt
  (or when MJTABLE_TEST_OWNED_BROKER=amqtt).
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import aiomqtt
import pytest

from table_sim.broker import OwnedBroker, free_port

__all__ = [
    "OwnedBroker", "clear_new_retained", "free_port", "mqtt_url", "owned_broker",
    "remember_retained",
]  # fmt: skip

_RETAINED_BEFORE = pytest.StashKey[set[str]]()


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


def _client(url: str) -> aiomqtt.Client:
    parts = urlsplit(url)
    return aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883)


async def retained_topics(url: str, quiet: float = 0.5) -> set[str]:
    """Every topic the broker holds a retained message on (sent at once on SUBSCRIBE)."""
    topics: set[str] = set()
    async with _client(url) as c:
        await c.subscribe("#", qos=0)
        incoming = aiter(c.messages)
        while True:
            try:
                message = await asyncio.wait_for(anext(incoming), quiet)
            except TimeoutError:
                break
            if message.retain:
                topics.add(str(message.topic))
    return topics


async def clear_retained(url: str, topics: set[str]) -> None:
    """An empty retained publish deletes a topic's retained message (MQTT 3.1.1 §3.3.1.3)."""
    async with _client(url) as c:
        for topic in sorted(topics):
            await c.publish(topic, b"", qos=1, retain=True)


async def clear_what_was_retained_since(url: str, before: set[str], rounds: int = 3) -> None:
    """Clear every retained topic absent from `before`; again while Last Wills still land."""
    for _ in range(rounds):
        new = await retained_topics(url) - before
        if not new:
            return
        await clear_retained(url, new)
        await asyncio.sleep(0.5)  # a killed client's Last Will may arrive just after


def remember_retained(config: pytest.Config) -> None:
    """At the start of a run (`pytest_sessionstart`): what the shared broker retains.

    Only the process that runs the session does this, not each xdist worker, so a
    worker that ends first cannot clear what another's running test retained.
    """
    url = os.environ.get("MJTABLE_TEST_MQTT")
    if url and not hasattr(config, "workerinput"):
        config.stash[_RETAINED_BEFORE] = asyncio.run(retained_topics(url))


def clear_new_retained(config: pytest.Config) -> None:
    """At the end of a run (`pytest_sessionfinish`): the shared broker keeps nothing new.

    The embedded broker goes with the run; a shared one (CI's Mosquitto) would keep
    every test table's `bridge/{availability,link,counters}` for ever (tests' tables
    are new ids each time).
    """
    url = os.environ.get("MJTABLE_TEST_MQTT")
    before = config.stash.get(_RETAINED_BEFORE, None)
    if url and before is not None:
        asyncio.run(clear_what_was_retained_since(url, before))
