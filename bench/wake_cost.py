"""What the same piece of work costs a thread as the gaps between the pieces grow.

    .venv/bin/python bench/wake_cost.py [--gaps 0.5,3.3,10,30] [--rounds 3] [--seconds 3]
                                        [--busy N]

`bench/scaling.py` shows k processes on one load each paying more than 1/k of what one
pays alone, while one alone on a member's share pays what a member pays (nothing is paid
twice). Each of k processes sees its events k times as far apart, so this measures the
machine, not the service: one uvloop thread runs a fixed unit of the service's kind of
work (an event validated from its JSON and written back, twenty times) on a timer, one
unit every `gap` ms, and the thread's CPU time (user + system, which includes its wakes)
is divided by the units run. On bare metal the cost hardly moves with the gap; on a
virtual machine a thread woken after a sleep pays its wake and a cold cache, which is
what the ratio column shows (each gap against the shortest). `--busy N` runs N spinning
processes at nice 19 beside it (the cores never idle, as with the load of the benches).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.messages import Event  # noqa: E402
from table_sim.recording import record_game  # noqa: E402

UNIT = 20  # validations and dumps in one unit of work: ~0.1 ms on a warm core


def sample_event() -> bytes:
    """A tile drawn or discarded from a simulated hand, as a bridge publishes it."""
    events = record_game(seed=1, hands=1)[0].events
    return events[len(events) // 2].model_dump_json().encode()


def unit(payload: bytes) -> None:
    for _ in range(UNIT):
        Event.model_validate_json(payload).model_dump_json()


async def cpu_per_unit(payload: bytes, gap: float, seconds: float) -> float:
    """The thread's CPU microseconds per unit, one unit every `gap` seconds."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    units = max(20, int(seconds / (gap + 0.0001)))
    ran = 0

    def step() -> None:
        nonlocal ran
        unit(payload)
        ran += 1
        if ran >= units:
            done.set_result(None)
        else:
            loop.call_later(gap, step)

    began = time.thread_time()
    loop.call_soon(step)
    await done
    return (time.thread_time() - began) / units * 1e6


def run_loop(payload: bytes, gap: float, seconds: float) -> float:
    try:
        import uvloop
    except ImportError:  # the service falls back to asyncio's loop, and so does this
        return asyncio.run(cpu_per_unit(payload, gap, seconds))
    return uvloop.run(cpu_per_unit(payload, gap, seconds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gaps", default="0.5,3.3,10,30", help="ms between units")
    parser.add_argument("--rounds", type=int, default=3, help="runs of every gap, interleaved")
    parser.add_argument("--seconds", type=float, default=3.0, help="length of each run")
    parser.add_argument("--busy", type=int, default=0, help="spinning processes at nice 19")
    args = parser.parse_args()
    gaps = [float(g) for g in args.gaps.split(",")]
    payload = sample_event()
    spinners = [
        subprocess.Popen(["nice", "-n", "19", sys.executable, "-c", "while True: pass"])
        for _ in range(args.busy)
    ]
    try:
        figures: dict[float, list[float]] = {gap: [] for gap in gaps}
        for _ in range(args.rounds):
            for gap in gaps:
                figures[gap].append(run_loop(payload, gap / 1000, args.seconds))
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    shortest = statistics.median(figures[gaps[0]])
    print(f"one unit = {UNIT} event validations + dumps; {args.busy} spinning process(es)")
    print("| gap between units | CPU µs per unit (median of rounds) | each round | ratio |")
    print("|---|---|---|---|")
    for gap in gaps:
        median = statistics.median(figures[gap])
        rounds = ", ".join(f"{f:.0f}" for f in figures[gap])
        print(f"| {gap:g} ms | {median:.0f} | {rounds} | {median / shortest:.2f}× |")


if __name__ == "__main__":
    main()
