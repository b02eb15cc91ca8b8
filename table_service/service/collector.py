"""The garbage collector kept to short walks, so no event waits behind a long one.

A full collection walks every object the collector tracks; in a service that has run a
while that is the mirrors, the hubs' caches and the store's sessions, and the walk held
the loop for up to 160 ms, dozens of times in ten minutes at 500 events/s. Objects that
survived a full collection mostly live on (a table's mirror, a page's connection), so
after each full collection its survivors are frozen (`gc.freeze`): the next one walks
only what was made since, a few milliseconds' worth.

The trade: a frozen object freed by its reference count is freed as ever, but one that
later becomes part of a cycle of garbage is not found while frozen. So every
`sweep_every` seconds everything is thawed and collected once (one long walk, at a
known time), and how many objects that reclaimed is told in `/api/health`: a number
that grows from sweep to sweep is a leak to look for.
"""

from __future__ import annotations

import asyncio
import gc
import time

from pydantic import BaseModel, Field


class Frozen(BaseModel):
    objects: int = Field(
        description="objects the collector skipped after the start or the last sweep, "
        "whichever is later (counting them walks them all, so it is done only then)"
    )
    sweeps: int = Field(description="times everything was thawed and collected once")
    last_sweep_reclaimed: int | None = Field(
        description="objects the last sweep found unreachable (garbage cycles among the "
        "frozen); None before the first"
    )
    last_sweep_ms: float | None = Field(description="how long the last sweep held the loop")


class ShortCollections:
    """While installed, each full collection's survivors are frozen; `run` sweeps."""

    def __init__(self, sweep_every: float) -> None:
        self.sweep_every = sweep_every
        self._installed = False
        self.sweeps = 0
        self.last_reclaimed: int | None = None
        self.last_ms: float | None = None
        self.counted = 0  # frozen objects as of the start or the last sweep

    def install(self) -> None:
        """Freeze what lives now, and every full collection's survivors from now on."""
        if not self._installed:
            gc.callbacks.append(self._collected)
            self._installed = True
        gc.collect()  # through the callback: what survives is frozen
        self.counted = gc.get_freeze_count()

    def remove(self) -> None:
        if self._installed:
            gc.callbacks.remove(self._collected)
            self._installed = False

    def sweep(self) -> int:
        """Thaw everything, collect once, freeze again; the objects found unreachable."""
        began = time.perf_counter()
        gc.unfreeze()
        reclaimed = gc.collect()  # the callback freezes the survivors
        self.last_ms = round((time.perf_counter() - began) * 1000, 1)
        self.last_reclaimed = reclaimed
        self.sweeps += 1
        self.counted = gc.get_freeze_count()
        return reclaimed

    def frozen(self) -> Frozen:
        """For the health, read every second: `gc.get_freeze_count` walks every frozen
        object (20 ms for 170,000), so the count is the one taken at the last sweep."""
        return Frozen(
            objects=self.counted,
            sweeps=self.sweeps,
            last_sweep_reclaimed=self.last_reclaimed,
            last_sweep_ms=self.last_ms,
        )

    async def run(self) -> None:
        """Sweep every `sweep_every` seconds (installed on entry, removed on exit)."""
        self.install()
        try:
            while True:
                await asyncio.sleep(self.sweep_every)
                self.sweep()
        finally:
            self.remove()

    @staticmethod
    def _collected(phase: str, info: dict[str, int]) -> None:
        """gc's callback: after a full collection the younger generations are empty, so
        what `freeze` moves is exactly that collection's survivors."""
        if phase == "stop" and info["generation"] == 2:
            gc.freeze()
