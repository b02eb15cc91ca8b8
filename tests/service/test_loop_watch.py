"""The loop watch's counting (loop_watch.py): pauses by size, and which of them the garbage
collector took, so a long pause is told apart from the loop's own work."""

from __future__ import annotations

import asyncio
import gc
import sys
import threading
import time

from table_service.service.loop_watch import TICK, LoopWatch, RunQueue, cause_of


def test_each_pause_over_10_ms_is_put_down_to_what_took_most_of_it() -> None:
    # (pause, collecting, the loop's CPU time with its collections, waiting for a core)
    assert cause_of(30, 20, 25, 0) == "collector"
    assert cause_of(30, 5, 28, 0) == "loop"  # its own work, the collection apart
    assert cause_of(30, 0, 2, 25) == "core"  # runnable, the machine busy
    assert cause_of(30, 0, 2, 3, 20) == "thread"  # off a core while another thread ran
    assert cause_of(30, 0, 2, 3) == "blocked"  # off a core, no other thread running
    assert cause_of(30, 0, 2, 3, 5) == "blocked"  # another ran a little: most of it blocked
    watch = LoopWatch()
    watch.note(1.0, 30.0, "collector")
    watch.note(2.0, 12.0, "blocked")
    watch.note(3.0, 8.0, "loop")  # under 10 ms: no cause counted
    pauses = watch.pauses()
    assert pauses.over_ms == {"10": 2, "25": 1, "50": 0, "100": 0}
    assert pauses.causes == {"collector": 1, "loop": 0, "core": 0, "thread": 0, "blocked": 1}
    assert pauses.max_ms == 30.0


async def test_a_blocked_loop_and_a_busy_loop_are_told_apart() -> None:
    """A tick held by a sleep that blocks (no CPU) is 'blocked'; one held by a loop that
    computes is 'loop'."""
    watch = LoopWatch()
    task = asyncio.create_task(watch.run())
    try:
        await asyncio.sleep(0.02)
        time.sleep(0.05)
        await asyncio.sleep(0.02)
        blocked = watch.pauses().causes
        end = time.thread_time() + 0.05
        while time.thread_time() < end:
            pass
        await asyncio.sleep(0.02)
        busy = watch.pauses().causes
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert blocked["blocked"] == 1 and sum(blocked.values()) == 1
    assert busy["loop"] == 1 and sum(busy.values()) == 2


async def test_a_loop_kept_waiting_by_another_thread_holding_the_gil_is_told_apart() -> None:
    """A thread computing in Python holds the GIL for the switch interval: the loop waits
    off a core while that thread runs, which is put down to 'thread', not 'blocked'."""
    watch = LoopWatch()
    task = asyncio.create_task(watch.run())
    interval = sys.getswitchinterval()

    def compute(seconds: float) -> None:
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass

    try:
        await asyncio.sleep(0.02)
        sys.setswitchinterval(0.2)  # the thread keeps the GIL as long as it computes
        worker = threading.Thread(target=compute, args=(0.08,))
        worker.start()
        await asyncio.to_thread(worker.join)
        await asyncio.sleep(0.02)
    finally:
        sys.setswitchinterval(interval)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert watch.pauses().causes["thread"] >= 1


def test_the_run_queue_wait_of_this_thread_is_read() -> None:
    queued = RunQueue()
    try:
        first = queued()
        assert first >= 0.0 and queued() >= first
    finally:
        queued.close()
    assert queued() == 0.0  # closed: nothing told


async def test_the_collections_time_is_summed_per_generation() -> None:
    watch = LoopWatch()
    task = asyncio.create_task(watch.run())
    try:
        await asyncio.sleep(0.02)
        gc.collect()
        gc.collect()
        gc.collect(0)
        await asyncio.sleep(0.02)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    full, young = watch.pauses().gc["2"], watch.pauses().gc["0"]
    assert full.count >= 2 and young.count >= 1
    assert full.total_ms >= full.max_ms > 0
    assert watch.collected_ms >= full.total_ms - 0.05  # (total_ms is rounded)
    assert gc.callbacks.count(watch._collected) == 0  # removed when the watch stops


async def test_a_quiet_loop_is_ticked_less_often_and_a_working_one_every_5_ms() -> None:
    """Each tick of an idle process is a wake it pays for: while the loop does nothing
    else the tick stretches (to QUIET_TICK); as soon as it works, pauses are timed to TICK."""
    watch = LoopWatch()
    task = asyncio.create_task(watch.run())
    try:
        await asyncio.sleep(0.4)
        quiet_ticks = watch.ticks
        assert watch.tick > TICK
        assert quiet_ticks <= 30  # a fixed 5 ms tick: 80; stretched to QUIET_TICK: 16
        end = time.perf_counter() + 0.3
        while time.perf_counter() < end:  # a loop at work: 1 ms pieces, none a pause
            piece = time.perf_counter() + 0.001
            while time.perf_counter() < piece:
                pass
            await asyncio.sleep(0)
        working_ticks = watch.ticks - quiet_ticks
        assert watch.tick == TICK
        assert working_ticks >= 0.3 / TICK / 2  # 60 at most; half of them at the least
        await asyncio.sleep(0.4)  # quiet again: the tick long
        seen = watch.pauses().over_ms["10"]
        time.sleep(0.06)  # a pause longer than the longest tick is still seen
        await asyncio.sleep(0.05)
        assert watch.pauses().over_ms["10"] == seen + 1
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def test_the_last_minutes_longest_pause_is_kept_by_the_second() -> None:
    """The health reads it every second: a thousand small pauses in one second leave one
    entry to look through, not a thousand."""
    watch = LoopWatch()
    for i in range(1000):
        watch.note(100.0 + i / 1000, 7.0 if i == 500 else 2.0)
    assert len(watch._recent) == 1
    assert watch.pauses().last_minute_max_ms == 7.0
    watch.note(130.2, 3.0)
    assert watch.pauses().last_minute_max_ms == 7.0
    watch.note(161.5, 0.5)  # a minute on: the second 100's pauses forgotten
    assert watch.pauses().last_minute_max_ms == 3.0
    assert watch.max_ms == 7.0
