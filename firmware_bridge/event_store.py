"""Turns link events into their published JSON and writes them through to the outbox."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from firmware_bridge.counters import Counters
from firmware_bridge.link import LinkEvent
from firmware_bridge.messages import EVENT_BODY, INVALID_ERROR_MAX, Event, Invalid, Topics
from firmware_bridge.outbox import Outbox
from firmware_bridge.protocol.catalogue import CommandRefused, plain

log = logging.getLogger(__name__)


def to_event(table: str, item: LinkEvent, bodies: TypeAdapter[Any] = EVENT_BODY) -> Event:
    """The MQTT payload of one link event; never raises.

    A frame the catalogue refused, or a message it accepted that `bodies` (the schema)
    refuses, becomes an `invalid` body: the link acknowledges every event it stores, so
    a refusal here would make the controller resend the event forever, and an event
    left out would be a hole in the numbering.
    """
    error = item.error or ""
    if item.message is not None:
        try:
            body = bodies.validate_python({"kind": item.message.KIND, **plain(item.message)})
            return _event(table, item, body)
        except Exception as exc:  # whatever the schema's fault, the event must be stored
            error = f"{item.message.KIND}: refused by the MQTT schema: {_reason(exc)}"
            log.error("event seq %d published as invalid: %s", item.seq, error)
    error = error[:INVALID_ERROR_MAX]  # the schema's bound: a longer reason must not refuse it
    body = Invalid(type=item.frame_type, payload_hex=item.payload.hex(), error=error)
    return _event(table, item, body)


def _event(table: str, item: LinkEvent, body: Any) -> Event:
    return Event(table=table, boot_id=item.boot_id, seq=item.seq, ts=item.ts, body=body)


def _reason(exc: Exception) -> str:
    """An exception on one line; a validation error as `field: message` for each."""
    if not isinstance(exc, ValidationError):
        return f"{type(exc).__name__}: {exc}"
    lines = []
    for error in exc.errors():
        where = ".".join(map(str, error["loc"]))
        lines.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "; ".join(lines)


class OutboxEventStore:
    """The link's EventStore: JSON rows into the SQLite outbox, then wake the publisher."""

    def __init__(
        self,
        outbox: Outbox,
        topics: Topics,
        table: str,
        on_stored: Callable[[], None],
        bodies: TypeAdapter[Any] = EVENT_BODY,
        counters: Counters | None = None,
    ) -> None:
        self.outbox = outbox
        self.counters = counters
        self.topics = topics
        self.table = table
        self.on_stored = on_stored
        self.bodies = bodies

    def session(self) -> tuple[int, int] | None:
        return self.outbox.session()

    def set_session(self, boot_id: int, last_seq: int) -> None:
        self.outbox.set_session(boot_id, last_seq)

    def damage(self) -> str | None:
        return self.outbox.damage

    @property
    def durable(self) -> bool:
        return self.outbox.synchronous == "full"

    def store(self, events: Sequence[LinkEvent], boot_id: int, last_seq: int) -> None:
        rows = [
            (
                self.topics.event,
                to_event(self.table, e, self.bodies).model_dump_json(),
                e.boot_id,
                e.seq,
            )
            for e in events
        ]
        self.outbox.append(rows, boot_id, last_seq)
        if self.counters is not None:  # the controller's refusals (the bridge's own: MqttSide)
            self.counters.commands_refused += sum(
                1 for e in events if isinstance(e.message, CommandRefused)
            )
        self.on_stored()
