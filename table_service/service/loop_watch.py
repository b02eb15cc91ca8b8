"""How long the event loop was held: every event, WebSocket and API answer of the process
waits behind the piece of work that holds it (a garbage collection, a long fold).

A tick every `TICK` seconds measures how late it woke; the lateness is a pause. Counted
by size since the start (so a reader takes the difference over any span), with the
longest since the start and the longest in the last minute, for `/api/health`; beside
them the garbage collector's own runs by generation, the usual cause of a long one.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import deque
from typing import Final

from pydantic import BaseModel, Field

TICK: Final = 0.005  # seconds between ticks (a pause is seen within a tick of its length)
OVER_MS: Final = (10, 25, 50, 100)  # the sizes pauses are counted by
MINUTE: Final = 60.0


class Collections(BaseModel):
    count: int = Field(description="collections of this generation since the start")
    max_ms: float = Field(description="the longest of them")


class LoopPauses(BaseModel):
    max_ms: float = Field(description="the longest pause since the service started")
    last_minute_max_ms: float = Field(description="the longest pause in the last minute")
    over_ms: dict[str, int] = Field(
        description="pauses longer than each size (ms) since the start, e.g. {'10': 3, ...}"
    )
    gc: dict[str, Collections] = Field(
        default_factory=dict,
        description="the collector's runs since the start per generation: count, longest ms",
    )


class LoopWatch:
    """The pauses of the running loop, measured while `run` runs."""

    def __init__(self) -> None:
        self.max_ms = 0.0
        self.over = dict.fromkeys(OVER_MS, 0)
        self._recent: deque[tuple[float, float]] = deque()  # (when, ms) of pauses ≥ 1 ms
        self.collections = {generation: (0, 0.0) for generation in range(3)}  # count, max ms
        self._collecting = 0.0

    def note(self, now: float, pause_ms: float) -> None:
        """One tick's lateness."""
        self.max_ms = max(self.max_ms, pause_ms)
        for size in OVER_MS:
            if pause_ms > size:
                self.over[size] += 1
        if pause_ms >= 1.0:
            self._recent.append((now, pause_ms))
        while self._recent and self._recent[0][0] < now - MINUTE:
            self._recent.popleft()

    def pauses(self) -> LoopPauses:
        return LoopPauses(
            max_ms=round(self.max_ms, 1),
            last_minute_max_ms=round(max((ms for _, ms in self._recent), default=0.0), 1),
            over_ms={str(size): n for size, n in self.over.items()},
            gc={
                str(generation): Collections(count=count, max_ms=round(longest, 1))
                for generation, (count, longest) in self.collections.items()
            },
        )

    def _collected(self, phase: str, info: dict[str, int]) -> None:
        """gc's callback: each collection timed (any thread's; the loop waits on the GIL)."""
        if phase == "start":
            self._collecting = time.perf_counter()
            return
        took = (time.perf_counter() - self._collecting) * 1000
        count, longest = self.collections[info["generation"]]
        self.collections[info["generation"]] = (count + 1, max(longest, took))

    async def run(self) -> None:
        gc.callbacks.append(self._collected)
        try:
            while True:
                before = time.perf_counter()
                await asyncio.sleep(TICK)
                now = time.perf_counter()
                self.note(now, max(0.0, (now - before - TICK) * 1000))
        finally:
            gc.callbacks.remove(self._collected)
