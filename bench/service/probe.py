from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from bench.service.config import HOLE_WAIT, STATE_NOISE, WAITING_FOR
from firmware_bridge.messages import Event, Topics
from table_service.live.intake_socket import BufferedClient

# --- the probe: what reaches the far side, and when --------------------------------------


def fingerprint(picture: dict[str, Any]) -> str:
    """The picture as JSON text in one spelling, keys sorted. The mirror's snapshot has
    string keys and no floats; the state is read by `read_json`, a whole float as an int,
    should a model write `2.0` where the mirror holds `2`. A picture spelt otherwise on
    either side shows in the report as `unmatched`."""
    return json.dumps(picture, separators=(",", ":"), sort_keys=True)


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def read_json(raw: str | bytes) -> Any:
    """JSON as the service sent it, a whole float read as an int (see `fingerprint`)."""
    return json.loads(raw, parse_float=_number)


@dataclass
class TableProbe:
    """One table as the probe follows it: its own mirror, events not yet seen on the WS."""

    mirror: Any
    boot: int | None = None
    seq: int = 0
    broken: bool = False
    last: str = ""  # the picture after the last event
    shown: str = ""  # the picture of the last state message matched
    pending: deque[tuple[str, float]] = field(default_factory=deque)  # (picture, ts)
    waiting: dict[str, float] = field(default_factory=dict)  # picture -> arrival
    held: dict[tuple[int, int], tuple[Event, float]] = field(default_factory=dict)
    hole_since: float = 0.0
    ts: dict[tuple[int, int], float] = field(default_factory=dict)


