"""The durable outbox: events wait here, in order, until the broker has acknowledged them.

An event is committed here before the link acknowledges it to the controller, in the
same transaction as the link's position (boot id, last seq), so a bridge restart
neither loses an acknowledged event nor asks for it again. Published events move to
a bounded history, from which a consumer that found a gap (a broker that lost
messages on a restart, or dropped them to a slow subscriber) can have them replayed.

The history holds each event (boot_id, seq) once, at its first publication: a replayed
copy waits in the outbox marked with the history row it copies (`replay_of`), is never
added to the history again, and is what a later replay request is coalesced with. So
replays neither take the history's room nor reorder it, and a burst of requests for the
same events queues them once.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    boot_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    replay_of INTEGER
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
CREATE TABLE IF NOT EXISTS commands (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    txn TEXT NOT NULL UNIQUE,
    command TEXT,
    outcome TEXT,
    detail TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS outbox_state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    open INTEGER NOT NULL
);
"""
COMMANDS_KEPT = 1000  # transaction ids remembered, so a retry is never sent twice (§3.10)
WAL_MAGIC = (0x377F0682, 0x377F0683)  # checksums little-endian, big-endian


Row = tuple[str, str, int, int]  # topic, payload, boot_id, seq


@dataclass(frozen=True)
class Replay:
    """What a replay request got, for its answer.

    `queued`: events queued now. `already_queued`: events it covers that an earlier
    request had queued and that wait unpublished still, so they were not queued twice.
    `first_seq`: for a request from (boot, 0), the first seq of that boot it gives; more
    than 1 when the history no longer holds the boot's start, so the consumer can give
    the rest up at once.
    """

    queued: int
    already_queued: int = 0
    first_seq: int | None = None


class NotInHistory(LookupError):
    """A replay was asked from an event the history no longer (or never) held."""


class OutboxDamaged(RuntimeError):
    """The outbox file cannot be used (not SQLite, truncated, empty); the message names it."""


