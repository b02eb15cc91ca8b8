"""Live changes fanned out to WebSocket clients: one channel per table, and the club's.

In-process and bounded, and never the writer's rival: a change is made JSON text once,
whoever hears it, and each client's `Feed` keeps its records (a hand, a violation, a
fault) in order but only the newest state of each table. Every client's sender shares
one budget, `SENDS_PER_SECOND`, paced by `Hub.pace`: a lone scoreboard gets each change
within a millisecond, a crowd of 600 a batch every quarter second (a scoreboard needs the
newest picture, not every one between), and the crowd costs the writer the same however
fast the tables play. A client too slow even for that is told to fetch a fresh snapshot.
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
SENDS_PER_SECOND: Final = 2_400  # every client's batches together, at most, a second
RECORDS_MAX: Final = 1000  # records a client may have waiting before it is told to resync


class Feed:
    """One client's changes since its sender last took them."""

    def __init__(self, maxsize: int = RECORDS_MAX) -> None:
        self.maxsize = maxsize
        self._records: list[str] = []
        self._states: dict[str, str] = {}  # per table, its newest state; in first-seen order
        self._resync = False
        self._ready = asyncio.Event()

    def put(self, table: str, kind: str, text: str) -> None:
        if self._resync:
            return  # the snapshot to come holds this change too
        if kind == "state":
            self._states[table] = text
        elif len(self._records) >= self.maxsize:
            self._records.clear()
            self._states.clear()
            self._resync = True
        else:
            self._records.append(text)
        self._ready.set()

    def take(self) -> list[str]:
        """What is waiting, records first, then each table's newest state; [RESYNC] when
        the client fell too far behind; [] when nothing is."""
        out = [RESYNC] if self._resync else self._records + list(self._states.values())
        self._records, self._states, self._resync = [], {}, False
        self._ready.clear()
        return out

    async def next(self) -> list[str]:
        """Wait until something is waiting, then take it."""
        await self._ready.wait()
        return self.take()


class Hub:
    """Publish a table's changes; subscribe to one table or to the club."""

    def __init__(self, maxsize: int = RECORDS_MAX) -> None:
        self.maxsize = maxsize
        self._subscribers: dict[str, set[Feed]] = {}

    def publish(self, table: str, message: dict[str, Any]) -> None:
        """Hand `message`, as JSON text made once, to every subscriber of the table and of
        the club."""
        feeds = self._feeds(table)
        if not feeds:
            return
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        self._put(feeds, table, str(message.get("type", "")), text)

    def publish_text(self, table: str, kind: str, text: str) -> None:
        """`publish` for a message already made JSON text (of type `kind`)."""
        self._put(self._feeds(table), table, kind, text)

    def _feeds(self, table: str) -> list[Feed]:
        return [f for channel in (table, CLUB) for f in self._subscribers.get(channel, ())]

    @staticmethod
    def _put(feeds: list[Feed], table: str, kind: str, text: str) -> None:
        for feed in feeds:
            feed.put(table, kind, text)

    @contextlib.asynccontextmanager
    async def subscribe(self, table: str | None) -> AsyncIterator[Feed]:
        """The feed of the changes of `table` (None: every table) while the block runs."""
        channel = CLUB if table is None else table
        feed = Feed(self.maxsize)
        self._subscribers.setdefault(channel, set()).add(feed)
        try:
            yield feed
        finally:
            subscribers = self._subscribers[channel]
            subscribers.discard(feed)
            if not subscribers:
                del self._subscribers[channel]  # a table's channel goes with its last client

    @property
    def listeners(self) -> int:
        return sum(len(s) for s in self._subscribers.values())

    def pace(self) -> float:
        """Seconds a client's sender waits after a batch: its share of the budget (changes
        meanwhile wait in its feed, each table's state replaced by its newest)."""
        return self.listeners / SENDS_PER_SECOND
