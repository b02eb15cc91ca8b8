"""The far end of the loop: what a consumer receives over MQTT, checked against what was sent.

Until the table service's mirror sits at the far end, this consumer records every
event, idempotent on (table, boot_id, seq) as design.md asks of every consumer,
and the comparison says what was lost, duplicated, reordered or changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from dataclasses import dataclass, field
from typing import Any

import aiomqtt

from firmware_bridge.messages import EVENT_BODY, Event
from firmware_bridge.protocol.catalogue import Message, plain
from hil_tests.simulator.table import Sent


def body_of(message: Message) -> dict[str, Any]:
    """A sent message as the JSON body the bridge publishes for it."""
    body = EVENT_BODY.validate_python({"kind": message.KIND, **plain(message)})
    return dict(body.model_dump(mode="json"))


@dataclass
class Received:
    """One table's events by boot, in arrival order, and the redeliveries dropped."""

    by_boot: dict[int, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    keys: set[tuple[int, int]] = field(default_factory=set)
    redeliveries: int = 0

    @property
    def count(self) -> int:
        return len(self.keys)


class Recorder:
    """Subscribes to every table's events under `base` at QoS 1 with a persistent session."""

    def __init__(
        self, hostname: str, port: int, base: str = "mjtable", client_id: str = "hil"
    ) -> None:
        self.hostname = hostname
        self.port = port
        self.base = base
        self.client_id = client_id
        self.tables: dict[str, Received] = {}
        self.subscribed = asyncio.Event()
        self.arrived = asyncio.Event()

    async def run(self) -> None:
        """Receive until cancelled, reconnecting through broker restarts.

        Each message is recorded inside the client's on-message path, before its
        PUBACK goes out: aiomqtt drops the messages still in its queue when the
        connection breaks, and those the broker already counts as delivered.
        """
        recorder = self

        class RecordOnArrival(asyncio.Queue[aiomqtt.Message]):
            def put_nowait(self, item: aiomqtt.Message) -> None:
                recorder._record(bytes(item.payload))  # type: ignore[arg-type]

        while True:
            try:
                async with aiomqtt.Client(
                    self.hostname, self.port, identifier=self.client_id, clean_session=False,
                    queue_type=RecordOnArrival,
                ) as client:  # fmt: skip
                    await client.subscribe(f"{self.base}/+/event", qos=1)
                    self.subscribed.set()
                    async for _ in client.messages:  # never yields; raises when disconnected
                        pass
            except aiomqtt.MqttError:
                await asyncio.sleep(0.2)

    def _record(self, payload: bytes) -> None:
        event = Event.model_validate_json(payload)
        table = self.tables.setdefault(event.table, Received())
        key = (event.boot_id, event.seq)
        if key in table.keys:
            table.redeliveries += 1
            return
        table.keys.add(key)
        body = json.loads(event.body.model_dump_json())
        table.by_boot.setdefault(event.boot_id, []).append((event.seq, body))
        self.arrived.set()

    async def wait_for(self, counts: dict[str, int], timeout: float) -> bool:
        """Until each table has at least its count of distinct events (False on timeout)."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                while any(self.tables.get(t, Received()).count < n for t, n in counts.items()):
                    self.arrived.clear()
                    await self.arrived.wait()
                return True
        return False


@dataclass(frozen=True)
class Comparison:
    sent: int
    received: int
    lost: int
    duplicates: int
    reordered: int
    mismatched: int

    @property
    def exact(self) -> bool:
        return not (self.lost or self.duplicates or self.reordered or self.mismatched)


def compare(sent: Sent, received: Received) -> Comparison:
    """Exactly once and in order: each boot's bodies by seq must equal what was sent."""
    lost = duplicates = reordered = mismatched = 0
    for boot_id in sent.by_boot.keys() | received.by_boot.keys():
        want = [body_of(m) for m in sent.by_boot.get(boot_id, [])]
        arrivals = received.by_boot.get(boot_id, [])
        seqs = [seq for seq, _ in arrivals]
        reordered += sum(1 for a, b in itertools.pairwise(seqs) if b < a)
        got = [body for _, body in sorted(arrivals, key=lambda a: a[0])]
        lost += max(0, len(want) - len(got))
        duplicates += max(0, len(got) - len(want))
        mismatched += sum(1 for a, b in zip(want, got, strict=False) if a != b)
    return Comparison(sent.count, received.count, lost, duplicates, reordered, mismatched)
