"""How long the event loop was held: every event, WebSocket and API answer of the process
waits behind the piece of work that holds it (a garbage collection, a long fold).

A tick every `TICK` seconds measures how late it woke; the lateness is a pause. While
the loop does nothing else the tick doubles, up to `QUIET_TICK`: a wake of an idle
process costs 0.1 ms of CPU or more on a virtual machine (more the longer it slept:
0.3–0.8 ms after 40 ms on some), 200 of them a second were most
of what an idle service paid, and at a club's pace (50 tables, 33 events/s) stretching
them saves about a tenth of the service's CPU. A pause longer than `QUIET_TICK` is
always seen; one after a quiet spell is seen late by up to the tick it began in, which
is back to `TICK` as soon as the loop works. Counted
by size since the start (so a reader takes the difference over any span), with the
longest since the start and the longest in the last minute, for `/api/health`; beside
them the garbage collector's own runs by generation, the usual cause of a long one.

Each pause over 10 ms is also put down to what took most of it, so a long pause says
where to look: the collector (its callbacks time it), the loop's own work (the thread's
CPU time), waiting for a core while the machine is busy (the kernel's run-queue delay
of the thread, Linux's /proc/thread-self/schedstat), or else waiting off a core: while
another thread of the process ran (the process's CPU time less the loop's), most likely
for the GIL it held, or while none did, in a blocking call.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time
from collections import deque
from typing import Final, Literal

from pydantic import BaseModel, Field

TICK: Final = 0.005  # seconds between ticks while the loop works (a pause is seen within a tick)
QUIET_TICK: Final = 0.04  # the longest tick, reached by doubling while the loop is quiet
# the loop's CPU seconds over a tick under which it was quiet: a wake after 40 ms idle
# costs the thread 0.4 ms at the median, 0.8 ms at p90 on a virtual machine (at 0.5 ms,
# half the idle ticks were taken for work and the tick kept falling back to TICK)
QUIET_CPU: Final = 0.001
OVER_MS: Final = (10, 25, 50, 100)  # the sizes pauses are counted by
CAUSE_OVER_MS: Final = 10  # pauses longer than this are put down to a cause
MINUTE: Final = 60.0
SCHEDSTAT: Final = "/proc/thread-self/schedstat"  # ns on a core, ns waiting for one, slices

Cause = Literal["collector", "loop", "core", "thread", "blocked"]
CAUSES: Final[tuple[Cause, ...]] = ("collector", "loop", "core", "thread", "blocked")


class Collections(BaseModel):
    count: int = Field(description="collections of this generation since the start")
    max_ms: float = Field(description="the longest of them")
    total_ms: float = Field(
        0.0,
        description="their time together (its mean over any span: "
        "the difference of total_ms over that of count)",
    )


class LoopPauses(BaseModel):
    max_ms: float = Field(description="the longest pause since the service started")
    last_minute_max_ms: float = Field(description="the longest pause in the last minute")
    over_ms: dict[str, int] = Field(
        description="pauses longer than each size (ms) since the start, e.g. {'10': 3, ...}"
    )
    causes: dict[str, int] = Field(
        default_factory=dict,
        description="the pauses over 10 ms by what took most of each: 'collector' (garbage "
        "collection), 'loop' (the loop's own work), 'core' (waiting for a CPU core: the "
        "machine busy), 'thread' (waiting while another of the service's threads ran: most "
        "likely for the GIL it held), 'blocked' (waiting while none ran: a blocking call)",
    )
    gc: dict[str, Collections] = Field(
        default_factory=dict,
        description="the collector's runs since the start per generation: count, longest ms",
    )


def cause_of(
    pause_ms: float,
    collecting_ms: float,
    working_ms: float,
    queued_ms: float,
    others_ms: float = 0.0,
) -> Cause:
    """What took most of a pause: the collector's time counts apart from the loop's own CPU
    time (which includes it); of the time neither on a core nor waiting for one, as much
    as the process's other threads ran is put down to them, and the rest is blocked."""
    waiting = max(0.0, pause_ms - working_ms - queued_ms)
    others = min(waiting, max(0.0, others_ms))
    shares: dict[Cause, float] = {
        "collector": collecting_ms,
        "loop": max(0.0, working_ms - collecting_ms),
        "core": queued_ms,
        "thread": others,
        "blocked": waiting - others,
    }
    return max(CAUSES, key=lambda cause: shares[cause])