class Outbox:
    """SQLite in WAL mode; `synchronous` FULL survives power loss, NORMAL only a crash.

    Opening refuses a damaged file (`OutboxDamaged`) and notes in `damage` a lost or
    damaged write-ahead log: the events stored after its last checkpoint are gone,
    though the controller was told they were safe.
    """

    def __init__(
        self,
        path: Path | str,
        synchronous: Literal["full", "normal"] = "full",
        history: int = 100_000,
    ) -> None:
        self.path = Path(path)
        self.history = history
        self.synchronous = synchronous
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            _create(self.path)
        elif self.path.stat().st_size == 0:
            raise OutboxDamaged(
                f"outbox {self.path}: an empty file; the bridge creates its outbox whole, so "
                "this one lost its contents (move it away to start a new outbox)"
            )
        wal = Path(f"{self.path}-wal")
        wal_existed = wal.exists()  # before SQLite opens (or creates) it
        wal_problem = _wal_problem(wal)  # before SQLite reads (and then resets) the log
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
            problems = [str(r[0]) for r in self._db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(problems))
            self._db.executescript(SCHEMA)
            _migrate(self._db)
            row = self._db.execute("SELECT open FROM outbox_state").fetchone()
            self._kept: int = self._db.execute("SELECT COUNT(*) FROM history").fetchone()[0]
            self.depth: int = self._db.execute("SELECT COUNT(*) FROM outbox").fetchone()[0]
            self._db.execute("INSERT OR REPLACE INTO outbox_state (id, open) VALUES (1, 1)")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the main file says "open"
        except sqlite3.DatabaseError as exc:
            with_db = getattr(self, "_db", None)
            if with_db is not None:
                with_db.close()
            raise OutboxDamaged(
                f"outbox {self.path}: {exc} (not a usable SQLite outbox: restore it from a "
                "backup or move it away to start a new one)"
            ) from None
        was_open = row is not None and row[0] == 1
        self.damage: str | None = None
        if was_open and not wal_existed:
            self.damage = (
                f"its write-ahead log {wal} was gone after a run that did not stop cleanly: "
                "events stored after the last checkpoint are lost"
            )
        elif wal_problem is not None:
            self.damage = f"its write-ahead log {wal} is damaged ({wal_problem})"

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
        """Move every row up to `last_id` to the history: the broker has them.

        Only first publications enter the history (a replayed copy's event is there
        already), and the history keeps the last `history` of them, by event.
        """
        with self._tx():
            added = self._db.execute(
                "INSERT OR IGNORE INTO history (topic, payload, boot_id, seq) "
                "SELECT topic, payload, boot_id, seq FROM outbox "
                "WHERE id <= ? AND replay_of IS NULL ORDER BY id",
                (last_id,),
            ).rowcount
            removed = self._db.execute("DELETE FROM outbox WHERE id <= ?", (last_id,)).rowcount
            trimmed = 0
            excess = self._kept + added - self.history
            if excess > 0:
                trimmed = self._db.execute(
                    "DELETE FROM history WHERE id IN (SELECT id FROM history ORDER BY id LIMIT ?)",
                    (excess,),
                ).rowcount
        self._kept += added - trimmed
        self.depth = max(0, self.depth - removed)

    def replay_after(self, after: tuple[int, int] | None) -> Replay:
        """Queue again every kept event after (boot_id, seq), or all kept if None.

        (boot, 0) means that boot from its start: every kept event of it and of the
        boots after it. Events a replayed copy of which still waits in the outbox are not
        queued again. The consumer asking is idempotent on the event key, so events it
        already has cost only bandwidth.
        """
        with self._tx():
            start, first_seq = 0, None
            if after is not None:
                boot_id, seq = after
                row = self._db.execute(
                    "SELECT id FROM history WHERE boot_id = ? AND seq = ?", after
                ).fetchone()
                if row is not None:
                    start = int(row[0])
                elif seq == 0:
                    start, first_seq = self._boot_start(boot_id)
                    if start < 0:
                        return Replay(0, first_seq=first_seq)  # all of it still to come
                else:
                    pending = self._db.execute(
                        "SELECT 1 FROM outbox WHERE boot_id = ? AND seq = ? AND replay_of IS NULL",
                        after,
                    ).fetchone()
                    if pending is None:
                        raise NotInHistory(f"after: no event {after} in the bridge's history")
                    return Replay(0)  # not even published yet: everything after it is to come
            covered = self._db.execute(
                "SELECT COUNT(*) FROM history WHERE id > ?", (start,)
            ).fetchone()[0]
            queued = self._db.execute(
                "INSERT INTO outbox (topic, payload, boot_id, seq, replay_of) "
                "SELECT h.topic, h.payload, h.boot_id, h.seq, h.id FROM history h "
                "WHERE h.id > ? AND NOT EXISTS "
                "(SELECT 1 FROM outbox o WHERE o.replay_of = h.id) ORDER BY h.id",
                (start,),
            ).rowcount
        self.depth += queued
        return Replay(queued, int(covered) - queued, first_seq)

    def _boot_start(self, boot_id: int) -> tuple[int, int]:
        """(history id just before boot `boot_id`'s first kept event, that event's seq).

        The id is -1 when the history holds none of the boot but the outbox waits to
        publish it for the first time: then nothing needs replaying.
        """
        row = self._db.execute(
            "SELECT id, seq FROM history WHERE boot_id = ? ORDER BY seq LIMIT 1", (boot_id,)
        ).fetchone()
        if row is not None:
            return int(row[0]) - 1, int(row[1])
        pending = self._db.execute(
            "SELECT MIN(seq) FROM outbox WHERE boot_id = ? AND replay_of IS NULL", (boot_id,)
        ).fetchone()[0]
        if pending is None:
            raise NotInHistory(
                f"after: no event of boot {boot_id} in the bridge's history "
                "(seq 0 asks for that boot from its start)"
            )
        return -1, int(pending)

    def command(self, txn: str) -> tuple[str | None, str | None, str] | None:
        """(command, outcome or None while in flight, detail) of a transaction id, if kept."""
        row = self._db.execute(
            "SELECT command, outcome, detail FROM commands WHERE txn = ?", (txn,)
        ).fetchone()
        return None if row is None else (row[0], row[1], str(row[2]))

    def begin_command(self, txn: str, command: str | None) -> None:
        """Remember a transaction id before its command is sent; keeps the last 1,000."""
        with self._tx():
            self._db.execute("INSERT INTO commands (txn, command) VALUES (?, ?)", (txn, command))
            self._db.execute(
                "DELETE FROM commands WHERE id <= (SELECT MAX(id) FROM commands) - ?",
                (COMMANDS_KEPT,),
            )

    def finish_command(self, txn: str, outcome: str, detail: str = "") -> None:
        """Record a transaction's outcome (a retry with its id is answered with it)."""
        with self._tx():
            self._db.execute(
                "UPDATE commands SET outcome = ?, detail = ? WHERE txn = ?", (outcome, detail, txn)
            )

    def close(self) -> None:
        """Mark a clean stop (SQLite then checkpoints and removes the WAL) and close."""
        try:
            self._db.execute("UPDATE outbox_state SET open = 0")
        finally:
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


