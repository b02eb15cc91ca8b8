"""The table service draining a backlog: events stored per second.

    .venv/bin/python bench/storing.py [--tables 50] [--hands 2] [--db URL] [--runs 3]
                                      [--whole]

The service's own writer (`Service._writer`: each event applied to its table's mirror,
stored with the mirror's records, then announced on the WebSocket hub and queued for
MQTT) fed a backlog already waiting: `--tables` tables' simulated games, their events
interleaved as a club's arrive, all queued at once, as after a database outage or a
restart. No broker: the intake (MQTT, ordering) is measured by `bench/service/`, and the
mirror alone by `bench/mirror.py`. One WebSocket client (a `Feed` drained as the route
drains it) listens, so the announcing costs what it costs in a club.

With `--whole`, the whole process instead: `mjtable serve` (its own process) is started
once so that its MQTT session exists, killed, the backlog published to a private
Mosquitto (which queues it for the session, up to 100,000 messages), and the service
started again: events per second from its first event stored to its last, everything
on the path (MQTT, parsing, ordering, the writer, the WebSockets' hub) paid, and nothing
else running on the machine. Needs Mosquitto.

Prints events stored per second per run, the best, and the ratio to the aim
(≥ 5,000 events/s on PostgreSQL), and the mirror alone on the same events, the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from bench.service.run import health_ok  # noqa: E402
from firmware_bridge.messages import Event  # noqa: E402
from mjtable.commands import bench_cells as cells  # noqa: E402
from table_service.mirror.mirror import TableMirror  # noqa: E402
from table_service.service.hub import Hub  # noqa: E402
from table_service.service.live import Service, _Work  # noqa: E402
from table_service.service.settings import ServeSettings  # noqa: E402
from table_service.store import Store  # noqa: E402
from table_service.store.models import Log  # noqa: E402
from table_sim.recording import record_game  # noqa: E402
from table_sim.service_end import scratch_schema  # noqa: E402

AIM = 5_000.0  # events/s stored by one process draining a backlog, PostgreSQL


def club_backlog(tables: int, hands: int, seed: int) -> list[Event]:
    """Every table's events, interleaved one by one as a club's arrive."""
    streams = []
    for n in range(tables):
        game = record_game(seed + n, hands, table=f"t{n:02d}")
        streams.append([e for hand in game for e in hand.events])
    out: list[Event] = []
    for i in range(max(len(s) for s in streams)):
        out.extend(s[i] for s in streams if i < len(s))
    return out


async def drain(url: str, events: list[Event]) -> float:
    """Events per second the writer stores, the backlog all queued before it starts."""
    store = Store(url)
    store.migrate()
    service = Service(ServeSettings(db=url, drive_table=True), store, Hub())
    for event in events:
        service._queue.put_nowait(_Work(event.table, "event", event=event))

    async def watch() -> None:  # one scoreboard on the club's channel
        async with service.hub.subscribe(None) as feed:
            while True:
                await feed.next()

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0)
    start = time.perf_counter()
    writer = asyncio.create_task(service._writer())
    while service.applied < len(events):
        await asyncio.sleep(0.01)
    took = time.perf_counter() - start
    for task in (writer, watcher):
        task.cancel()
    await asyncio.gather(writer, watcher, return_exceptions=True)
    service._pool.shutdown()
    store.close()
    return len(events) / took


def whole(url: str, events: list[Event], workdir: Path) -> float:
    """Events per second `mjtable serve` stores draining `events` queued at its broker."""
    from table_sim.broker import OwnedBroker, free_port

    broker = OwnedBroker(workdir)
    if not broker.persistent:
        raise SystemExit("--whole needs mosquitto installed")
    broker.start()
    base, port = f"bench-storing-{uuid.uuid4().hex[:6]}", free_port()
    args = [
        sys.executable, "-m", "mjtable", "serve", "--mqtt", broker.url, "--db", url,
        "--port", str(port), "--base-topic", base, "--client-id", base,
        "--backlog-max", str(2 * len(events)), "--log-level", "WARNING",
    ]  # fmt: skip
    store = Store(url)
    try:
        first = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.DEVNULL)
        while not health_ok(port):  # it answers once its MQTT session is subscribed
            time.sleep(0.1)
        first.kill()  # no clean stop: the broker keeps its session, and queues for it
        first.wait()
        asyncio.run(publish(broker.url, base, events))
        second = subprocess.Popen(args, cwd=ROOT, stderr=subprocess.DEVNULL)
        try:
            started = None
            while (count := stored(store)) < len(events):
                if started is None and count:
                    started = (time.perf_counter(), count)
                time.sleep(0.02)
            assert started is not None
            return (len(events) - started[1]) / (time.perf_counter() - started[0])
        finally:
            second.terminate()
            second.wait()
    finally:
        store.close()
        broker.stop()


def stored(store: Store) -> int:
    """Events in the log."""
    with store.engine.connect() as connection:
        query = select(func.count()).select_from(Log).where(Log.kind == "event")
        return int(connection.scalar(query) or 0)


async def publish(mqtt: str, base: str, events: list[Event]) -> None:
    host, port = mqtt.removeprefix("mqtt://").split(":")
    async with aiomqtt.Client(host, int(port), max_inflight_messages=1000) as client:
        for event in events:
            await client.publish(f"{base}/{event.table}/event", event.model_dump_json(), qos=1)


def floor(events: list[Event]) -> float:
    """The mirror alone on the same events (what storing cannot go under)."""
    mirrors: dict[str, TableMirror] = {}
    start = time.perf_counter()
    for event in events:
        mirror = mirrors.get(event.table)
        if mirror is None:
            mirror = mirrors[event.table] = TableMirror(event.table)
        mirror.apply(event)
    return len(events) / (time.perf_counter() - start)


def measure(
    tables: int, hands: int, db: str | None, runs: int, seed: int = 1, whole_process: bool = False
) -> dict[str, Any]:
    events = club_backlog(tables, hands, seed)
    rates = []
    for run in range(runs):
        with (
            tempfile.TemporaryDirectory() as folder,
            scratch_schema(
                db or f"sqlite:///{Path(folder) / 'bench.db'}", f"mjt_bench_storing{run}"
            ) as url,
        ):
            if whole_process:
                rates.append(whole(url, events, Path(folder)))
            else:
                rates.append(asyncio.run(drain(url, events)))
    return {
        "database": "PostgreSQL" if db and db.startswith("postgres") else "SQLite",
        "what": "mjtable serve, the whole process" if whole_process else "the writer",
        "tables": tables,
        "events": len(events),
        "runs": [round(r) for r in rates],
        "best": round(max(rates)),
        "ratio_to_aim": round(max(rates) / AIM, 2),
        "mirror_alone": round(floor(events)),
    }


def summary_rows(f: dict[str, Any]) -> list[cells.Row]:
    return [
        (
            f"service: {f['what']} draining a backlog, {f['database']} "
            f"({f['events']:,} events, {f['tables']} tables)",
            cells.rate(f["best"]),
            "events/s",
            f"{cells.times(f['ratio_to_aim'])} aim {cells.rate(AIM)}",
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--whole", action="store_true", help="mjtable serve through MQTT")
    args = parser.parse_args()
    got = measure(args.tables, args.hands, args.db, args.runs, whole_process=args.whole)
    print(
        f"{got['database']}, {got['what']}: {got['events']:,} events of {got['tables']} tables, "
        f"stored at {', '.join(f'{r:,}' for r in got['runs'])} events/s; "
        f"best {got['best']:,} ({got['ratio_to_aim']}× the aim of {AIM:,.0f}); "
        f"the mirror alone {got['mirror_alone']:,} events/s"
    )


if __name__ == "__main__":
    main()
