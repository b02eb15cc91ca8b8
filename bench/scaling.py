"""Several `mjtable serve` sharing one club's tables: the CPU each process pays.

    .venv/bin/python bench/scaling.py [--procs 1,2,3] [--tables 24] [--rate 300]
                                      [--seconds 30] [--db URL] [--mqtt URL]

On a 2-core machine, events per second cannot show what a second process adds (the
load, the broker and the database share the same cores). The CPU each process pays can:
with k processes on the same load, each should pay about 1/k of what one pays alone, and
the CPU per event should stay what it was (nothing is paid twice: no process receives,
parses or orders another's tables' events).

For each k: a fresh PostgreSQL schema and base topic; `--tables` tables, each a
`FakeBridge` (its own MQTT client, answering replay requests) with a simulated game.
The first process starts alone and stores each table's first events (so the tables are
in the records, which the share is made from); then k-1 more join (`--handover-wait 1`:
a table mid-hand moves after a second, from the records), and once every table has its
one owner, the load runs: `--rate` events/s in all, round-robin over the tables, for
`--seconds`. Each process's CPU (user + system, /proc) is read before and after; its
events are those of the tables its health lists. The run fails if any event published
is not stored exactly once.

Before the load, each process is measured idle for `--idle` seconds (the claim rounds, the
health, the keepalives): its idle CPU for as long as the load ran is given beside, and
the CPU per event beyond it.

Prints, per k, each process's tables, events, CPU seconds and CPU per event, and the
busiest process's CPU as a share of one process's alone (aim: about 1/k). Beside it
(`--no-share-alone` to skip), one process alone on one member's share (a k-th of the
tables at a k-th of the rate): a member that pays what that process pays pays nothing
for the others' tables, and what it pays beyond 1/k of one alone is what a lighter load
costs an event in any process: each comes after a longer sleep, which on a virtual machine
costs the thread more (`bench/wake_cost.py` measures that alone).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.service.cpu import cpu_seconds, read  # noqa: E402
from firmware_bridge.messages import Event  # noqa: E402
from table_service.store import Store  # noqa: E402
from table_sim.broker import free_port  # noqa: E402
from table_sim.fakebridge import FakeBridge, retable  # noqa: E402
from table_sim.recording import record_game  # noqa: E402
from table_sim.service_end import scratch_schema  # noqa: E402

WARM_UP = 12  # each table's first events, stored before the others join


@dataclass
class Process:
    """One `mjtable serve` of the run."""

    proc: subprocess.Popen[bytes]
    port: int

    def health(self) -> dict[str, Any]:
        url = f"http://127.0.0.1:{self.port}/api/health"
        with urllib.request.urlopen(url, timeout=5) as response:
            return dict(json.loads(response.read()))

    def cpu(self) -> float:
        return cpu_seconds(read(f"/proc/{self.proc.pid}/stat"))


async def start(mqtt: str, db: str, base: str, folder: Path) -> Process:
    port = free_port()
    args = [sys.executable, "-m", "mjtable", "serve", "--mqtt", mqtt, "--db", db,
            "--base-topic", base, "--client-id", base, "--port", str(port),
            "--data-dir", str(folder), "--handover-wait", "1", "--leave-wait", "0",
            "--log-level", "WARNING"]  # fmt: skip
    log = (folder / f"serve-{port}.log").open("ab")
    process = Process(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log), port)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.proc.poll() is not None:
            raise RuntimeError(f"serve exited; see {folder}")
        try:
            await asyncio.to_thread(process.health)
            return process
        except OSError:
            await asyncio.sleep(0.2)
    raise RuntimeError("serve did not answer in 60 s")


def games(tables: list[str], per_table: int, seed: int) -> dict[str, list[Event]]:
    """Each table's events: simulated hands until there are `per_table`."""
    out = {}
    for i, table in enumerate(tables):
        hands = 2
        while True:
            events = [e for h in record_game(seed + i, hands) for e in h.events]
            if len(events) >= per_table or hands > 40:
                break
            hands += 2
        out[table] = retable(events[:per_table], table)
    return out


async def until(check: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not await check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"not within {seconds:.0f} s: {what}")
        await asyncio.sleep(0.3)


