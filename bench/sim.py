"""Simulated hands per second through the whole loop, one table and many in one process.

    .venv/bin/python bench/sim.py [--mqtt mqtt://127.0.0.1:1883] [--hands-one 40]
        [--hands-many 100] [--tables-many 50] [--seed 1]

Each run is `table_sim.soak.run_soak` at full speed (speed 0) with no faults:
simulator → pty → bridge (its own SQLite outbox) → MQTT broker → far-end recorder,
everything but the broker in this one process and one asyncio loop. Without --mqtt
each run starts its own broker (a private Mosquitto if installed, else amqtt).
`seconds` is the soak's own figure: from creating the first table until the far end
holds every event (plus its 0.3 s wait for late duplicates); broker start and stop
are outside it. Each run must end with no event lost, none delivered twice and none
changed, or the run is marked FAIL (and the exit status is 1).

For context the game alone is timed on the very same hands (same seeds, same
counts): `TableSim(seed, emit=lambda m: None).hands(n)` with no I/O at all, and
loop/game is the share of the game's own speed the whole loop keeps. The rules
engine and the players' strategy memoise per-suit shapes, and the same hands
replayed run up to twice as fast, so before each timed part (game or loop) those
caches are emptied and warmed on the same other hands: both start alike.
Cyclic-GC pauses are timed too (a full collection stalls the one loop every table
shares). The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import resource
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mjtable.commands.bench_cells import Row, rate, verdict  # noqa: E402
from table_sim.session import TableSim  # noqa: E402
from table_sim.soak import SoakConfig, ensure_open_files, run_soak  # noqa: E402

# per table: the pty's two ends, the bridge's own open of it, pyserial's two cancel
# pipes (4 fds), the SQLite outbox with its -wal and -shm, the MQTT socket
WARM_HANDS = 30  # hands of another seed that warm the caches before each timed part
MUST_BE_ZERO = ("events_lost", "duplicates_delivered", "mismatches")
# bridge counters worth showing when not zero: link duplicates are the controller's
# go-back-N resends (an ack later than its 0.1 s RTO), replays the far end's asks
BRIDGE_SUMS = ("duplicates", "gaps", "retransmits", "mqtt_reconnects", "replays", "published")


def shares(hands: int, tables: int) -> list[int]:
    """Hands per table, as run_soak splits them."""
    return [hands // tables + (1 if t < hands % tables else 0) for t in range(tables)]


def memo_caches() -> list[Any]:
    """The functools caches of this project's modules (pure functions, safe to empty)."""
    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in ("table_service", "table_sim", "firmware_bridge"):
            continue
        for obj in vars(module).values():
            if callable(getattr(obj, "cache_clear", None)) and hasattr(obj, "cache_info"):
                found[id(obj)] = obj
    return list(found.values())


def same_start(seed: int) -> None:
    """Empty the caches and warm them on WARM_HANDS hands no timed part plays."""
    for cached in memo_caches():
        cached.cache_clear()
    for _ in TableSim(seed + 1_000_003, emit=lambda m: None).hands(WARM_HANDS):
        pass
    gc.collect()


