"""The guide's Mosquitto (deploy/mosquitto.conf + deploy/acl), run by the test: TLS and a
password for every client, and an ACL per table. The bridge is the real one, loaded from
deploy/bridge-t01.toml and its .env, against a simulated controller on a pty; the service
side uses deploy/serve.toml and its .env.

Mosquitto drops a publish the ACL refuses without telling the client (QoS 0 and 1 alike)
and never delivers a message a subscriber may not read. So a refusal is proved by absence:
the same client then publishes a marker on a topic it may use, and once the marker has
arrived (one client's messages arrive in order) the refused one is known not to come.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import pytest

from firmware_bridge.bridge import Bridge
from firmware_bridge.messages import Event
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.settings import BridgeSettings, load_settings
from firmware_bridge.stopping import cancel_and_wait
from table_service.service.settings import ServeSettings, load_serve_settings
from tests.bridge.kit_mqtt import running_device

from .conftest import DEPLOY, PASSWORDS, Club, env_file

TIMEOUT = 15.0


def bridge_settings(
    club: Club, monkeypatch: pytest.MonkeyPatch, **overrides: Any
) -> BridgeSettings:
    """deploy/bridge-t01.toml and its .env as systemd would give them, pointed at the
    test's broker (by name `localhost`, which its certificate names)."""
    for key, value in env_file(DEPLOY / "bridge-t01.env").items():
        monkeypatch.setenv(key, value)
    given = {"mqtt": f"mqtts://localhost:{club.tls_port}", "mqtt_ca_file": club.ca} | overrides
    return load_settings(DEPLOY / "bridge-t01.toml", **given)


def serve_settings(club: Club, monkeypatch: pytest.MonkeyPatch) -> ServeSettings:
    for key, value in env_file(DEPLOY / "serve.env").items():
        monkeypatch.setenv(key, value)
    return load_serve_settings(DEPLOY / "serve.toml", mqtt=f"mqtt://127.0.0.1:{club.plain_port}")


def tls(ca: Path | None) -> aiomqtt.TLSParameters:
    return aiomqtt.TLSParameters(ca_certs=str(ca) if ca else None, cert_reqs=ssl.CERT_REQUIRED)


def as_bridge(club: Club, user: str, password: str | None = None, **kw: Any) -> aiomqtt.Client:
    """A client on the TLS listener, as a table's bridge connects."""
    return aiomqtt.Client(
        "localhost", club.tls_port, username=user, password=password or PASSWORDS[user],
        identifier=f"{user}-{uuid.uuid4().hex[:8]}", tls_params=kw.pop("tls_params", tls(club.ca)),
        timeout=10, **kw,
    )  # fmt: skip