class LoopWatch:
    """The pauses of the running loop, measured while `run` runs."""

    def __init__(self) -> None:
        self.max_ms = 0.0
        self.over = dict.fromkeys(OVER_MS, 0)
        self.causes = dict.fromkeys(CAUSES, 0)
        # the longest pause of each second (≥ 1 ms) in the last minute: (second, ms)
        self._recent: deque[tuple[int, float]] = deque()
        # per generation: count, max ms, total ms
        self.collections = {generation: (0, 0.0, 0.0) for generation in range(3)}
        self.collected_ms = 0.0  # every collection's time together
        self._collecting = 0.0
        self.tick = TICK  # seconds to the next tick: longer while the loop is quiet
        self.ticks = 0

    def note(self, now: float, pause_ms: float, cause: Cause | None = None) -> None:
        """One tick's lateness, and (over 10 ms) what took most of it."""
        self.max_ms = max(self.max_ms, pause_ms)
        for size in OVER_MS:
            if pause_ms > size:
                self.over[size] += 1
        if pause_ms > CAUSE_OVER_MS and cause is not None:
            self.causes[cause] += 1
        if pause_ms >= 1.0:
            second = int(now)
            if self._recent and self._recent[-1][0] == second:
                pause_ms = max(pause_ms, self._recent.pop()[1])
            self._recent.append((second, pause_ms))
        while self._recent and self._recent[0][0] < now - MINUTE:
            self._recent.popleft()

    def pauses(self) -> LoopPauses:
        return LoopPauses(
            max_ms=round(self.max_ms, 1),
            last_minute_max_ms=round(max((ms for _, ms in self._recent), default=0.0), 1),
            over_ms={str(size): n for size, n in self.over.items()},
            causes=dict(self.causes),
            gc={
                str(generation): Collections(
                    count=count, max_ms=round(longest, 1), total_ms=round(total, 1)
                )
                for generation, (count, longest, total) in self.collections.items()
            },
        )

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """gc's callback: each collection timed (any thread's; the loop waits on the GIL)."""
        if phase == "start":
            self._collecting = time.perf_counter()
            return
        took = (time.perf_counter() - self._collecting) * 1000
        count, longest, total = self.collections[info["generation"]]
        self.collections[info["generation"]] = (count + 1, max(longest, took), total + took)
        self.collected_ms += took

    async def run(self) -> None:
        """Tick until cancelled: each tick a plain timer callback (a task's step and a
        future a tick added two fifths to what the wake itself costs)."""
        loop = asyncio.get_running_loop()
        gc.callbacks.append(self._collected)
        self._queued = RunQueue()  # opened here: the loop's own thread
        self._arm(loop, time.perf_counter(), time.thread_time(), time.process_time())
        try:
            await loop.create_future()  # never done: the ticks run until this is cancelled
        finally:
            self._handle.cancel()
            gc.callbacks.remove(self._collected)
            self._queued.close()

    def _arm(self, loop: asyncio.AbstractEventLoop, now: float, cpu: float, process: float) -> None:
        self._since, self._cpu, self._process = now, cpu, process
        self._collected_at = self.collected_ms
        self._waited = self._queued()
        self._handle = loop.call_later(self.tick, self._tick, loop)

    def _tick(self, loop: asyncio.AbstractEventLoop) -> None:
        now, cpu, process = time.perf_counter(), time.thread_time(), time.process_time()
        try:
            self.ticks += 1
            pause = max(0.0, (now - self._since - self.tick) * 1000)
            cause = None
            if pause > CAUSE_OVER_MS:
                cause = cause_of(
                    pause,
                    self.collected_ms - self._collected_at,
                    (cpu - self._cpu) * 1000,
                    self._queued() - self._waited,
                    ((process - self._process) - (cpu - self._cpu)) * 1000,
                )
            self.note(now, pause, cause)
            quiet = cpu - self._cpu < QUIET_CPU and pause < 1.0
            self.tick = min(self.tick * 2, QUIET_TICK) if quiet else TICK
        finally:
            self._arm(loop, now, cpu, process)


class RunQueue:
    """The time the thread that made it has waited for a core so far, in ms, when
    called (0 where the kernel does not tell it); its file is read at an offset, ~0.5 µs."""

    def __init__(self) -> None:
        try:
            self._fd: int | None = os.open(SCHEDSTAT, os.O_RDONLY)
        except OSError:
            self._fd = None

    def __call__(self) -> float:
        if self._fd is None:
            return 0.0
        with contextlib.suppress(OSError, ValueError, IndexError):
            return int(os.pread(self._fd, 64, 0).split()[1]) / 1e6
        return 0.0

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