class Probe:
    def __init__(self) -> None:
        self.tables: dict[str, TableProbe] = {}
        self.published = 0
        self.pub: list[tuple[float, float]] = []  # (event ts, arrival - ts) on MQTT
        self.ws: list[tuple[float, float]] = []  # (event ts, latency) on the WebSocket
        self.records: list[tuple[float, float]] = []  # hand records on the WS, exact keys
        self.records_mqtt: list[tuple[float, float]] = []  # …on MQTT (…/service/hand)
        self.invisible = 0
        self.repeats = 0
        self.unmatched = 0
        self.holes = 0
        self.broken = 0
        self.duplicates = 0
        self.snapshots = 0
        self.ws_messages = 0

    def _table(self, name: str) -> TableProbe:
        probe = self.tables.get(name)
        if probe is None:
            from table_service.mirror.mirror import TableMirror
            from table_service.mirror.session import SessionStart

            mirror = TableMirror(name)
            mirror.start_session(SessionStart.model_validate({"table": name}))  # as the service
            picture = fingerprint(mirror.snapshot())
            probe = self.tables[name] = TableProbe(mirror, last=picture, shown=picture)
        return probe

    def on_event(self, payload: bytes, arrival: float) -> None:
        event = Event.model_validate_json(payload)
        probe = self._table(event.table)
        if probe.broken:
            return
        if event.boot_id == probe.boot and event.seq <= probe.seq:
            self.duplicates += 1
            return
        expected = probe.seq + 1 if event.boot_id == probe.boot else 1
        if event.seq != expected:
            # The broker dropped some for the probe (a full queue): hold what follows the
            # hole until a replay (asked by the service, which lost them too) fills it.
            if not probe.held:
                self.holes += 1
                probe.hole_since = arrival
            elif arrival - probe.hole_since > HOLE_WAIT:
                probe.broken = True  # never filled: this table's latencies stop here
                self.broken += 1
                return
            if (event.boot_id, event.seq) in probe.held:
                self.duplicates += 1
            probe.held[(event.boot_id, event.seq)] = (event, arrival)
            return
        self._apply(probe, event, arrival)
        while probe.held:
            key = (probe.boot, probe.seq + 1)
            if key not in probe.held:
                break
            self._apply(probe, *probe.held.pop(key))

    def _apply(self, probe: TableProbe, event: Event, arrival: float) -> None:
        probe.boot, probe.seq = event.boot_id, event.seq
        self.published += 1
        self.pub.append((event.ts, arrival - event.ts))
        probe.ts[(event.boot_id, event.seq)] = event.ts
        probe.mirror.apply(event)
        picture = fingerprint(probe.mirror.snapshot())
        if picture == probe.last:
            self.invisible += 1
            return
        probe.last = picture
        probe.pending.append((picture, event.ts))
        shown = probe.waiting.pop(picture, None)
        if shown is not None:  # its state message came before the event reached the probe
            self._seen(probe, len(probe.pending) - 1, shown)

    def on_ws(self, raw: str | bytes, arrival: float) -> None:
        self.ws_messages += 1
        message = read_json(raw)
        kind = message.get("type")
        if kind == "state":
            self._state(message["table"], message["state"], arrival)
        elif kind == "snapshot":
            self.snapshots += 1
            states = message.get("tables") or [message.get("state")]
            for state in states:
                if state:
                    self._state(state["table"], state, arrival)
        elif kind == "hand":
            self.on_hand(message["table"], message["record"], arrival, False)

    def on_hand(self, table: str, record: dict[str, Any], arrival: float, mqtt: bool) -> None:
        """A hand record, on the WebSocket or on MQTT: its key names the event exactly."""
        probe = self.tables.get(table)
        ts = None if probe is None else probe.ts.get((record["boot_id"], record["seq"]))
        if ts is not None:
            (self.records_mqtt if mqtt else self.records).append((ts, arrival - ts))

    def _state(self, table: str, state: dict[str, Any], arrival: float) -> None:
        probe = self.tables.get(table)
        if probe is None or probe.broken:
            return
        picture = fingerprint({k: v for k, v in state.items() if k not in STATE_NOISE})
        if picture == probe.shown:
            self.repeats += 1  # a bridge's availability or link state, or a batch of no change
            return
        for j, (seen, _) in enumerate(probe.pending):
            if seen == picture:
                self._seen(probe, j, arrival)
                return
        probe.waiting.setdefault(picture, arrival)

    def _seen(self, probe: TableProbe, j: int, arrival: float) -> None:
        """Events 0..j of the pending are on the WebSocket now."""
        for _ in range(j + 1):
            picture, ts = probe.pending.popleft()
            self.ws.append((ts, arrival - ts))
        probe.shown = picture

    def expire(self, now: float) -> None:
        for probe in self.tables.values():
            for picture, arrival in list(probe.waiting.items()):
                if now - arrival > WAITING_FOR:
                    del probe.waiting[picture]
                    self.unmatched += 1

    def unseen(self) -> list[float]:
        return [ts for p in self.tables.values() if not p.broken for _, ts in p.pending]


async def subscribe(probe: Probe, url: str, base: str, subscribed: asyncio.Event) -> None:
    parts = urlsplit(url)
    async with BufferedClient(  # the service's own intake client: a probe as cheap as it
        parts.hostname or "127.0.0.1", parts.port or 1883, identifier=f"{base}-probe",
        clean_session=True,
    ) as client:  # fmt: skip
        every = Topics(base, "+")
        await client.subscribe(every.event, qos=1)
        await client.subscribe(every.service("hand"), qos=1)
        subscribed.set()
        async for message in client.messages:
            arrival = time.time()
            raw = message.payload
            payload = raw if isinstance(raw, bytes) else str(raw).encode()
            if message.topic.matches(every.event):
                probe.on_event(payload, arrival)
            else:
                table = every.table_in(message.topic.value)
                probe.on_hand(table, json.loads(payload), arrival, True)


async def watch(probe: Probe, port: int, deflate: bool, connected: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    async with connect(
        f"ws://127.0.0.1:{port}/api/ws", max_size=None, ping_interval=None,
        compression="deflate" if deflate else None,
    ) as ws:  # fmt: skip
        connected.set()
        async for raw in ws:
            probe.on_ws(raw, time.time())
