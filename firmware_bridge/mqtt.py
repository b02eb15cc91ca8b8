"""The MQTT side: availability by Last Will, retained state, events from the outbox, commands.

Reconnects for ever with backoff. Events leave the outbox only after the broker has
acknowledged them (QoS 1), so a broker outage delays events and never loses them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import socket
import sqlite3
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import aiomqtt
import paho.mqtt.client as paho
from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from firmware_bridge.counters import Counters
from firmware_bridge.link import HostLink, LinkDown, Outcome, Tag
from firmware_bridge.messages import (
    COMMAND,
    COMMAND_NAMES,
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
from firmware_bridge.rate_limit import TokenBucket
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait, last_words, stopping

log = logging.getLogger(__name__)
BATCH = 64
PUBLISH_TIMEOUT = 10.0
# The largest valid command or request is ~250 bytes; anything far bigger is refused unread.
MAX_BODY = 4096
MAX_TRANSACTION = 128
# Refusals' replies waiting for the broker; beyond this a refusal is counted, not answered,
# so a flood of bad commands cannot queue up ahead of a valid command's reply.
PENDING_REFUSALS = 400
# Refusals answered on …/set/response (the rest are counted): on average per second, and
# in one burst. A flood's cost is then its parsing, and it cannot crowd out valid replies.
ANSWER_RATE = 200.0
ANSWER_BURST = 400
# Refusals logged and put on …/bridge/error: on average per second, and in one burst.
REPORT_RATE = 2.0
REPORT_BURST = 10
# Replay requests served: on average per second, and in one burst. One request may queue
# the whole history; one over the limit is refused with the seconds to wait.
REPLAY_RATE = 2.0
REPLAY_BURST = 5


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
        replay_rate: float = REPLAY_RATE,
        replay_burst: float = REPLAY_BURST,
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
        # replies to …/set and …/bridge/request/<op>: (topic, payload, is a refusal)
        self._replies: deque[tuple[str, BaseModel, bool]] = deque()
        self._pending_refusals = 0
        self._replies_ready = asyncio.Event()
        self.clock: Callable[[], float] = time.monotonic  # the refusal rate limits' clock
        self._answers = TokenBucket(ANSWER_RATE, ANSWER_BURST)
        self._reports = TokenBucket(REPORT_RATE, REPORT_BURST)
        self._replay_requests = TokenBucket(replay_rate, replay_burst)
        # commands sent and not yet resolved: tag → (command, transaction, retries waiting)
        self._in_flight: dict[Tag, tuple[str, str | None, int]] = {}
        self._anonymous = itertools.count()

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

    def command_outcome(self, tag: Tag, outcome: Outcome, detail: str) -> None:
        """A sent command's outcome (§3.10): recorded for its transaction id, then answered."""
        entry = self._in_flight.pop(tag, None)
        if entry is None:
            return
        name, transaction, answers = entry
        if transaction is not None:
            try:
                self.outbox.finish_command(transaction, outcome, detail)
            except sqlite3.Error as exc:
                log.error("outbox: outcome of transaction %r not recorded: %s", transaction, exc)
        reply = _outcome(name, transaction, outcome, detail)
        for _ in range(answers):
            self._queue_reply(self.topics.set_response, reply)

    # --- the connection ---------------------------------------------------------

    def _client_for(self) -> aiomqtt.Client:
        s = self.settings
        host, port, _tls = s.broker
        user, password = s.credentials
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
            **s.tls_options(),
        )
        # the outbox publishes a batch at once on purpose; aiomqtt warns above 10
        client.pending_calls_threshold = BATCH + 20
        set_nodelay_on_open(client)
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
                shown = self.settings.mqtt_shown
                log.warning("mqtt %s: %s; retrying in %.1fs", shown, _reason(exc), delay)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.mqtt_reconnect_max)

    async def _say_offline(self, client: aiomqtt.Client) -> None:
        """A clean stop: the link `down` (retained, else it would say `up` for ever), then
        `offline`, in that order, so a reader of the retained topics sees the truth."""
        if not stopping():
            return  # connection lost: the broker publishes the Last Will
        with contextlib.suppress(Exception):
            down = self.link_status().model_copy(update={"state": "down", "since": time.time()})
            link = down.model_dump_json()
            await last_words(client.publish(self.topics.link, link, qos=1, retain=True, timeout=2))
        await last_words(
            client.publish(self.topics.availability, "offline", qos=1, retain=True, timeout=2)
        )

    async def _serve(self, client: aiomqtt.Client) -> None:
        t = self.topics
        await client.subscribe(t.set, qos=1)
        await client.subscribe(t.requests, qos=1)
        # `online` once requests are heard: the service asks a replay when it reads it
        await client.publish(t.availability, "online", qos=1, retain=True, timeout=PUBLISH_TIMEOUT)
        self.connected.set()
        log.info("mqtt %s: connected as %s", self.settings.mqtt_shown, t.root)
        self._status_dirty.set()
        self._replies_ready.set()  # replies left from a lost connection go out now
        jobs = [self._drain, self._incoming, self._replier, self._state, self._error_feed]
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
        """Handle each message at once; replies go out from `_replier`, never awaited here."""
        async for message in client.messages:
            self._on_message(message)

    def _on_message(self, message: aiomqtt.Message) -> None:
        topic = str(message.topic)
        raw = message.payload if isinstance(message.payload, bytes) else b""
        if topic == self.topics.set:
            reply_topic = self.topics.set_response
        elif topic.startswith(self.topics.root + "/bridge/request/"):
            op = topic.rsplit("/", 1)[1]
            reply_topic = self.topics.response(op)
        else:
            return
        try:
            if topic == self.topics.set:
                reply: CommandResult | BridgeResponse | None = self._command(raw, message.retain)
            else:
                reply = self._request(op, raw, message.retain)
        except Exception as exc:  # a bug must cost one reply, never the bridge
            log.exception("message on %s: not handled", topic)
            reply = BridgeResponse(status="error", error=f"bridge: {type(exc).__name__}")
        if reply is not None:  # None: answered with its outcome once the controller tells
            self._queue_reply(reply_topic, reply)

    def _queue_reply(self, topic: str, reply: CommandResult | BridgeResponse) -> None:
        refusal = reply.status == "error"
        if refusal:
            allowed = self._answers.allow(self.clock())
            if not allowed or self._pending_refusals >= PENDING_REFUSALS:
                self.counters.refusals_unanswered += 1
                return
            self._pending_refusals += 1
        self._replies.append((topic, reply, refusal))
        self._replies_ready.set()

    async def _replier(self, client: aiomqtt.Client) -> None:
        """Publish queued replies, a batch at a time (no PUBACK round trip per reply)."""
        while True:
            await self._replies_ready.wait()
            self._replies_ready.clear()
            while self._replies:
                batch = [self._replies[i] for i in range(min(BATCH, len(self._replies)))]
                await asyncio.gather(*(self._publish(client, t, r) for t, r, _ in batch))
                for _ in batch:
                    _, _, refusal = self._replies.popleft()
                    self._pending_refusals -= refusal

    def _command(self, raw: bytes, retained: bool = False) -> CommandResult | None:
        """Validate a …/set body and queue it on the link; never raises.

        Returns the reply now (refused, or a transaction already known), or None: the
        reply is the command's outcome, answered when the link reports it (§3.10).
        """
        name, transaction = _envelope(raw)
        if name not in COMMAND_NAMES:
            name = None
        if retained:
            error = (
                "retained: a retained command is ignored (it would run again on every "
                "reconnect); publish commands without the retain flag"
            )
            return self._refused(name, error, transaction, raw)
        if len(raw) > MAX_BODY:
            error = f"body: {len(raw)} bytes, more than the {MAX_BODY} a command may have"
            return self._refused(name, error, transaction, raw)
        try:
            command = COMMAND.validate_json(raw)
            name = command.command
            fields = command.model_dump(exclude={"command", "transaction"})
            message = build(command.command, fields)
        except ValidationError as exc:
            return self._refused(name, f"invalid command: {_detail(exc)}", transaction, raw)
        except ValueError as exc:
            return self._refused(name, str(exc), transaction, raw)
        tag: Tag = transaction if transaction is not None else ("anonymous", next(self._anonymous))
        if transaction is not None:
            known = self._known_transaction(name, transaction)
            if known is not None or transaction in self._in_flight:
                return known
            try:
                self.outbox.begin_command(transaction, name)
            except sqlite3.Error as exc:
                return self._refused(
                    name, f"outbox: transaction not recorded: {exc}", transaction, raw
                )
        self._in_flight[tag] = (name, transaction, 1)
        try:
            self.link().send(message, tag)
        except (LinkDown, ValueError) as exc:
            self._in_flight.pop(tag, None)
            reply = self._refused(name, str(exc), transaction, raw)
            if transaction is not None:
                with contextlib.suppress(sqlite3.Error):
                    self.outbox.finish_command(transaction, "error", str(exc))
            return reply
        return None

    def _known_transaction(self, name: str | None, transaction: str) -> CommandResult | None:
        """The answer to a retry: the recorded outcome, or None while it is in flight."""
        if transaction in self._in_flight:
            entry = self._in_flight[transaction]
            self._in_flight[transaction] = (entry[0], entry[1], entry[2] + 1)
            return None
        record = self.outbox.command(transaction)
        if record is None:
            return None
        command, outcome, detail = record
        if outcome is None:  # in flight when the bridge stopped: gone with the process
            outcome, detail = "unknown", "the bridge restarted before the controller answered"
            with contextlib.suppress(sqlite3.Error):
                self.outbox.finish_command(transaction, outcome, detail)
        return _outcome(command or name, transaction, outcome, detail)

    def _refused(
        self, name: str | None, error: str, transaction: str | None, raw: bytes
    ) -> CommandResult:
        self.counters.commands_rejected += 1  # ours: the controller never saw it
        if self._reports.allow(self.clock()):
            held = self._reports.take_held()
            more = f" ({held} more refused since the last report)" if held else ""
            log.warning("command refused: %s%s", error, more)
            self.report_error("command", error + more, raw[:64])
        return _outcome(name, transaction, "error", error)

    def _request(self, op: str, raw: bytes, retained: bool = False) -> BridgeResponse:
        _, transaction = _envelope(raw)
        handle = OPERATIONS.get(op)
        try:
            if retained:
                raise Refused("retained: a retained request is ignored; publish it without retain")
            if len(raw) > MAX_BODY:
                too_long = f"{len(raw)} bytes, more than the {MAX_BODY} a request may have"
                raise Refused(f"body: {too_long}")
            try:
                BridgeRequest.model_validate_json(raw or b"{}")
            except ValidationError as exc:
                raise Refused(f"body: {_detail(exc)}") from None
            if handle is None:
                raise Refused(f"op: unknown bridge operation {op!r} ({', '.join(OPERATIONS)})")
            data = handle(self, raw)
        except Refused as refused:
            self.counters.commands_rejected += 1
            return BridgeResponse(
                status="error", error=refused.error, data=refused.data, transaction=transaction
            )
        return BridgeResponse(status="ok", data=data, transaction=transaction)

    # --- the operations of …/bridge/request/{op} (OPERATIONS) -----------------------------

    def _status(self, raw: bytes) -> dict[str, Any]:
        return self.link_status().model_dump(mode="json")

    def _counters(self, raw: bytes) -> dict[str, Any]:
        return self.counters_payload().model_dump(mode="json")

    def _resync(self, raw: bytes) -> dict[str, Any]:
        self.link().resync()
        return {}

    def _replay(self, raw: bytes) -> dict[str, Any]:
        """The outbox's events after a key sent again, a few requests a second at most."""
        try:
            request = ReplayRequest.model_validate_json(raw or b"{}")
        except ValidationError as exc:
            raise Refused(f"body: {_detail(exc)}") from None
        limit = self._replay_requests
        if not limit.allow(self.clock()):
            self.counters.replays_limited += 1
            wait = limit.retry_in()
            raise Refused(
                f"rate: more than {limit.rate:g} replay requests a second (bursts of "
                f"{limit.burst:g}); ask again in {wait:.2f} s",
                {"retry_after": round(wait, 3)},
            )
        after = None if request.after is None else (request.after.boot_id, request.after.seq)
        try:
            replay = self.outbox.replay_after(after)
        except NotInHistory as exc:
            raise Refused(str(exc)) from None
        data: dict[str, Any] = {"queued": replay.queued, "already_queued": replay.already_queued}
        if replay.first_seq is not None:
            data["first_seq"] = replay.first_seq
        self.counters.replays += 1
        self.counters.outbox_depth = self.outbox.depth
        self.wake.set()
        return data