def _migrate(db: sqlite3.Connection) -> None:
    """Bring an outbox file of an older layout up to this one, in place.

    Before `replay_of`, a replayed copy was not told from a first publication: a pending
    row whose event the history holds is taken for a copy (a first publication is never
    in the history before it is published); a copy of an event the history had trimmed
    already is taken for a first publication, as the old layout took it.
    """
    columns = {str(r[1]) for r in db.execute("PRAGMA table_info(outbox)")}
    if "replay_of" not in columns:
        with _Transaction(db):
            db.execute("ALTER TABLE outbox ADD COLUMN replay_of INTEGER")
            db.execute(
                "UPDATE outbox SET replay_of = (SELECT h.id FROM history h "
                "WHERE h.boot_id = outbox.boot_id AND h.seq = outbox.seq)"
            )
    db.execute("CREATE INDEX IF NOT EXISTS outbox_replay_of ON outbox (replay_of)")


def _create(path: Path) -> None:
    """A new, empty outbox at `path`, made whole in a side file and renamed into place.

    So an outbox the bridge made is never an empty file: finding one means damage.
    """
    side = path.with_name(path.name + ".new")
    side.unlink(missing_ok=True)
    db = sqlite3.connect(side, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
    finally:
        db.close()  # checkpoints: everything is in the main file, the WAL is gone
    os.replace(side, path)


def _wal_problem(wal: Path) -> str | None:
    """Why SQLite would ignore (part of) this write-ahead log, or None if it is whole.

    A WAL header or a frame of the current generation that fails its checksum makes
    SQLite silently drop it and every frame after it: committed events among them.
    (A crash in the middle of a commit leaves a torn last frame too; that commit was
    not acknowledged, so this is only a suspicion until the controller shows a loss.)
    """
    try:
        data = wal.read_bytes()
    except FileNotFoundError:
        return None
    if not data:
        return None
    if len(data) < 32:
        return f"{len(data)} bytes, shorter than its header"
    magic, _, page_size, _, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC or page_size < 512 or page_size & (page_size - 1):
        return "not a write-ahead log header"
    big = magic == WAL_MAGIC[1]
    sums = _wal_checksum(data[:24], (0, 0), big)
    if sums != (c1, c2):
        return "its header fails its checksum"
    frame = 24 + page_size
    for n, at in enumerate(range(32, len(data) - frame + 1, frame), start=1):
        header = data[at : at + 24]
        f_salt1, f_salt2, f1, f2 = struct.unpack(">4I", header[8:24])
        if (f_salt1, f_salt2) != (salt1, salt2):
            return None  # frames of an older generation: SQLite stops here by design
        sums = _wal_checksum(header[:8] + data[at + 24 : at + frame], sums, big)
        if sums != (f1, f2):
            return f"frame {n} fails its checksum"
    return None


def _wal_checksum(data: bytes, sums: tuple[int, int], big_endian: bool) -> tuple[int, int]:
    """SQLite's WAL checksum (https://www.sqlite.org/fileformat.html#checksum_algorithm)."""
    s0, s1 = sums
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1
