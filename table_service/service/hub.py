"""Live changes fanned out to WebSocket clients: one channel per table, and the club's.

In-process and bounded: a client too slow to keep up is not allowed to hold the
service back; its queue is cleared and it is told to fetch a fresh snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any, Final

CLUB: Final = "*"  # the channel that hears every table
RESYNC: Final[dict[str, Any]] = {"type": "resync"}  # "you missed changes: fetch a snapshot"


class Hub:
    """Publish a table's changes; subscribe to one table or to the club."""

    def __init__(self, maxsize: int = 1000) -> None:
        self.maxsize = maxsize
        self._subscribers: dict[str, set[asyncio.Queue[dict[str, Any]]]] = {}

    def publish(self, table: str, message: dict[str, Any]) -> None:
        for channel in (table, CLUB):
            for queue in self._subscribers.get(channel, ()):
                try:
                    queue.put_nowait(message)
                except asyncio.QueueFull:
                    while not queue.empty():
                        queue.get_nowait()
                    queue.put_nowait(RESYNC)

    @contextlib.asynccontextmanager
    async def subscribe(self, table: str | None) -> AsyncIterator[asyncio.Queue[dict[str, Any]]]:
        """A queue of the changes of `table` (None: every table) while the block runs."""
        channel = CLUB if table is None else table
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(self.maxsize)
        self._subscribers.setdefault(channel, set()).add(queue)
        try:
            yield queue
        finally:
            self._subscribers[channel].discard(queue)

    @property
    def listeners(self) -> int:
        return sum(len(s) for s in self._subscribers.values())
