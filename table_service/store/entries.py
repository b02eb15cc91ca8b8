"""A table's log entries: what the live service appends and the fold reads back.

The store (`store.py`, SQLAlchemy 2 + Alembic):
one `Store` over SQLite (default: WAL, a file in the data directory) or PostgreSQL
(`postgresql://…`, driver psycopg 3). Everything is synchronous (the service calls it
from one writer thread per process via asyncio.to_thread); every method is one
transaction. History is append-only: nothing is ever UPDATEd or DELETEd except
`sessions.ended_at`/`ended_log_id` (set once), a session's `players` and
seats (by a "seating" entry, only before its first hand) and `tokens.revoked_at` (set once); a
referee's decision or correction is a new row.

The log: every table has one ordered log of entries, `log_id` increasing (a global
autoincrement id is fine). An entry is either a bridge event (kind "event", unique on
(table, boot_id, seq)) or a service entry (kind "session" start / "session_end" /
"correction", "seating": a seat taken before the session's first shuffle, or "fault": one
the service found in the stream itself). The game state
of a table is a fold over its entries in log order; a snapshot (a pickled TableMirror)
taken at an entry lets a restart fold only the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal, get_args

from firmware_bridge.messages import Event
from table_service.mirror.records import Record

EntryKind = Literal["event", "session", "session_end", "correction", "fault", "seating"]
ENTRY_KINDS: Final[tuple[str, ...]] = get_args(EntryKind)


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a table's log, in the order it was appended."""

    log_id: int
    table: str
    kind: EntryKind
    event: Event | None  # kind "event"
    body: dict[str, Any] | None  # kind "session" (a SessionStart body), "correction", …
    ruled: str | None = None  # as a referee's ruling made it: corrected, dropped, inserted
    session_id: int | None = None  # the session it was appended in (as the log keeps it)


@dataclass(frozen=True)
class Applied:
    """What one log entry is and what the mirror concluded from it (stored together)."""

    kind: EntryKind
    event: Event | None
    body: dict[str, Any] | None
    records: list[Record] = field(default_factory=list)
    session_id: int | None = None  # the table's open session when it was applied
