"""A referee's ruling: how long re-deriving a session takes.

    .venv/bin/python bench/rulings.py [--hands 100] [--seed 1] [--db URL]

Stores a simulated session of `--hands` hands (events and the mirror's records, as the
live service does; SQLite in a temporary folder unless --db names a PostgreSQL), then
times, each in its own transaction as the service runs them:
- a verdict overturned in hand 3: hands 3 to the end derived again;
- the same verdict's undo;
- `mjtable db refold` of the whole table (every hand derived again).
The aim: a session of 100 hands re-derived in under a second. Prints the
figures and their ratio to the aim.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from table_service.mirror.fold import fold  # noqa: E402
from table_service.mirror.mirror import TableMirror  # noqa: E402
from table_service.mirror.records import HandRecord, Violation  # noqa: E402
from table_service.mirror.session import SessionStart  # noqa: E402
from table_service.store import Applied, Store  # noqa: E402
from table_sim.recording import record_game  # noqa: E402
from table_sim.service_end import scratch_schema  # noqa: E402
from table_sim.violations import Violations  # noqa: E402

AIM_SECONDS = 1.0
TABLE = "bench"


def store_session(store: Store, hands: int, seed: int) -> tuple[int, int]:
    """A session of `hands` simulated hands appended as the service appends them (batches
    of 512); its id and its events' count."""
    game = record_game(seed, hands, violations=Violations(0.02))
    session = SessionStart(table=TABLE)
    store.append(TABLE, [Applied("session", None, session.model_dump(mode="json"))])
    opened = store.open_session(TABLE)
    assert opened is not None
    mirror = TableMirror(TABLE, session)
    events = [e.model_copy(update={"table": TABLE}) for hand in game for e in hand.events]
    batch: list[Applied] = []
    for event in events:
        batch.append(Applied("event", event, None, mirror.apply(event), opened.id))
        if len(batch) == 512:
            store.append(TABLE, batch)
            batch = []
    store.append(TABLE, batch)
    return opened.id, len(events)


def measure(hands: int = 100, seed: int = 1, db: str | None = None) -> dict[str, Any]:
    """The seconds each re-derivation took, and the session's size."""
    with (
        tempfile.TemporaryDirectory() as folder,
        scratch_schema(db or f"sqlite:///{Path(folder) / 'bench.db'}", "mjt_bench_rulings") as url,
    ):
        store = Store(url)
        try:
            store.migrate()
            session_id, events = store_session(store, hands, seed)
            stored = store.hands(TABLE, session_id, None, None)
            third = sorted(stored, key=lambda h: h.id)[min(2, len(stored) - 1)]
            flagged = [v for v in store.violations(TABLE) if v.seq <= third.seq]
            target = flagged[-1] if flagged else store.violations(TABLE)[0]
            verdict = {"kind": "verdict", "boot_id": target.boot_id, "seq": target.seq,
                       "seat": target.seat, "code": target.code, "decision": "overturn",
                       "reason": "bench"}  # fmt: skip
            start = time.perf_counter()
            ruling_id, done = store.rule(
                TABLE, Applied("correction", None, verdict, [], session_id)
            )
            overturn = time.perf_counter() - start
            undo = {"kind": "undo", "ruling": ruling_id, "reason": "bench"}
            start = time.perf_counter()
            store.rule(TABLE, Applied("correction", None, undo, [], session_id))
            undone = time.perf_counter() - start
            start = time.perf_counter()
            store.refold(TABLE)
            refold = time.perf_counter() - start
            floor = fold_in_memory(store)
            backend = store.engine.url.get_backend_name()
        finally:
            store.close()
    derived = sum(1 for r in done.records if isinstance(r, HandRecord))
    return {
        "db": backend,
        "hands": len(stored),
        "events": events,
        "violations_at": sum(1 for r in done.records if isinstance(r, Violation)),
        "hands_rederived": derived,
        "overturn_s": overturn,
        "undo_s": undone,
        "refold_s": refold,
        "fold_s": floor,
    }


def fold_in_memory(store: Store) -> float:
    """The floor: the seconds the mirror alone takes to fold the table's whole log, read
    into memory first (no database), so a busy machine shows in both figures."""
    entries = list(store.entries(TABLE))
    rulings = store.rulings(TABLE)
    mirror = TableMirror(TABLE)
    start = time.perf_counter()
    for entry in entries:
        fold(mirror, entry.kind, entry.event, entry.body, rulings, entry.log_id)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="a PostgreSQL URL (default: SQLite in a temporary folder)")
    opts = parser.parse_args()
    f = measure(opts.hands, opts.seed, opts.db)
    print(f"{f['db']}: a session of {f['hands']} hands, {f['events']:,} events")
    for label, key, what in (
        ("a verdict overturned in hand 3", "overturn_s", f"{f['hands_rederived']} hands"),
        ("its undo", "undo_s", "the same hands"),
        ("db refold of the whole table", "refold_s", f"{f['hands']} hands"),
    ):
        seconds = f[key]
        print(f"  {label:<34} {seconds * 1000:8.0f} ms  ({what}; "
              f"{AIM_SECONDS / seconds:.1f}x within the aim of {AIM_SECONDS:.0f} s)")  # fmt: skip
    floor = f["fold_s"]
    print(f"  {'the mirror alone, in memory':<34} {floor * 1000:8.0f} ms  (the whole log; "
          f"the refold is {f['refold_s'] / floor:.1f}x this floor)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