class GcWatch:
    """Collections and the time they took, by generation, while in the block."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self.longest = 0.0
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        generation = info["generation"]
        self.count[generation] += 1
        self.seconds[generation] += took
        self.longest = max(self.longest, took)

    def __enter__(self) -> GcWatch:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self._callback)

    def figures(self) -> dict[str, Any]:
        return {
            "collections": self.count,
            "seconds": round(sum(self.seconds), 3),
            "full_seconds": round(self.seconds[2], 3),
            "longest_ms": round(self.longest * 1000, 1),
        }


def bench_game(seed: int, hands: int, tables: int) -> dict[str, float]:
    """The game alone on the hands the loop plays: table t is TableSim(seed + t)."""
    same_start(seed)
    played = events = 0
    start = time.perf_counter()
    for t, n in enumerate(shares(hands, tables)):
        for result in TableSim(seed + t, emit=lambda m: None).hands(n):
            played += 1
            events += result.events
    seconds = time.perf_counter() - start
    return {
        "hands": played,
        "events": events,  # HandResult.events: the hands' own (not the 將's seating dice)
        "seconds": round(seconds, 3),
        "hands_per_s": round(played / seconds, 2),
        "events_per_s": round(events / seconds, 1),
    }


class FdWatch:
    """Peak open file descriptors of this process, sampled from a thread."""

    def __init__(self, every: float = 0.2) -> None:
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak = max(self.peak, len(os.listdir("/proc/self/fd")))
            except OSError:
                return
            self._stop.wait(self.every)

    def __enter__(self) -> FdWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


def bench_loop(seed: int, hands: int, tables: int, mqtt: str | None) -> dict[str, Any]:
    same_start(seed)
    with (
        tempfile.TemporaryDirectory(prefix="mjtable-bench-sim-") as tmp,
        FdWatch() as fds,
        GcWatch() as gcs,
    ):
        cfg = SoakConfig(hands=hands, workdir=Path(tmp), tables=tables, seed=seed, mqtt=mqtt)
        start = time.monotonic()
        summary = asyncio.run(run_soak(cfg))
        wall = time.monotonic() - start
    bridges: Counter[str] = Counter()
    for counters in summary.pop("bridge").values():
        bridges.update({k: counters[k] for k in BRIDGE_SUMS if counters.get(k)})
    seconds = summary["seconds"]
    summary["events_per_s"] = round(summary["events"] / seconds, 1) if seconds else None
    summary["wall_seconds"] = round(wall, 2)  # with broker start/stop and teardown
    summary["bridge_totals"] = dict(bridges)
    summary["peak_open_fds"] = fds.peak
    summary["gc"] = gcs.figures()
    summary["ok"] = all(summary[k] == 0 for k in MUST_BE_ZERO) and summary["hands"] == hands
    return summary


def open_files_for(tables: int) -> int:
    """Raise the soft open-file limit if `tables` need more (the soak's own guard)."""
    try:
        ensure_open_files(tables)
    except RuntimeError as exc:
        sys.exit(str(exc))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def measure(
    mqtt: str | None = None,
    hands_one: int = 40,
    hands_many: int = 100,
    tables_many: int = 50,
    seed: int = 1,
) -> dict[str, Any]:
    """The loop and the game alone at one table and at `tables_many` (for `main` and for
    `mjtable bench`): the dict `main` prints as its JSON line."""
    fd_limit = open_files_for(max(1, tables_many))
    runs: list[dict[str, Any]] = []
    for tables, hands in ((1, hands_one), (tables_many, hands_many)):
        game = bench_game(seed, hands, tables)
        loop = bench_loop(seed, hands, tables, mqtt)
        ratio = round(loop["hands_per_s"] / game["hands_per_s"], 4) if loop["hands_per_s"] else 0.0
        runs.append(
            {"tables": tables, "hands": hands, "loop": loop, "game": game, "loop_over_game": ratio}
        )
    return {
        "seed": seed,
        "broker": runs[0]["loop"]["broker"],
        "open_file_limit": fd_limit,
        "runs": runs,
        "ok": all(run["loop"]["ok"] for run in runs),
    }


# --- its rows in `mjtable bench`'s table ------------------------------------------------


def summary_rows(f: dict[str, Any]) -> list[Row]:
    rows: list[Row] = []
    for run in f["runs"]:
        loop = run["loop"]
        tables = f"{run['tables']} table{'s' if run['tables'] > 1 else ''}"
        rows.append(
            (
                f"whole loop, {tables}: sim → pty → bridge → MQTT → far end ({loop['hands']} hands,"
                f" {loop['events']:,} events)",
                rate(loop["events_per_s"] or 0),
                "events/s",
                f"loop/game {run['loop_over_game']:.2f}; lost/dup/changed"
                f" {loop['events_lost']}/{loop['duplicates_delivered']}/{loop['mismatches']}:"
                f" {verdict(loop['ok'])}",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mqtt", help="an external broker URL (default: a private one per run)")
    parser.add_argument("--hands-one", type=int, default=40, help="hands at one table")
    parser.add_argument("--hands-many", type=int, default=100, help="hands over the many tables")
    parser.add_argument("--tables-many", type=int, default=50, help="tables in the many-table run")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    fd_limit = open_files_for(max(1, args.tables_many))
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cpus, open-file limit {fd_limit}, "
        f"seed {args.seed}, speed 0, no faults"
    )
    result = measure(args.mqtt, args.hands_one, args.hands_many, args.tables_many, args.seed)
    runs = result["runs"]
    broker = runs[0]["loop"]["broker"]
    print(f"whole loop: simulator → pty → bridge → {broker} → far end, one process")
    print(
        f"{'tables':>6} {'hands':>6} {'events':>7} {'seconds':>8} {'hands/s':>8} {'events/s':>9}"
        f" {'game h/s':>9} {'loop/game':>9}  check"
    )
    failed = False
    for run in runs:
        loop, game = run["loop"], run["game"]
        failed |= not loop["ok"]
        check = "ok" if loop["ok"] else "FAIL"
        print(
            f"{run['tables']:>6} {loop['hands']:>6} {loop['events']:>7} {loop['seconds']:>8.2f}"
            f" {loop['hands_per_s']:>8.2f} {loop['events_per_s']:>9,.0f}"
            f" {game['hands_per_s']:>9.1f} {run['loop_over_game']:>9.3f}  {check}"
        )
    for run in runs:
        loop = run["loop"]
        label = f"{run['tables']} table{'s' if run['tables'] > 1 else ''}"
        if not loop["ok"]:
            zeros = ", ".join(f"{k} {loop[k]}" for k in MUST_BE_ZERO)
            print(f"FAIL ({label}): {zeros}; hands {loop['hands']} of {run['hands']}")
        link = loop["bridge_totals"]
        extra = {
            "replays asked": loop["replays_asked"],
            "redeliveries dropped": loop["redeliveries_dropped"],
            "late arrivals": loop["late_arrivals"],
            "link gaps": link.get("gaps", 0),
            "mqtt reconnects": link.get("mqtt_reconnects", 0),
        }
        print(
            f"{label}: gc {loop['gc']['seconds']:.2f} s ({loop['gc']['collections'][2]} full,"
            f" longest {loop['gc']['longest_ms']:.0f} ms); link resends seen"
            f" {link.get('duplicates', 0)} (ack later than the 0.1 s RTO); peak open fds"
            f" {loop['peak_open_fds']} of {fd_limit}; wall {loop['wall_seconds']:.1f} s"
            " with the broker"
            + "".join(f"; {k} {v}" for k, v in extra.items() if v)
            + (f"; notes: {'; '.join(loop['notes'])}" if loop["notes"] else "")
        )
    print(json.dumps(result, separators=(",", ":")))
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
