"""The soak run: N hands through the whole loop, simulator → pty → bridge → broker → far end.

Prints (via the caller) a JSON summary whose last three counts must be zero:
events lost, duplicates delivered, and mismatches with the ground truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import resource
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from firmware_bridge.bridge import Bridge
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait
from table_sim.broker import OwnedBroker
from table_sim.controller import Controller
from table_sim.faults import Faults
from table_sim.hand import HandResult
from table_sim.recorder import Received, Recorder, compare
from table_sim.service_end import ServiceEnd, StoredTally, scratch_schema
from table_sim.table import SimulatedTable
from table_sim.transports import PtyTransport
from table_sim.truth import Breach, FarEnd

DRAIN_TIMEOUT = 120.0
STAGGER = 0.02  # seconds between tables' first hands
FDS_PER_TABLE = 11  # pty ends, the bridge's open, pyserial's pipes, SQLite's three, MQTT


def ensure_open_files(tables: int) -> None:
    """Raise the soft open-file limit for this many tables, or say why it cannot be."""
    need = 64 + FDS_PER_TABLE * tables
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= need:
        return
    if hard != resource.RLIM_INFINITY and hard < need:
        raise RuntimeError(f"--tables {tables} needs {need} open files; the hard limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))


@dataclass
class SoakConfig:
    hands: int
    workdir: Path
    tables: int = 1
    faults: Faults = field(default_factory=Faults)
    seed: int = 1
    mqtt: str | None = None  # an external broker; None starts one
    speed: float = 0.0
    violations: Any = 0.0  # simulator.violations.Violations (a bare rate: every code on)
    service: bool = True  # the real table service at the far end too, its records compared
    db: str | None = None  # its database: SQLite in the workdir unless a URL is given


def boot_id_for(seed: int, table: int) -> int:
    """A controller's first boot id: distinct per table and per seed, like a board's RNG."""
    return (seed * 2654435761 + table * 40503 + 1) & 0x7FFFFFFF or 1


async def run_soak(cfg: SoakConfig) -> dict[str, Any]:
    """Play the hands and compare the far end with the ground truth."""
    ensure_open_files(cfg.tables)
    logging.getLogger("firmware_bridge").setLevel(logging.WARNING)
    broker: OwnedBroker | None = None
    notes: list[str] = []
    if cfg.mqtt is None:
        (cfg.workdir / "broker").mkdir(parents=True, exist_ok=True)
        broker = OwnedBroker(cfg.workdir / "broker")
        await asyncio.to_thread(broker.start)
    url = cfg.mqtt or (broker.url if broker else "")
    restarts_wanted = cfg.faults.broker_restart_every
    can_restart = broker is not None and broker.persistent
    if restarts_wanted and not can_restart:
        notes.append("broker restarts skipped: they need a broker this run owns with sessions")
    parts = urlsplit(url)
    run_id = uuid.uuid4().hex[:8]  # topics and sessions of this run alone, on any broker
    base = f"soak-{run_id}"
    results: dict[str, list[HandResult]] = {}
    far = FarEnd(  # the game mirror judges every table's stream as it arrives
        lambda table, n: results[table][n] if 0 <= n < len(results.get(table, [])) else None
    )
    recorder = Recorder(
        parts.hostname or "127.0.0.1",
        parts.port or 1883,
        base,
        f"{base}-far",
        on_event=far.apply,
    )
    tasks = [asyncio.create_task(recorder.run())]
    await asyncio.wait_for(recorder.subscribed.wait(), 15)
    ends = contextlib.AsyncExitStack()
    service: ServiceEnd | None = None
    if cfg.service:
        db_url = cfg.db or f"sqlite:///{cfg.workdir / 'service.db'}"
        db_url = ends.enter_context(scratch_schema(db_url, base.replace("-", "_")))
        service = await ends.enter_async_context(ServiceEnd(url, base, db_url))
    tables: list[tuple[str, SimulatedTable, Bridge]] = []
    started = time.monotonic()
    restarts = 0
    try:
        for t in range(cfg.tables):
            name = f"sim{t + 1}"
            transport = PtyTransport(cfg.workdir / f"{name}.tty")
            controller = Controller(
                transport,
                table_id=t + 1,
                boot_id=boot_id_for(cfg.seed, t),
                faults=cfg.faults.link,
                seed=cfg.seed + t,
            )
            table = SimulatedTable(
                controller,
                cfg.seed + t,
                faults=cfg.faults,
                speed=cfg.speed,
                violations=cfg.violations,
            )
            await table.start()
            settings = BridgeSettings(
                port=transport.url,
                table=name,
                mqtt=url,
                outbox=cfg.workdir / f"{name}.db",
                outbox_sync="normal",
                mqtt_client_id=f"{base}-{name}",
                base_topic=base,
                mqtt_reconnect_min=0.1,
                mqtt_reconnect_max=1.0,
                reopen_max=1.0,
            )
            bridge = Bridge(settings)
            tasks.append(asyncio.create_task(bridge.run()))
            tables.append((name, table, bridge))
            results[name] = table.results

        share = [
            cfg.hands // cfg.tables + (1 if t < cfg.hands % cfg.tables else 0)
            for t in range(cfg.tables)
        ]
        played = 0

        async def play(index: int, table: SimulatedTable, n: int) -> None:
            nonlocal played, restarts
            await asyncio.sleep(index * STAGGER)  # not every table dealing at the same instant
            for _ in range(n):
                await table.play_hand()
                gc.freeze()  # ground truth only grows: keep full collections from rescanning it
                played += 1
                if can_restart and restarts_wanted and played % restarts_wanted == 0:
                    assert broker is not None
                    await asyncio.to_thread(broker.restart)
                    restarts += 1

        await asyncio.gather(
            *(play(i, t, n) for i, ((_, t, _), n) in enumerate(zip(tables, share, strict=True)))
        )
        for _, table, _ in tables:
            await table.controller.wait_idle(DRAIN_TIMEOUT)
        complete = await _drain(recorder, tables)
        if not complete:
            notes.append("the far end stopped short of the sent count before the timeout")
        elif not await far.caught_up(
            {name: table.sent.count for name, table, _ in tables}, DRAIN_TIMEOUT
        ):
            notes.append("the far end's mirror trailed the events it held at the timeout")
        await asyncio.sleep(0.3)  # let late duplicates show themselves
        stored = None
        if service is not None and not await service.drained(_last_keys(tables), DRAIN_TIMEOUT):
            notes.append("the service stopped short of the sent events before the timeout")
        elapsed = time.monotonic() - started
        far.finish()
        if service is not None:
            truths = {name: (table.results, breaches(table)) for name, table, _ in tables}
            # the referee's word on each misread the truth knows, through the public face
            await service.rule({name: misread_rulings(t) for name, t, _ in tables})
            stored = await asyncio.to_thread(service.compare, truths)
            notes += stored.notes[:20]
        return _summary(
            cfg,
            tables,
            recorder,
            far,
            stored,
            restarts,
            elapsed,
            notes,
            url if broker is None else ("mosquitto" if broker.persistent else "amqtt"),
        )
    finally:
        await ends.aclose()
        await cancel_and_wait(tasks)
        await recorder.forget()
        for _, table, _ in tables:
            await table.stop()
        if broker is not None:
            await asyncio.to_thread(broker.stop)


async def _drain(recorder: Recorder, tables: list[tuple[str, SimulatedTable, Bridge]]) -> bool:
    """Wait for the far end to hold every event, asking replays for tails it cannot see
    (only when nothing arrived for a while: a slow far end is not a lossy one)."""
    want = {name: table.sent.count for name, table, _ in tables}
    deadline = time.monotonic() + DRAIN_TIMEOUT
    held = -1
    while time.monotonic() < deadline:
        if await recorder.wait_for(want, 5.0):
            return True
        now_held = sum(r.count for r in recorder.tables.values())
        progress, held = now_held != held, now_held
        if progress:
            continue
        for name, table, _ in tables:
            received = recorder.tables.get(name)
            for boot_id, messages in table.sent.by_boot.items():
                held = received.contiguous(boot_id) if received else 0
                if held < len(messages):
                    await recorder.request_replay(name, (boot_id, held) if held else None)
                    break
    return False


def _last_keys(tables: list[tuple[str, SimulatedTable, Bridge]]) -> dict[str, tuple[int, int]]:
    """Each table's last event sent: (its last boot, that boot's count)."""
    return {name: key for name, table, _ in tables if (key := table.sent.last_key) is not None}


def _key_of(table: SimulatedTable) -> dict[int, tuple[int, int]]:
    """Each message sent, by identity: its (boot_id, seq)."""
    return {
        id(message): (boot_id, seq)
        for boot_id, messages in table.sent.by_boot.items()
        for seq, message in enumerate(messages, 1)
    }


def breaches(table: SimulatedTable) -> list[Breach]:
    """The rule breaches the table's bots committed, keyed by the event they sent for each."""
    key_of = _key_of(table)
    found: list[Breach] = []
    for result in table.results:
        for v in result.violations:
            boot_id, seq = key_of[id(v.message)]
            also = key_of[id(v.also)] if v.also is not None else None
            since = also[1] if also is not None and also[0] == boot_id else 0
            found.append(Breach(boot_id, seq, v.seat, v.code, since))
    return found


