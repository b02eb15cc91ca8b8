"""The MQTT side: availability by Last Will, retained state, events from the outbox, commands.

Reconnects for ever with backoff. Events leave the outbox only after the broker has
acknowledged them (QoS 1), so a broker outage delays events and never loses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import ssl
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import aiomqtt
from pydantic import BaseModel, ValidationError

from firmware_bridge.counters import Counters
from firmware_bridge.link import HostLink, LinkDown
from firmware_bridge.messages import (
    COMMAND,
    BridgeError,
    BridgeRequest,
    BridgeResponse,
    CommandResult,
    CountersPayload,
    LinkStatus,
    ReplayRequest,
    Topics,
)
from firmware_bridge.outbox import NotInHistory, Outbox
from firmware_bridge.protocol.catalogue import build
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait

log = logging.getLogger(__name__)
BATCH = 64
PUBLISH_TIMEOUT = 10.0


class MqttSide:
    """Owns the broker connection of one bridge."""

    def __init__(
        self,
        settings: BridgeSettings,
        outbox: Outbox,
        counters: Counters,
        link: Callable[[], HostLink],
        counters_payload: Callable[[], CountersPayload],
        link_status: Callable[[], LinkStatus],
    ) -> None:
        self.settings = settings
        self.topics = Topics(settings.base_topic, settings.table)
        self.outbox = outbox
        self.counters = counters
        self.link = link
        self.counters_payload = counters_payload
        self.link_status = link_status
        self.wake = asyncio.Event()
        self.connected = asyncio.Event()
        self._status_dirty = asyncio.Event()
        self._errors: deque[BridgeError] = deque(maxlen=200)
        self._errors_ready = asyncio.Event()

    # --- called by the link (synchronous) ---------------------------------------

    def status_changed(self, *_: object) -> None:
        self._status_dirty.set()

    def report_error(self, reason: str, detail: str, raw: bytes) -> None:
        error = BridgeError(
            table=self.settings.table,
            reason=reason,
            detail=detail,
            raw_hex=raw.hex(),
            ts=time.time(),
        )
        self._errors.append(error)
        self._errors_ready.set()

    # --- the connection ---------------------------------------------------------

    def _client_for(self) -> aiomqtt.Client:
        s = self.settings
        host, port, tls = s.broker
        user, password = s.credentials
        tls_params = None
        if tls:
            tls_params = aiomqtt.TLSParameters(
                ca_certs=str(s.mqtt_ca_file) if s.mqtt_ca_file else None,
                certfile=str(s.mqtt_cert_file) if s.mqtt_cert_file else None,
                keyfile=str(s.mqtt_key_file) if s.mqtt_key_file else None,
                cert_reqs=ssl.CERT_REQUIRED,
            )
        client = aiomqtt.Client(
            host,
            port,
            username=user,
            password=password,
            identifier=s.mqtt_client_id or f"mjtable-bridge-{s.table}",
            will=aiomqtt.Will(self.topics.availability, "offline", qos=1, retain=True),
            clean_session=True,
            keepalive=10,
            timeout=10,
            tls_params=tls_params,
            tls_insecure=s.mqtt_tls_insecure if tls else None,
        )
        # the outbox publishes a batch at once on purpose; aiomqtt warns above 10
        client.pending_calls_threshold = BATCH + 20
        return client

    async def run(self) -> None:
        """Connect, serve, reconnect with backoff; publishes `offline` on a clean stop."""
        delay = self.settings.mqtt_reconnect_min
        while True:
            try:
                async with self._client_for() as client:
                    delay = self.settings.mqtt_reconnect_min
                    try:
                        await self._serve(client)
                    finally:
                        self.connected.clear()
                        await self._say_offline(client)
            except aiomqtt.MqttError as exc:
                _reraise_if_cancelling(exc)
                self.counters.mqtt_reconnects += 1
                log.warning("mqtt %s: %s; retrying in %.1fs", self.settings.mqtt, exc, delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.mqtt_reconnect_max)

    async def _say_offline(self, client: aiomqtt.Client) -> None:
        task = asyncio.current_task()
        if task is None or not task.cancelling():
            return  # connection lost: the broker publishes the Last Will
        with contextlib.suppress(Exception):
            await client.publish(self.topics.availability, "offline", qos=1, retain=True, timeout=2)

    async def _serve(self, client: aiomqtt.Client) -> None:
        t = self.topics
        await client.publish(t.availability, "online", qos=1, retain=True, timeout=PUBLISH_TIMEOUT)
        await client.subscribe(t.set, qos=1)
        await client.subscribe(t.requests, qos=1)
        self.connected.set()
        log.info("mqtt %s: connected as %s", self.settings.mqtt, t.root)
        self._status_dirty.set()
        jobs = [self._drain, self._incoming, self._state, self._error_feed]
        tasks = [asyncio.create_task(job(client)) for job in jobs]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()  # re-raises the MqttError that ended the connection
        finally:
            await cancel_and_wait(tasks)

    async def _drain(self, client: aiomqtt.Client) -> None:
        """Publish the outbox oldest first; forget rows only once the broker has them."""
        while True:
            self.wake.clear()
            rows = self.outbox.peek(BATCH)
            if not rows:
                await self.wake.wait()
                continue
            await asyncio.gather(
                *(
                    client.publish(topic, payload, qos=1, timeout=PUBLISH_TIMEOUT)
                    for _, topic, payload in rows
                )
            )
            self.outbox.remove_through(rows[-1][0])
            self.counters.published += len(rows)
            self.counters.outbox_depth = self.outbox.depth

    async def _state(self, client: aiomqtt.Client) -> None:
        """Retained link status on change, retained counters every status_interval."""
        last_counters: dict[str, Any] | None = None
        while True:
            # asyncio.timeout, not wait_for: 3.11's wait_for can swallow a cancellation
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.settings.status_interval):
                    await self._status_dirty.wait()
            if self._status_dirty.is_set():
                self._status_dirty.clear()
                await self._publish(client, self.topics.link, self.link_status(), retain=True)
            counters = self.counters_payload()
            if counters.model_dump() != last_counters:
                last_counters = counters.model_dump()
                await self._publish(client, self.topics.counters, counters, retain=True)

    async def _error_feed(self, client: aiomqtt.Client) -> None:
        while True:
            await self._errors_ready.wait()
            self._errors_ready.clear()
            while self._errors:
                error = self._errors.popleft()
                await client.publish(self.topics.error, error.model_dump_json(), qos=0)

    async def _publish(
        self, client: aiomqtt.Client, topic: str, payload: BaseModel, retain: bool = False
    ) -> None:
        await client.publish(
            topic, payload.model_dump_json(), qos=1, retain=retain, timeout=PUBLISH_TIMEOUT
        )

    async def _incoming(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            topic = str(message.topic)
            raw = message.payload if isinstance(message.payload, bytes) else b""
            if topic == self.topics.set:
                result = self._command(raw)
                await self._publish(client, self.topics.set_response, result)
            elif topic.startswith(self.topics.root + "/bridge/request/"):
                op = topic.rsplit("/", 1)[1]
                response = self._request(op, raw)
                await self._publish(client, self.topics.response(op), response)

    def _command(self, raw: bytes) -> CommandResult:
        """Validate a …/set body and queue it on the link; never raises."""
        transaction = _transaction(raw)
        name: str | None = None
        try:
            command = COMMAND.validate_json(raw)
            name = command.command
            fields = command.model_dump(exclude={"command", "transaction"})
            self.link().send(build(command.command, fields))
        except ValidationError as exc:
            detail = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
            )
            return self._refused(name, f"invalid command: {detail}", transaction, raw)
        except (LinkDown, ValueError) as exc:
            return self._refused(name, str(exc), transaction, raw)
        return CommandResult(command=name, status="ok", transaction=transaction)

    def _refused(
        self, name: str | None, error: str, transaction: str | None, raw: bytes
    ) -> CommandResult:
        log.warning("command refused: %s", error)
        self.report_error("command", error, raw[:64])
        return CommandResult(command=name, status="error", error=error, transaction=transaction)

    def _request(self, op: str, raw: bytes) -> BridgeResponse:
        transaction = _transaction(raw)
        try:
            BridgeRequest.model_validate_json(raw or b"{}")
        except ValidationError as exc:
            return BridgeResponse(status="error", error=f"body: {exc.errors()[0]['msg']}")
        if op == "status":
            data = self.link_status().model_dump(mode="json")
        elif op == "counters":
            data = self.counters_payload().model_dump(mode="json")
        elif op == "resync":
            self.link().resync()
            data = {}
        elif op == "replay":
            try:
                request = ReplayRequest.model_validate_json(raw or b"{}")
                after = (
                    None if request.after is None else (request.after.boot_id, request.after.seq)
                )
                data = {"queued": self.outbox.replay_after(after)}
            except ValidationError as exc:
                error = f"body: {exc.errors()[0]['msg']}"
                return BridgeResponse(status="error", error=error, transaction=transaction)
            except NotInHistory as exc:
                return BridgeResponse(status="error", error=str(exc), transaction=transaction)
            self.counters.replays += 1
            self.counters.outbox_depth = self.outbox.depth
            self.wake.set()
        else:
            error = f"op: unknown bridge operation {op!r} (status, counters, resync, replay)"
            return BridgeResponse(status="error", error=error, transaction=transaction)
        return BridgeResponse(status="ok", data=data, transaction=transaction)


def _reraise_if_cancelling(exc: BaseException) -> None:
    """A disconnect error raised while we are being stopped must not restart the loop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from exc


def _transaction(raw: bytes) -> str | None:
    """The caller's transaction id, even from a body that fails validation."""
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    if isinstance(value, dict) and isinstance(value.get("transaction"), str):
        return str(value["transaction"])
    return None
