"""The table service's writer draining a backlog: events stored per second.

    .venv/bin/python bench/storing.py [--tables 50] [--hands 2] [--db URL] [--runs 3]

The service's own writer (`Service._writer`: each event applied to its table's mirror,
stored with the mirror's records, then announced on the WebSocket hub and queued for
MQTT) fed a backlog already waiting: `--tables` tables' simulated games, their events
interleaved as a club's arrive, all queued at once, as after a database outage or a
restart. No broker: the intake (MQTT, ordering) is measured by `bench/service/`, and the
mirror alone by `bench/mirror.py`. One WebSocket client (a `Feed` drained as the route
drains it) listens, so the announcing costs what it costs in a club.

Prints events stored per second per run, the best, and the ratio to the aim (issue 23:
≥ 5,000 events/s on PostgreSQL), and the mirror alone on the same events, the floor.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.messages import Event  # noqa: E402
from table_service.mirror.mirror import TableMirror  # noqa: E402
from table_service.service.hub import Hub  # noqa: E402
from table_service.service.live import Service, _Work  # noqa: E402
from table_service.service.settings import ServeSettings  # noqa: E402
from table_service.store import Store  # noqa: E402
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


def measure(tables: int, hands: int, db: str | None, runs: int, seed: int = 1) -> dict[str, Any]:
    events = club_backlog(tables, hands, seed)
    rates = []
    for run in range(runs):
        with (
            tempfile.TemporaryDirectory() as folder,
            scratch_schema(
                db or f"sqlite:///{Path(folder) / 'bench.db'}", f"mjt_bench_storing{run}"
            ) as url,
        ):
            rates.append(asyncio.run(drain(url, events)))
    return {
        "database": "PostgreSQL" if db and db.startswith("postgres") else "SQLite",
        "tables": tables,
        "events": len(events),
        "runs": [round(r) for r in rates],
        "best": round(max(rates)),
        "ratio_to_aim": round(max(rates) / AIM, 2),
        "mirror_alone": round(floor(events)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--hands", type=int, default=2)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: SQLite)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    got = measure(args.tables, args.hands, args.db, args.runs)
    print(
        f"{got['database']}: {got['events']:,} events of {got['tables']} tables, "
        f"stored at {', '.join(f'{r:,}' for r in got['runs'])} events/s; "
        f"best {got['best']:,} ({got['ratio_to_aim']}× the aim of {AIM:,.0f}); "
        f"the mirror alone {got['mirror_alone']:,} events/s"
    )


if __name__ == "__main__":
    main()