def misread_rulings(table: SimulatedTable) -> list[dict[str, Any]]:
    """A referee's tile ruling for each draw the table's sensors misread: the event's key,
    the id it reported and the tile it was (the simulator's truth)."""
    key_of = _key_of(table)
    rulings = []
    for result in table.results:
        for message, reported, tile in result.misreads:
            boot_id, seq = key_of[id(message)]
            rulings.append(
                {
                    "kind": "tile",
                    "boot_id": boot_id,
                    "seq": seq,
                    "read": reported,
                    "was": tile,
                    "reason": "the sensor misread the draw",
                }
            )
    return rulings


def sensor_faults(table: SimulatedTable) -> list[Breach]:
    """The sensor faults injected for the mirror to see through (a re-read draw), keyed by
    their event like breaches, with the fault code the mirror owes there."""
    key_of = _key_of(table)
    found: list[Breach] = []
    for result in table.results:
        for s in result.situations:
            if s.fault is not None:
                boot_id, seq = key_of[id(s.message)]
                found.append(Breach(boot_id, seq, s.seat, s.fault))
    return found


def _summary(
    cfg: SoakConfig,
    tables: list[tuple[str, SimulatedTable, Bridge]],
    recorder: Recorder,
    far: FarEnd,
    stored: StoredTally | None,
    restarts: int,
    elapsed: float,
    notes: list[str],
    broker: str,
) -> dict[str, Any]:
    faults: Counter[str] = Counter()
    lost = duplicates = mismatched = late = redeliveries = events = hands = 0
    ends: Counter[str] = Counter()
    bridges = {}
    for name, table, bridge in tables:
        received = recorder.tables.get(name)
        result = compare(table.sent, received or Received())
        lost += result.lost
        duplicates += result.duplicates
        mismatched += result.mismatched
        late += result.late
        redeliveries += received.redeliveries if received else 0
        events += result.sent
        hands += len(table.results)
        ends.update(r.end for r in table.results)
        faults.update(table.controller.injected)
        for hand in table.results:
            faults.update(next(iter(f)) for f in hand.injected)
            faults.update(s.kind for s in hand.situations if s.fault is not None)
        bridges[name] = bridge.counters.snapshot()
    if restarts:
        faults["broker_restart"] = restarts
    tally = far.tally(
        {name: (table.results, breaches(table)) for name, table, _ in tables},
        {name: sensor_faults(table) for name, table, _ in tables},
    )
    notes += tally.notes
    return {
        "hands": hands,
        "tables": cfg.tables,
        "wins": ends["win"],
        "draws": ends["draw"],
        "events": events,
        "seconds": round(elapsed, 2),
        "hands_per_s": round(hands / elapsed, 2) if elapsed else None,
        "broker": broker,
        "seed": cfg.seed,
        "faults": dict(sorted(faults.items())),
        "redeliveries_dropped": redeliveries,
        "late_arrivals": late,
        "replays_asked": recorder.replays_asked,
        "bridge": bridges,
        "notes": notes,
        **tally.to_json(),
        "service": None if stored is None else stored.to_json(),
        "service_mismatches": 0 if stored is None else stored.service_mismatches,
        "ledger_mismatches": 0 if stored is None else stored.ledger_mismatches,
        "rulings": 0 if stored is None else stored.rulings,
        "stored_violations_missed": 0 if stored is None else stored.tally.violations_missed,
        "stored_violations_false": 0 if stored is None else stored.tally.violations_false,
        "events_lost": lost,
        "duplicates_delivered": duplicates,
        "mismatches": mismatched,
    }
