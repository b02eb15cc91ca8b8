"""The durable outbox: events wait here, in order, until the broker has acknowledged them.

An event is committed here before the link acknowledges it to the controller, in the
same transaction as the link's position (boot id, last seq), so a bridge restart
neither loses an acknowledged event nor asks for it again. Published events move to
a bounded history, from which a consumer that found a gap (a broker that lost
messages on a restart, or dropped them to a slow subscriber) can have them replayed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    UNIQUE (boot_id, seq)
);
CREATE TABLE IF NOT EXISTS link_session (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    boot_id INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
);
"""


Row = tuple[str, str, int, int]  # topic, payload, boot_id, seq


class NotInHistory(LookupError):
    """A replay was asked from an event the history no longer (or never) held."""


class Outbox:
    """SQLite in WAL mode; `synchronous` FULL survives power loss, NORMAL only a crash."""

    def __init__(
        self,
        path: Path | str,
        synchronous: Literal["full", "normal"] = "full",
        history: int = 100_000,
    ) -> None:
        self.path = Path(path)
        self.history = history
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(SCHEMA)
        self.depth: int = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]

    def session(self) -> tuple[int, int] | None:
        """The controller boot and the last seq stored from it, if any."""
        row = self._db.execute("SELECT boot_id, last_seq FROM link_session").fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def set_session(self, boot_id: int, last_seq: int) -> None:
        with self._tx():
            self._put_session(boot_id, last_seq)

    def append(self, rows: Sequence[Row], boot_id: int, last_seq: int) -> None:
        """Store event rows and the link position atomically and durably."""
        with self._tx():
            self._db.executemany(
                "INSERT INTO outbox (topic, payload, boot_id, seq) VALUES (?, ?, ?, ?)", rows
            )
            self._put_session(boot_id, last_seq)
        self.depth += len(rows)

    def peek(self, limit: int) -> list[tuple[int, str, str]]:
        """The oldest rows, oldest first."""
        cur = self._db.execute(
            "SELECT id, topic, payload FROM outbox ORDER BY id LIMIT ?", (limit,)
        )
        return [(int(i), str(t), str(p)) for i, t, p in cur.fetchall()]

    def remove_through(self, last_id: int) -> None:
        """Move every row up to `last_id` to the history: the broker has them."""
        with self._tx():
            self._db.execute(
                "INSERT OR IGNORE INTO history (topic, payload, boot_id, seq) "
                "SELECT topic, payload, boot_id, seq FROM outbox WHERE id <= ? ORDER BY id",
                (last_id,),
            )
            cur = self._db.execute("DELETE FROM outbox WHERE id <= ?", (last_id,))
            self._db.execute(
                "DELETE FROM history WHERE id <= (SELECT MAX(id) FROM history) - ?",
                (self.history,),
            )
        self.depth = max(0, self.depth - cur.rowcount)

    def replay_after(self, after: tuple[int, int] | None) -> int:
        """Queue again every published event after (boot_id, seq), or all kept if None.

        Returns how many were queued. The consumer asking is idempotent on the event
        key, so events it already has cost only bandwidth.
        """
        with self._tx():
            start = 0
            if after is not None:
                row = self._db.execute(
                    "SELECT id FROM history WHERE boot_id = ? AND seq = ?", after
                ).fetchone()
                if row is None:
                    pending = self._db.execute(
                        "SELECT 1 FROM outbox WHERE boot_id = ? AND seq = ?", after
                    ).fetchone()
                    if pending is None:
                        raise NotInHistory(f"after: no event {after} in the bridge's history")
                    return 0  # not even published yet: everything after it is still to come
                start = int(row[0])
            cur = self._db.execute(
                "INSERT INTO outbox (topic, payload, boot_id, seq) "
                "SELECT topic, payload, boot_id, seq FROM history WHERE id > ? ORDER BY id",
                (start,),
            )
        self.depth += cur.rowcount
        return int(cur.rowcount)

    def close(self) -> None:
        self._db.close()

    def _put_session(self, boot_id: int, last_seq: int) -> None:
        self._db.execute(
            "INSERT INTO link_session (id, boot_id, last_seq) VALUES (1, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET boot_id = excluded.boot_id, "
            "last_seq = excluded.last_seq",
            (boot_id, last_seq),
        )

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, ROLLBACK on error (sqlite3's own handling is implicit)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
