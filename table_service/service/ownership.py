"""Which tables this process owns: exactly one `mjtable serve` follows a table at a time.

On PostgreSQL several processes share one database and one broker: each table is owned
through a PostgreSQL session-level advisory lock held on a connection of its own, so the
database, not a home-made election, decides; when an owner dies its connection closes,
its locks go, and another process takes the table within one claim interval. On SQLite
there is one process (the serve command refuses a second), which owns every table.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any

from sqlalchemy.engine import make_url

log = logging.getLogger("table_service.service")
NAMESPACE = "mjtable-table:"


class Ownership:
    """Every table is ours (SQLite: one process)."""

    def claim(self, table: str) -> bool:
        """Own `table` if nobody does; True when this process owns it (now or already)."""
        return True

    def alive(self) -> bool:
        """False when the locks may have been lost (the lock connection broke)."""
        return True

    def close(self) -> None:
        """Let every table go."""


class AdvisoryOwnership(Ownership):
    """PostgreSQL: `pg_try_advisory_lock` per table on one dedicated connection."""

    def __init__(self, url: str) -> None:
        import psycopg

        parsed = make_url(url)
        self._conninfo = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
        self._psycopg = psycopg
        self._conn: Any = psycopg.connect(self._conninfo, autocommit=True)
        # advisory locks are the database's, not a schema's: two sets of records in two
        # schemas of one database (two clubs, or two test runs) must not lock each other
        # (the default schema keeps the keys of before, so a rolling upgrade locks alike)
        (schema,) = self._conn.execute("SELECT current_schema()").fetchone() or ("public",)
        self._namespace = NAMESPACE if schema == "public" else f"{NAMESPACE}{schema}:"
        self._owned: set[str] = set()
        self._lock = threading.Lock()  # the service calls from its threads

    def _connection(self) -> Any:
        """The lock connection, opened again if it broke (its locks went with it)."""
        if self._conn.closed or self._conn.broken:
            self._owned.clear()
            self._conn = self._psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5)
        return self._conn

    def claim(self, table: str) -> bool:
        with self._lock:
            if table in self._owned:
                return True
            try:
                row = (
                    self._connection()
                    .execute(
                        "SELECT pg_try_advisory_lock(hashtextextended(%s, 0))",
                        (self._namespace + table,),
                    )
                    .fetchone()
                )
            except self._psycopg.Error as exc:
                log.error("ownership: the lock connection failed (%s)", exc)
                return False
            if row and row[0]:
                self._owned.add(table)
                return True
            return False

    def alive(self) -> bool:
        """False when the lock connection broke (its locks went with it): a new one is
        opened for the claims that follow, once the database takes connections again."""
        with self._lock:
            try:
                if not (self._conn.closed or self._conn.broken):
                    self._conn.execute("SELECT 1")
                    return True
            except self._psycopg.Error:
                pass
            self._owned.clear()
            with contextlib.suppress(self._psycopg.Error):  # still away: the next look asks
                self._connection()
            return False

    def close(self) -> None:
        with self._lock:
            self._owned.clear()
            self._conn.close()


def ownership_for(url: str) -> Ownership:
    """Advisory locks on PostgreSQL; sole ownership on SQLite."""
    backend = make_url(url).get_backend_name()
    return AdvisoryOwnership(url) if backend == "postgresql" else Ownership()