class Refused(Exception):
    """A bridge request refused: its error (`field: why`) and any data the answer carries."""

    def __init__(self, error: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(error)
        self.error = error
        self.data = data or {}


# …/bridge/request/{op}: each operation's handler, given the request's raw body.
OPERATIONS: Final[dict[str, Callable[[MqttSide, bytes], dict[str, Any]]]] = {
    "status": MqttSide._status,
    "counters": MqttSide._counters,
    "resync": MqttSide._resync,
    "replay": MqttSide._replay,
}


def _outcome(name: str | None, transaction: str | None, outcome: str, detail: str) -> CommandResult:
    """The …/set/response of an outcome: `ok` for done, else `error` with the reason."""
    if outcome == "done":
        return CommandResult(command=name, status="ok", outcome="done", transaction=transaction)
    return CommandResult(
        command=name,
        status="error",
        outcome=outcome,
        error=detail if outcome in ("error", "unknown") else f"refused by the controller: {detail}",
        reason=detail if outcome == "refused" else None,
        transaction=transaction,
    )


def _reraise_if_cancelling(exc: BaseException) -> None:
    """A disconnect error raised while we are being stopped must not restart the loop."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from exc


def _envelope(raw: bytes) -> tuple[str | None, str | None]:
    """(command, transaction) of a body, even one that fails validation; never raises.

    pydantic's parser bounds nesting (a body of 1,000 `[` is an error, not a RecursionError).
    """
    if len(raw) > MAX_BODY:
        return None, None
    try:
        value = from_json(raw)
    except ValueError:
        return None, None
    if not isinstance(value, dict):
        return None, None
    name, transaction = value.get("command"), value.get("transaction")
    if not isinstance(transaction, str) or len(transaction) > MAX_TRANSACTION:
        transaction = None
    return (name if isinstance(name, str) else None), transaction


def _detail(exc: ValidationError) -> str:
    """`field: message; …` of a validation error."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()
    )


def _reason(exc: aiomqtt.MqttError) -> str:
    """One line for a lost connection: the OS error's text when a socket error caused it."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, OSError) and cause.strerror:
        return f"connection lost ({cause.strerror})"
    return str(exc)


def set_nodelay_on_open(client: aiomqtt.Client) -> None:
    """TCP_NODELAY on the broker socket: replies and PUBACKs leave at once, not after 40 ms.

    paho leaves Nagle's algorithm on; two small writes in a row then wait for the
    broker's delayed ACK. aiomqtt owns `on_socket_open`, so wrap it.
    """
    inner = client._client  # the paho client: aiomqtt has no option for socket options
    opened = inner.on_socket_open

    def on_open(c: paho.Client, userdata: Any, sock: Any) -> None:
        with contextlib.suppress(OSError, AttributeError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if opened is not None:
            opened(c, userdata, sock)

    inner.on_socket_open = on_open