@dataclass
class Watcher:
    """A subscriber that keeps what arrives live (not retained); `wait_for` waits on a
    predicate over it."""

    client: aiomqtt.Client
    messages: list[tuple[str, bytes]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def read(self) -> None:
        async for m in self.client.messages:
            if m.retain:
                continue  # left by an earlier test (availability, link, counters)
            payload = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
            self.messages.append((str(m.topic), payload))
            self.changed.set()

    def on(self, topic: str) -> list[bytes]:
        return [p for t, p in self.messages if t == topic]

    def topics(self) -> set[str]:
        return {t for t, _ in self.messages}

    async def wait_for(self, check: Callable[[], bool]) -> None:
        async with asyncio.timeout(TIMEOUT):
            while not check():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def watching(client: aiomqtt.Client, *topics: str) -> AsyncIterator[Watcher]:
    async with client:
        for topic in topics:
            await client.subscribe(topic, qos=1)
        watcher = Watcher(client)
        task = asyncio.create_task(watcher.read())
        try:
            yield watcher
        finally:
            await cancel_and_wait([task])


def as_service(club: Club, settings: ServeSettings) -> aiomqtt.Client:
    """A client as `mjtable serve` connects: the settings' broker and credentials."""
    host, port, tls_on = settings.broker
    user, secret = settings.credentials
    assert (host, tls_on) == ("127.0.0.1", False)
    return aiomqtt.Client(host, port, username=user, password=secret,
                          identifier=f"service-{uuid.uuid4().hex[:8]}", timeout=10)  # fmt: skip


def marker() -> bytes:
    return uuid.uuid4().hex.encode()


async def test_the_bridge_connects_over_tls_and_the_service_commands_it(
    club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real bridge, from the example settings: its events, availability (its Last Will
    topic), link state and answers reach the service user; the service's command reaches it."""
    settings = bridge_settings(club, monkeypatch, outbox=tmp_path / "outbox.db")
    service = serve_settings(club, monkeypatch)
    assert settings.credentials == ("bridge-t01", PASSWORDS["bridge-t01"])
    async with (
        watching(as_service(club, service), "mjtable/t01/#") as seen,
        running_device(tmp_path, boot_id=0x0701) as device,
    ):
        settings = settings.model_copy(update={"port": str(device.port)})
        bridge = asyncio.create_task(Bridge(settings).run())
        try:
            await seen.wait_for(lambda: b"online" in seen.on("mjtable/t01/bridge/availability"))
            sent = [c.ShuffleStarted(), c.ShuffleFinished(), c.TilesLeft(56)]
            for message in sent:
                device.emit(message)
            await seen.wait_for(lambda: len(seen.on("mjtable/t01/event")) == len(sent))
            events = [Event.model_validate_json(p) for p in seen.on("mjtable/t01/event")]
            assert [(e.table, e.boot_id, e.seq) for e in events] == [
                ("t01", 0x0701, 1), ("t01", 0x0701, 2), ("t01", 0x0701, 3)
            ]  # fmt: skip
            await seen.wait_for(lambda: bool(seen.on("mjtable/t01/bridge/link")))

            # only the service may command a table: its command reaches the bridge,
            # which answers on set/response (an answer it may publish)
            command = {"command": "request_state", "transaction": "ops-1"}
            await seen.client.publish("mjtable/t01/set", json.dumps(command), qos=1)
            await seen.wait_for(lambda: bool(seen.on("mjtable/t01/set/response")))
            answer = json.loads(seen.on("mjtable/t01/set/response")[-1])
            assert answer["transaction"] == "ops-1" and answer["command"] == "request_state"

            # and its request on bridge/request/<op> (the consumer's replays use it)
            await seen.client.publish("mjtable/t01/bridge/request/status", '{"transaction": "s"}')
            await seen.wait_for(lambda: bool(seen.on("mjtable/t01/bridge/response/status")))
            assert json.loads(seen.on("mjtable/t01/bridge/response/status")[-1])["status"] == "ok"
        finally:
            await cancel_and_wait([bridge])
        await seen.wait_for(lambda: seen.on("mjtable/t01/bridge/availability")[-1] == b"offline")


async def test_a_wrong_password_is_refused(club: Club) -> None:
    with pytest.raises(aiomqtt.MqttCodeError) as refused:
        async with as_bridge(club, "bridge-t01", password="not-the-password"):
            pass
    assert str(refused.value.rc) == "Not authorized"  # CONNACK 5 (MQTT 3.1.1)


async def test_no_anonymous_client(club: Club) -> None:
    for port, params in ((club.tls_port, tls(club.ca)), (club.plain_port, None)):
        with pytest.raises(aiomqtt.MqttCodeError) as refused:
            async with aiomqtt.Client("localhost", port, tls_params=params, timeout=10):
                pass
        assert str(refused.value.rc) == "Not authorized"


async def test_a_client_that_does_not_trust_the_ca_is_refused(club: Club) -> None:
    """Without the club's CA (here: only the system's), the broker's certificate fails."""
    with pytest.raises(aiomqtt.MqttError, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify"):
        async with as_bridge(club, "bridge-t01", tls_params=tls(None)):
            pass


def connect_packet(client_id: str, user: str, password: str) -> bytes:
    """An MQTT 3.1.1 CONNECT with user name and password, clean session."""

    def field(value: str) -> bytes:
        raw = value.encode()
        return len(raw).to_bytes(2, "big") + raw

    body = field("MQTT") + bytes([4, 0xC2]) + (60).to_bytes(2, "big")
    body += field(client_id) + field(user) + field(password)
    assert len(body) < 128
    return bytes([0x10, len(body)]) + body


async def test_the_tls_listener_takes_no_plain_mqtt(club: Club) -> None:
    """A right password in plain MQTT on the TLS port: the broker hangs up, no CONNACK."""
    reader, writer = await asyncio.open_connection("127.0.0.1", club.tls_port)
    try:
        writer.write(connect_packet("plain", "bridge-t01", PASSWORDS["bridge-t01"]))
        await writer.drain()
        answer = b""
        async with asyncio.timeout(TIMEOUT):
            with contextlib.suppress(ConnectionResetError):  # closed, by FIN or by RST
                answer = await reader.read()
        assert answer == b""  # nothing sent back: no CONNACK
    finally:
        writer.close()


async def test_the_bridge_settings_with_the_wrong_password_never_connect(
    club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real bridge, its password wrong: it keeps retrying and never comes online."""
    settings = bridge_settings(
        club, monkeypatch, outbox=tmp_path / "outbox.db", port=str(tmp_path / "none"),
        mqtt_password="wrong", mqtt_reconnect_min=0.05, mqtt_reconnect_max=0.1,
    )  # fmt: skip
    bridge = Bridge(settings)
    task = asyncio.create_task(bridge.run())
    try:
        async with asyncio.timeout(TIMEOUT):
            while bridge.counters.mqtt_reconnects < 3:
                await asyncio.sleep(0.02)
        assert not bridge.mqtt.connected.is_set()
    finally:
        await cancel_and_wait([task])


async def test_a_bridge_writes_only_its_own_tables_bridge_topics(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = serve_settings(club, monkeypatch)
    async with (
        watching(as_service(club, service), "mjtable/#") as seen,
        as_bridge(club, "bridge-t01") as t01,
    ):
        refused = [
            "mjtable/t02/event",  # another table's events
            "mjtable/t02/bridge/availability",
            "mjtable/t01/set",  # a command: the service's alone
            "mjtable/t02/set",
            "mjtable/t01/service/state",  # the service's records
            "mjtable/service/availability",
            "mjtable/service/1/availability",  # a further service process's
            "mjtable/t01/bridge/request/replay",
        ]
        for topic in refused:
            await t01.publish(topic, b"forged", qos=1)
        done = marker()
        await t01.publish("mjtable/t01/event", done, qos=1)
        await seen.wait_for(lambda: done in seen.on("mjtable/t01/event"))
        assert not seen.topics() & set(refused)
        assert [p for _, p in seen.messages] == [done]


async def test_a_bridge_reads_only_its_own_tables_commands(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = serve_settings(club, monkeypatch)
    async with (
        as_service(club, service) as svc,
        as_bridge(club, "bridge-t02") as t02_bridge,
        watching(as_bridge(club, "bridge-t01"), "mjtable/#") as t01,
    ):
        await t02_bridge.publish("mjtable/t02/event", b"t02's event", qos=1)
        await svc.publish("mjtable/t02/set", b'{"command": "request_state"}', qos=1)
        await svc.publish("mjtable/t02/bridge/request/status", b"{}", qos=1)
        await svc.publish("mjtable/t01/service/state", b"{}", qos=1)  # not a bridge's to read
        done = marker()
        await svc.publish("mjtable/t01/set", done, qos=1)
        await t01.wait_for(lambda: done in t01.on("mjtable/t01/set"))
        assert t01.topics() == {"mjtable/t01/set"} and t01.on("mjtable/t01/set") == [done]


async def test_the_service_may_not_forge_a_tables_events(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = serve_settings(club, monkeypatch)
    async with (
        watching(as_service(club, service), "mjtable/#") as seen,
        as_service(club, service) as svc,
    ):
        await svc.publish("mjtable/t01/event", b"forged", qos=1)
        await svc.publish("mjtable/t01/bridge/availability", b"online", qos=1)
        await svc.publish("mjtable/service/2/availability", b"online", qos=1)  # member 2's
        done = marker()
        await svc.publish("mjtable/t01/service/state", done, qos=1)
        await seen.wait_for(lambda: done in seen.on("mjtable/t01/service/state"))
        assert seen.topics() == {"mjtable/t01/service/state", "mjtable/service/2/availability"}


async def test_the_service_follows_a_table_over_tls(
    club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`mjtable serve` on another machine than the broker: mqtts:// and the club's CA, its
    own user; the real bridge's events reach the records."""
    from table_service.service.live import Service
    from table_service.store import Store
    from table_sim.service_end import stored_up_to

    bridge_config = bridge_settings(club, monkeypatch, outbox=tmp_path / "outbox.db")
    for key, value in env_file(DEPLOY / "serve.env").items():
        monkeypatch.setenv(key, value)
    serve = load_serve_settings(
        DEPLOY / "serve.toml", mqtt=f"mqtts://localhost:{club.tls_port}", mqtt_ca_file=club.ca,
        db=f"sqlite:///{tmp_path / 'records.db'}",
    )  # fmt: skip
    assert serve.broker == ("localhost", club.tls_port, True)
    store = Store(serve.database_url)
    store.migrate()
    service = Service(serve, store)
    running = asyncio.create_task(service.run())
    try:
        await asyncio.wait_for(service.ready.wait(), TIMEOUT)
        async with running_device(tmp_path, boot_id=0x0702) as device:
            settings = bridge_config.model_copy(update={"port": str(device.port)})
            bridge = asyncio.create_task(Bridge(settings).run())
            try:
                for message in (c.ShuffleStarted(), c.ShuffleFinished(), c.TilesLeft(56)):
                    device.emit(message)
                assert await stored_up_to(store, {"t01": (0x0702, 3)}, TIMEOUT)
            finally:
                await cancel_and_wait([bridge])
    finally:
        await cancel_and_wait([running])
        store.close()