async def one_k(args: argparse.Namespace, k: int, folder: Path) -> dict[str, Any]:
    tables = [f"c{i:02d}" for i in range(1, args.tables + 1)]
    per_table = WARM_UP + -(-args.rate * args.seconds // args.tables)
    events = games(tables, per_table, args.seed)
    base = f"scale-{uuid.uuid4().hex[:8]}"
    processes: list[Process] = []
    bridges = {t: FakeBridge(args.mqtt, base, t) for t in tables}
    with scratch_schema(args.db, f"mjt_bench_scale_{uuid.uuid4().hex[:8]}") as url:
        store = Store(url)

        async def stored(upto: int) -> bool:
            keys = await asyncio.to_thread(lambda: [store.last_event_key(t) for t in tables])
            return all(
                key == (events[t][upto - 1].boot_id, events[t][upto - 1].seq)
                for t, key in zip(tables, keys, strict=True)
            )

        try:
            for bridge in bridges.values():
                await bridge.__aenter__()
            processes.append(await start(args.mqtt, url, base, folder))
            for table in tables:
                await bridges[table].publish(events[table][:WARM_UP])
            await until(lambda: stored(WARM_UP), 60, "the warm-up stored")
            for _ in range(k - 1):
                processes.append(await start(args.mqtt, url, base, folder))

            async def shared() -> bool:
                healths = await asyncio.gather(*(asyncio.to_thread(p.health) for p in processes))
                owners = [t["table"] for h in healths for t in h["followed"]]
                return sorted(owners) == tables and all(
                    h["members"]["members"] == list(range(k)) and not h["members"]["handing_on"]
                    for h in healths
                )

            await until(shared, 90, "every table with one owner")
            healths = [p.health() for p in processes]
            owned = [[t["table"] for t in h["followed"]] for h in healths]
            quiet = [p.cpu() for p in processes]  # idle first: what a process costs unloaded
            await asyncio.sleep(args.idle)
            before = [p.cpu() for p in processes]
            idle = [b - q for b, q in zip(before, quiet, strict=True)]
            began = time.monotonic()
            await paced(bridges, events, args.rate)
            published = time.monotonic() - began
            await until(lambda: stored(per_table), 120, "everything published stored")
            after = [p.cpu() for p in processes]
            stored_events = sum(1 for t in tables for e in store.entries(t) if e.kind == "event")
            if stored_events != per_table * len(tables):
                raise RuntimeError(
                    f"{stored_events} events stored of {per_table * len(tables)} published"
                )
        finally:
            for process in processes:
                process.proc.send_signal(signal.SIGTERM)
            for process in processes:
                try:
                    process.proc.wait(20)
                except subprocess.TimeoutExpired:
                    process.proc.kill()
            for bridge in bridges.values():
                await bridge.__aexit__(None, None, None)
            store.close()
    window = per_table - WARM_UP
    rows = []
    for i, mine in enumerate(owned):
        cpu = after[i] - before[i]
        unloaded = idle[i] * published / args.idle  # the same process idle, as long
        rows.append(
            {
                "member": i,
                "tables": len(mine),
                "events": window * len(mine),
                "cpu_s": round(cpu, 2),
                "cpu_ms_per_event": round(1000 * cpu / max(window * len(mine), 1), 3),
                "idle_cpu_s": round(unloaded, 2),
                "load_cpu_ms_per_event": round(
                    1000 * (cpu - unloaded) / max(window * len(mine), 1), 3
                ),
            }
        )
    return {
        "processes": k,
        "rate": round(window * len(tables) / published),
        "seconds": round(published, 1),
        "stored_events": stored_events,
        "members": rows,
        "cpu_total_s": round(sum(r["cpu_s"] for r in rows), 2),
    }


async def paced(bridges: dict[str, FakeBridge], events: dict[str, list[Event]], rate: int) -> None:
    """Every table's events after the warm-up, round-robin, `rate` a second in all."""
    order = [
        (table, event)
        for i in range(WARM_UP, max(len(e) for e in events.values()))
        for table, evs in events.items()
        if i < len(evs)
        for event in [evs[i]]
    ]
    began = time.monotonic()
    for n, (table, event) in enumerate(order):
        due = began + n / rate
        if due > time.monotonic():
            await asyncio.sleep(due - time.monotonic())
        await bridges[table].publish([event])


def report(runs: list[dict[str, Any]]) -> None:
    alone = next((r for r in runs if r["processes"] == 1), None)
    for run in runs:
        k = run["processes"]
        print(
            f"\n{k} process{'es' if k > 1 else ''}: {run['rate']} events/s for {run['seconds']} s"
        )
        print("| member | tables | events | CPU s | CPU ms/event | idle CPU s | beyond idle |")
        print("|---|---|---|---|---|---|---|")
        for row in run["members"]:
            print(
                f"| {row['member']} | {row['tables']} | {row['events']:,} | {row['cpu_s']} | "
                f"{row['cpu_ms_per_event']} | {row['idle_cpu_s']} | "
                f"{row['load_cpu_ms_per_event']} |"
            )
        busiest = max(r["cpu_s"] for r in run["members"])
        line = f"busiest process {busiest} CPU s; all together {run['cpu_total_s']} CPU s"
        if alone is not None and alone["cpu_total_s"] > 0:
            line += (
                f"; the busiest pays {busiest / alone['cpu_total_s']:.2f} of one alone "
                f"(aim about 1/{k} = {1 / k:.2f}); all together "
                f"{run['cpu_total_s'] / alone['cpu_total_s']:.2f}× one alone"
            )
        print(line)
        share = run.get("share_alone")
        if share is not None and share["cpu_total_s"] > 0:
            print(
                f"one process alone on a member's share ({share['members'][0]['tables']} "
                f"tables, {share['rate']} events/s): {share['cpu_total_s']} CPU s, "
                f"{share['members'][0]['cpu_ms_per_event']} ms/event; the busiest of {k} "
                f"pays {busiest / share['cpu_total_s']:.2f}× that (nothing paid twice: 1.00)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--procs", default="1,2,3", help="process counts, comma-separated")
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--rate", type=int, default=300, help="events/s in all")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--mqtt", default="mqtt://127.0.0.1:1883")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--idle", type=float, default=10.0, help="seconds each process is measured unloaded first"
    )
    parser.add_argument(
        "--share-alone",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="for each k > 1, also one process alone on a k-th of the tables at a k-th of "
        "the rate: what a member's share costs with no other member (nothing paid twice)",
    )
    args = parser.parse_args()
    runs = []
    for k in (int(x) for x in args.procs.split(",")):
        with tempfile.TemporaryDirectory() as folder:
            runs.append(asyncio.run(one_k(args, k, Path(folder))))
        if k > 1 and args.share_alone:  # one process on one member's share of the load
            share = argparse.Namespace(**{**vars(args), "tables": args.tables // k})
            share.rate = args.rate * share.tables // args.tables
            with tempfile.TemporaryDirectory() as folder:
                runs[-1]["share_alone"] = asyncio.run(one_k(share, 1, Path(folder)))
        print(json.dumps(runs[-1]), file=sys.stderr)
    report(runs)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
