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

GAP_WINDOW = 1.0  # seconds a hole may stay open before a replay is asked


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

    def contiguous(self, boot_id: int) -> int:
        """The highest seq of this boot held with nothing missing before it."""
        seqs = {seq for seq, _ in self.by_boot.get(boot_id, [])}
        top = 0
        while top + 1 in seqs:
            top += 1
        return top

    def pointer(self) -> tuple[int, int] | None:
        """The last event held without a hole before it (boots in order of arrival)."""
        last: tuple[int, int] | None = None
        for boot_id, arrivals in self.by_boot.items():
            top = self.contiguous(boot_id)
            if top:
                last = (boot_id, top)
            if top < max(seq for seq, _ in arrivals):
                break  # a hole: replay from here
        return last

    def has_hole(self) -> bool:
        return any(
            self.contiguous(b) < max(s for s, _ in arrivals) for b, arrivals in self.by_boot.items()
        )


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
        self.replays_asked = 0
        self._client: aiomqtt.Client | None = None

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
                    self._client = client
                    self.subscribed.set()
                    for table in self.tables:  # whatever the broker lost while we were away
                        await self.request_replay(table)
                    watcher = asyncio.create_task(self._watch_gaps())
                    try:
                        async for _ in client.messages:  # never yields; raises on disconnect
                            pass
                    finally:
                        watcher.cancel()
            except aiomqtt.MqttError:
                self._client = None
                await asyncio.sleep(0.2)

    async def forget(self) -> None:
        """End the persistent session, so a shared broker stops queueing for us."""
        with contextlib.suppress(aiomqtt.MqttError):
            async with aiomqtt.Client(
                self.hostname, self.port, identifier=self.client_id, clean_session=True
            ):
                pass

    async def request_replay(self, table: str, after: tuple[int, int] | None = None) -> None:
        """Ask a table's bridge to publish again what follows `after` (default: our pointer)."""
        if self._client is None:
            return
        point = after if after is not None else self.tables[table].pointer()
        body = {"after": None if point is None else {"boot_id": point[0], "seq": point[1]}}
        self.replays_asked += 1
        with contextlib.suppress(aiomqtt.MqttError):
            await self._client.publish(
                f"{self.base}/{table}/bridge/request/replay", json.dumps(body), qos=1
            )

    async def _watch_gaps(self) -> None:
        """A hole that stays open past a short reorder window is asked for again."""
        while True:
            await asyncio.sleep(GAP_WINDOW)
            for table, received in list(self.tables.items()):
                if received.has_hole():
                    await self.request_replay(table)
                    await asyncio.sleep(GAP_WINDOW)

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
    late: int  # arrived after a later seq of their boot (a replay filled their gap)
    mismatched: int

    @property
    def exact(self) -> bool:
        return not (self.lost or self.duplicates or self.mismatched)


def compare(sent: Sent, received: Received) -> Comparison:
    """Exactly once and in order: each boot's bodies, by seq, must equal what was sent.

    The consumer applies a boot's events in seq order (a late one waits for its
    gap to be filled), so order is judged by seq; late arrivals are counted apart.
    """
    lost = duplicates = late = mismatched = 0
    for boot_id in sent.by_boot.keys() | received.by_boot.keys():
        want = [body_of(m) for m in sent.by_boot.get(boot_id, [])]
        arrivals = received.by_boot.get(boot_id, [])
        seqs = [seq for seq, _ in arrivals]
        late += sum(1 for a, b in itertools.pairwise(seqs) if b < a)
        by_seq = dict(arrivals)
        got = [by_seq[s] for s in sorted(by_seq)]
        holes = len(want) - len(got)
        lost += max(0, holes)
        duplicates += max(0, -holes)
        mismatched += sum(1 for a, b in zip(want, got, strict=False) if a != b)
        mismatched += sum(1 for s in by_seq if not 1 <= s <= len(want))  # a seq never sent
    return Comparison(sent.count, received.count, lost, duplicates, late, mismatched)
