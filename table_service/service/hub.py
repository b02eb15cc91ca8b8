"""Live changes fanned out to WebSocket clients: one channel per table, and the club's.

In-process and bounded: a client too slow to keep up is not allowed to hold the
service back; its queue is cleared and it is told to fetch a fresh snapshot. A change
is made JSON text once, whoever hears it: each client costs a queue put, not a dumps.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, Final

CLUB: Final = "*"  # the channel that hears every table
# "you missed changes: fetch a snapshot" (a subscriber tells it by identity: `is RESYNC`)
RESYNC: Final[str] = json.dumps({"type": "resync"})


class Hub:
    """Publish a table's changes; subscribe to one table or to the club."""

    def __init__(self, maxsize: int = 1000) -> None:
        self.maxsize = maxsize
        self._subscribers: dict[str, set[asyncio.Queue[str]]] = {}

    def publish(self, table: str, message: dict[str, Any]) -> None:
        """Hand `message`, as JSON text made once, to every subscriber of the table and of
        the club."""
        queues = [q for channel in (table, CLUB) for q in self._subscribers.get(channel, ())]
        if not queues:
            return
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        for queue in queues:
            try:
                queue.put_nowait(text)
            except asyncio.QueueFull:
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(RESYNC)

    @contextlib.asynccontextmanager
    async def subscribe(self, table: str | None) -> AsyncIterator[asyncio.Queue[str]]:
        """A queue of the changes of `table` (None: every table), each a JSON text or
        RESYNC, while the block runs."""
        channel = CLUB if table is None else table
        queue: asyncio.Queue[str] = asyncio.Queue(self.maxsize)
        self._subscribers.setdefault(channel, set()).add(queue)
        try:
            yield queue
        finally:
            subscribers = self._subscribers[channel]
            subscribers.discard(queue)
            if not subscribers:
                del self._subscribers[channel]  # a table's channel goes with its last client

    @property
    def listeners(self) -> int:
        return sum(len(s) for s in self._subscribers.values())
