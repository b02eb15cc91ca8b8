"""The far end of the loop: what a consumer receives over MQTT, checked against what was sent.

The consumer is the table service's own (`table_service.live.consumer.Consumer`:
persistent session, redeliveries dropped on (table, boot_id, seq), replays for
holes, each table's events in order exactly once). The recorder keeps, besides,
every distinct event as it arrived, and the comparison with the simulator's ground
truth says what was lost, duplicated, reordered or changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from firmware_bridge.messages import EVENT_BODY, Event
from firmware_bridge.protocol.catalogue import Message, plain
from table_service.live.consumer import Consumer, Gap
from table_sim.table import Sent

GAP_WINDOW = 1.0  # seconds a hole may stay open before a replay is asked
GAP_TIMEOUT = 30.0  # seconds before on_event gives a hole up: the harness would rather wait


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

    def add(self, event: Event) -> bool:
        """Keep an arrival unless it is a redelivery (then count it); True if new."""
        key = (event.boot_id, event.seq)
        if key in self.keys:
            self.redeliveries += 1
            return False
        self.keys.add(key)
        body = json.loads(event.body.model_dump_json())
        self.by_boot.setdefault(event.boot_id, []).append((event.seq, body))
        return True

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
    """Subscribes to every table's events under `base` at QoS 1 with a persistent session.

    `tables` records every distinct arrival (what `compare` judges). `on_event`, if
    given, receives each table's events in order exactly once (boots in arrival
    order, each in seq order; an event after a hole waits for the replay that fills
    it): where a consumer such as the game mirror plugs in. A hole still open after
    `gap_timeout` is given up: `on_gap` gets the `Gap` in its place and delivery goes
    on past it. Both run in the MQTT client's on-message path: quick, synchronous.
    """

    def __init__(
        self,
        hostname: str,
        port: int,
        base: str = "mjtable",
        client_id: str = "hil",
        *,
        on_event: Callable[[Event], None] | None = None,
        on_gap: Callable[[Gap], None] | None = None,
        gap_timeout: float = GAP_TIMEOUT,
    ) -> None:
        self.hostname = hostname
        self.port = port
        self.base = base
        self.client_id = client_id
        self.tables: dict[str, Received] = {}
        self.arrived = asyncio.Event()
        self.consumer = Consumer(
            hostname,
            port,
            base=base,
            client_id=client_id,
            on_event=on_event,
            on_gap=on_gap,
            on_arrival=self._record,
            gap_timeout=gap_timeout,
            reorder_window=GAP_WINDOW,
        )
        self.subscribed = self.consumer.subscribed

    @property
    def replays_asked(self) -> int:
        return self.consumer.replays_asked

    async def run(self) -> None:
        """Receive until cancelled, reconnecting through broker restarts (see Consumer)."""
        await self.consumer.run()

    async def forget(self) -> None:
        """End the persistent session, so a shared broker stops queueing for us."""
        await self.consumer.forget()

    async def request_replay(self, table: str, after: tuple[int, int] | None = None) -> None:
        """Ask a table's bridge to publish again what follows `after` (default: the last
        event recorded without a hole before it; all the bridge keeps if none)."""
        received = self.tables.get(table)
        point = after if after is not None else (received.pointer() if received else None)
        await self.consumer.request_replay(table, point)

    def _record(self, event: Event) -> None:
        if self.tables.setdefault(event.table, Received()).add(event):
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
