"""Which tables this process owns: exactly one `mjtable serve` follows a table at a time,
and the tables spread evenly over the processes that run.

On PostgreSQL several processes share one database and one broker: each table is owned
through a PostgreSQL session-level advisory lock held on a connection of its own, so the
database, not a home-made election, decides; when an owner dies its connection closes,
its locks go, and another process takes the table within one claim interval. Each
process also holds a member slot, a lock of its own on the same connection: the slots
held are the members (read from `pg_locks`, so a dead process leaves none behind), and
`share_out` says which member each table belongs to, the same in every process. On
SQLite there is one process (the serve command refuses a second), which owns every table.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy.engine import make_url

log = logging.getLogger("table_service.service")
NAMESPACE = "mjtable-table:"
MEMBERS = "mjtable-member:"  # the member slots' lock space (two-int keys: no table's key)
MAX_MEMBERS = 256  # member slots: service processes on one set of records


def preference(table: str, members: Sequence[int]) -> list[int]:
    """The members in the order a table prefers them: by hash(member, table), highest
    first (rendezvous hashing). Every process computes the same from the same members, and
    a member joining or leaving moves a table only when it is or was the first."""

    def weight(member: int) -> bytes:
        return hashlib.blake2b(f"{member}/{table}".encode(), digest_size=8).digest()

    return sorted(members, key=weight, reverse=True)


def assigned(table: str, members: Sequence[int]) -> int:
    """The member a table belongs to when nothing else is known: its first preference."""
    return preference(table, members)[0]


def share_out(tables: Iterable[str], members: Sequence[int]) -> dict[str, int]:
    """The tables of the records shared evenly: each, in order of name, to the first of
    its preferred members that has fewer than its share (n/k, rounded up). Hashing alone
    gave 50 tables as 22/28 and 13/16/21; this gives 25/25 and 16/17/17, and a member
    joining or leaving still moves (nearly) only the tables it takes or leaves."""
    names = sorted(set(tables))
    room = dict.fromkeys(members, -(-len(names) // max(len(members), 1)))
    share: dict[str, int] = {}
    for table in names:
        member = next(m for m in preference(table, members) if room[m] > 0)
        room[member] -= 1
        share[table] = member
    return share


def played_recently(seen: Mapping[str, float], retired_after: float) -> set[str]:
    """The tables the share is made of: those with a log entry within `retired_after`
    seconds of the newest entry of any (a table long unplayed would skew the share: it
    costs nothing, yet fills a member's room). Measured from the records, not the clock,
    so every member reads the same share from the same records."""
    newest = max(seen.values(), default=0.0)
    return {table for table, last in seen.items() if last >= newest - retired_after}


class Ownership:
    """Every table is ours (SQLite: one process)."""

    member = 0  # this process's member slot

    def join(self) -> int:
        """Take a member slot (the lowest free one); this process's slot."""
        return self.member

    def members(self) -> tuple[int, ...]:
        """The member slots held now, ascending (this process's among them)."""
        return (self.member,)

    def claim(self, table: str) -> bool:
        """Own `table` if nobody does; True when this process owns it (now or already)."""
        return True

    def release(self, table: str) -> None:
        """Let `table` go (its records stored): another member may claim it now."""

    def leave(self) -> None:
        """Give up the member slot (a clean stop): the others share the tables out anew."""

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
        self.member = -1  # no slot until `join`

    def join(self) -> int:
        with self._lock:
            conn = self._connection()
            earlier = [self.member] if self.member >= 0 else []  # taken again if free
            slots: list[int] = [*earlier, *range(MAX_MEMBERS)]
            for slot in slots:
                row = conn.execute(
                    "SELECT pg_try_advisory_lock(hashtext(%s), %s)", (self._members_key(), slot)
                ).fetchone()
                if row and row[0]:
                    self.member = slot
                    return slot
        raise RuntimeError(f"all {MAX_MEMBERS} member slots are taken")

    def _members_key(self) -> str:
        return MEMBERS + self._namespace.removeprefix(NAMESPACE)

    def members(self) -> tuple[int, ...]:
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    "SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory'"
                    " AND objsubid = 2 AND granted"
                    " AND classid = (hashtext(%s)::bigint & 4294967295)::oid"
                    " AND database = (SELECT oid FROM pg_database"
                    " WHERE datname = current_database())",
                    (self._members_key(),),
                )
                .fetchall()
            )
        return tuple(sorted({int(row[0]) for row in rows}))

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

    def leave(self) -> None:
        with self._lock, contextlib.suppress(self._psycopg.Error):
            if self.member >= 0:
                self._connection().execute(
                    "SELECT pg_advisory_unlock(hashtext(%s), %s)",
                    (self._members_key(), self.member),
                )

    def release(self, table: str) -> None:
        with self._lock:
            if table not in self._owned:
                return
            self._owned.discard(table)
            with contextlib.suppress(self._psycopg.Error):  # a broken connection let it go
                self._connection().execute(
                    "SELECT pg_advisory_unlock(hashtextextended(%s, 0))",
                    (self._namespace + table,),
                )

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
