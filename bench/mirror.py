"""The game mirror's speed: events per second judged, in-process and through `mjtable replay`.

    .venv/bin/python bench/mirror.py [--hands 1000] [--seed 1] [--violations 0.02]

Records a simulated game (the bridge's events, keyed), then times:
- the mirror alone on parsed events (what the live service pays per event);
- JSON line → Event → mirror (what a replay pays in-process);
- `mjtable replay FILE` as a whole process (start-up, parsing, judging, printing).
A 50-table club sends ~500 events/s; the aims are 50,000 events/s in-process and
20,000 through `replay`. Prints the figures and their ratio to the aims.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from firmware_bridge.messages import Event
from mjtable.commands import bench_cells as cells
from table_service.mirror.mirror import TableMirror
from table_sim.recording import record_game
from table_sim.violations import Violations

AIM_IN_PROCESS = 50_000
AIM_REPLAY = 20_000


def best_of(runs: int, work: object) -> float:
    """The fastest of `runs` timings of `work()` (seconds): the least disturbed run."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times)


def measure(hands: int = 1000, seed: int = 1, violations: float = 0.02) -> dict[str, float]:
    """Events/s of the three paths, and the recorded game's size (for `main` and for
    `mjtable bench`)."""
    start = time.perf_counter()
    game = record_game(seed, hands, violations=Violations(violations))
    recorded = time.perf_counter() - start
    events = [e for hand in game for e in hand.events]
    lines = [e.model_dump_json() for e in events]

    def judge_parsed() -> None:
        mirror = TableMirror("sim")
        for event in events:
            mirror.apply(event)
        mirror.finish()

    def judge_lines() -> None:
        mirror = TableMirror("sim")
        for line in lines:
            mirror.apply(Event.model_validate_json(line))
        mirror.finish()

    parsed = len(events) / best_of(3, judge_parsed)
    from_json = len(events) / best_of(3, judge_lines)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        mjtable = Path(sys.executable).with_name("mjtable")

        def replay() -> None:
            out = subprocess.run(
                [str(mjtable), "replay", str(path)], capture_output=True, text=True, check=True
            )
            summary = json.loads(out.stdout.splitlines()[-1])
            assert summary["events"] == len(events), summary

        whole = len(events) / best_of(3, replay)
    return {
        "hands": hands,
        "events": len(events),
        "recorded_s": recorded,
        "mirror_events_per_s": parsed,
        "json_mirror_events_per_s": from_json,
        "replay_events_per_s": whole,
        "aim_in_process": AIM_IN_PROCESS,
        "aim_replay": AIM_REPLAY,
    }


# --- its rows in `mjtable bench`'s table ------------------------------------------------


def summary_rows(f: dict[str, Any]) -> list[cells.Row]:
    aim, aim_replay = f["aim_in_process"], f["aim_replay"]
    size = f"{f['hands']:,} hands, {f['events']:,} events"
    return [
        (
            f"mirror: events judged, parsed events ({size})",
            cells.rate(f["mirror_events_per_s"]),
            "events/s",
            f"{cells.times(f['mirror_events_per_s'] / aim)} aim {cells.rate(aim)}",
        ),
        (
            "mirror: JSON line → `Event` → mirror",
            cells.rate(f["json_mirror_events_per_s"]),
            "events/s",
            f"{cells.times(f['json_mirror_events_per_s'] / aim)} aim {cells.rate(aim)}",
        ),
        (
            "replay: `mjtable replay FILE`, whole process",
            cells.rate(f["replay_events_per_s"]),
            "events/s",
            f"{cells.times(f['replay_events_per_s'] / aim_replay)} aim {cells.rate(aim_replay)}",
        ),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--violations", type=float, default=0.02)
    args = ap.parse_args()

    f = measure(args.hands, args.seed, args.violations)
    print(f"recorded {args.hands} hands, {f['events']:,} events in {f['recorded_s']:.1f} s")
    parsed = f["mirror_events_per_s"]
    rows = [
        ("mirror alone (parsed events)", parsed, AIM_IN_PROCESS),
        ("JSON line → Event → mirror", f["json_mirror_events_per_s"], AIM_IN_PROCESS),
        ("`mjtable replay` whole process", f["replay_events_per_s"], AIM_REPLAY),
    ]
    print(f"{'path':34} {'events/s':>10} {'aim':>8} {'ratio':>6}")
    for name, cells.rate, aim in rows:
        print(f"{name:34} {cells.rate:>10,.0f} {aim:>8,} {cells.rate / aim:>5.1f}×")
    club = 500  # events/s of a 50-table club
    print(f"one core judges {parsed / club:,.0f}× a 50-table club's live stream")
    return 0


if __name__ == "__main__":
    sys.exit(main())
