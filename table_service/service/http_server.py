"""uvicorn's server, woken once a second instead of ten times.

uvicorn's own main loop sleeps 0.1 s between looks at whether to stop (and renews its
Date header every tenth look). On a virtual machine a wake of an idle loop costs it a few
tenths of a millisecond of CPU, more the longer it slept, and those ten wakes a second
were about a ninth of an idle service's. Here the look comes once a second, renewing the
Date header each time, and a stop (a signal or `stop()`) wakes it at once, so nothing
waits the second.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import FrameType

import uvicorn

LOOK_EVERY = 1.0  # seconds between the server's looks (the Date header's resolution)


class QuietServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._stopping = asyncio.Event()

    def stop(self) -> None:
        """End `serve()`: the connections close and it returns, as on SIGTERM."""
        self.should_exit = True
        self._stopping.set()

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        """A signal (uvicorn's handler, in the loop's thread between two bytecodes): the
        event set through the loop, which may be anywhere in its own work."""
        super().handle_exit(sig, frame)
        with contextlib.suppress(RuntimeError):  # no loop running: nothing waits on it
            asyncio.get_running_loop().call_soon_threadsafe(self._stopping.set)

    async def main_loop(self) -> None:
        while not await self.on_tick(0):  # counter 0: the Date header renewed each look
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), LOOK_EVERY)
