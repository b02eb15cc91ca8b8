"""Turns link events into their published JSON and writes them through to the outbox."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from firmware_bridge.link import LinkEvent
from firmware_bridge.messages import EVENT_BODY, Event, Invalid, Topics
from firmware_bridge.outbox import Outbox
from firmware_bridge.protocol.catalogue import plain


def to_event(table: str, item: LinkEvent) -> Event:
    """The MQTT payload of one link event (an `invalid` body when it was refused)."""
    if item.message is None:
        body = Invalid(type=item.frame_type, payload_hex=item.payload.hex(), error=item.error or "")
    else:
        body = EVENT_BODY.validate_python({"kind": item.message.KIND, **plain(item.message)})
    return Event(table=table, boot_id=item.boot_id, seq=item.seq, ts=item.ts, body=body)


class OutboxEventStore:
    """The link's EventStore: JSON rows into the SQLite outbox, then wake the publisher."""

    def __init__(
        self, outbox: Outbox, topics: Topics, table: str, on_stored: Callable[[], None]
    ) -> None:
        self.outbox = outbox
        self.topics = topics
        self.table = table
        self.on_stored = on_stored

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
            (self.topics.event, to_event(self.table, e).model_dump_json(), e.boot_id, e.seq)
            for e in events
        ]
        self.outbox.append(rows, boot_id, last_seq)
        self.on_stored()
