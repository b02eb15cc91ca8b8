"""`mjtable db`: the service's database: migrate it, show its revision, back it up, restore it."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mjtable.commands.export import add_database_arguments, database_url

EXIT_BEHIND = 1
EXIT_FAILED = 2
EXIT_IN_USE = 3


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "db",
        help="the service's database: upgrade, current, backup, restore",
        description=(
            "The database `mjtable serve` would open with the same --config, --db and "
            "--data-dir (and MJTABLE_SERVE_DB / MJTABLE_SERVE_DATA_DIR). upgrade: apply every "
            "migration not yet applied (alembic upgrade head; `serve` does it too at start). "
            "current: print the revision and exit 1 if it is behind the code's. backup DEST: "
            "SQLite by its online backup API (safe while the service runs), PostgreSQL by "
            "pg_dump --format=custom; DEST a file, or a directory for a dated file in it. "
            "restore SOURCE: put a backup back (stop every `mjtable serve` first; on SQLite "
            "it refuses, exit 3, while one runs)."
        ),
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("upgrade", help="apply the migrations (alembic upgrade head)")
    actions.add_parser("current", help="the database's revision and the code's; exit 1 if behind")
    backup = actions.add_parser("backup", help="a consistent copy of the records")
    backup.add_argument("dest", type=Path, metavar="DEST", help="file, or directory")
    restore = actions.add_parser("restore", help="replace the records by a backup")
    restore.add_argument("source", type=Path, metavar="SOURCE", help="a file made by backup")
    for action in actions.choices.values():
        add_database_arguments(action)
    p.set_defaults(func=run)


def revisions(url: str) -> tuple[str | None, str | None]:
    """(the database's revision or None when it has no schema, the code's head)."""
    from alembic.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from table_service.store import alembic_config
    from table_service.store.store import make_engine

    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    database = _sqlite_path(url)
    if database is not None and not database.is_file():
        return None, head
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
    return current, head


def run(args: argparse.Namespace) -> int:
    url = database_url(args)
    if args.action == "upgrade":
        return upgrade(url)
    if args.action == "current":
        current, head = revisions(url)
        behind = current != head
        note = "behind: run `mjtable db upgrade`" if behind else "up to date"
        print(f"database {current or 'empty'}, code {head} ({note})")
        return EXIT_BEHIND if behind else 0
    if args.action == "backup":
        return backup(url, args.dest)
    return restore(url, args.source)


def upgrade(url: str) -> int:
    from table_service.store import Store

    before, _ = revisions(url)
    database = _sqlite_path(url)
    if database is not None:
        database.parent.mkdir(parents=True, exist_ok=True)
    store = Store(url)
    try:
        store.migrate()
    finally:
        store.close()
    after, _ = revisions(url)
    print(f"database {before or 'empty'} -> {after}")
    return 0


def _sqlite_path(url: str) -> Path | None:
    from table_service.store import database_url as full_url

    parsed = full_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if parsed.database in (None, "", ":memory:"):
        raise SystemExit("db: an in-memory database has nothing to back up")
    return Path(parsed.database)


def _libpq_url(url: str) -> str:
    from table_service.store import database_url as full_url

    parsed = full_url(url).set(drivername="postgresql")
    return str(parsed.render_as_string(hide_password=False))


def backup(url: str, dest: Path) -> int:
    database = _sqlite_path(url)
    suffix = ".db" if database is not None else ".dump"
    if dest.is_dir():
        dest = dest / f"mjtable-{time.strftime('%Y%m%d-%H%M%S')}{suffix}"
    partial = dest.with_name(dest.name + ".partial")
    if database is not None:
        if not database.is_file():
            print(f"db: no database at {database}", file=sys.stderr)
            return EXIT_FAILED
        _sqlite_copy(database, partial)
        with contextlib.closing(sqlite3.connect(partial)) as copy:
            check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            partial.unlink()
            print(f"db: the copy failed its integrity check: {check}", file=sys.stderr)
            return EXIT_FAILED
    else:
        pg_dump = ["pg_dump", "--format=custom", "--no-owner", f"--file={partial}"]
        if _tool([*pg_dump, _libpq_url(url)]) != 0:
            partial.unlink(missing_ok=True)
            return EXIT_FAILED
    partial.replace(dest)
    print(dest)
    return 0


def restore(url: str, source: Path) -> int:
    if not source.is_file():
        print(f"db: no backup at {source}", file=sys.stderr)
        return EXIT_FAILED
    database = _sqlite_path(url)
    if database is None:
        pg_restore = ["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction"]
        code = _tool([*pg_restore, f"--dbname={_libpq_url(url)}", str(source)])
        return 0 if code == 0 else EXIT_FAILED
    with contextlib.closing(sqlite3.connect(source)) as backup_file:
        check = backup_file.execute("PRAGMA integrity_check").fetchone()[0]
    if check != "ok":
        print(f"db: {source} is not a sound SQLite database: {check}", file=sys.stderr)
        return EXIT_FAILED
    try:
        with _service_lock(database):
            _sqlite_copy(source, database)
    except BlockingIOError:
        print(f"db: a `mjtable serve` holds {database}; stop it first", file=sys.stderr)
        return EXIT_IN_USE
    print(f"restored {database} from {source}")
    return 0


def _sqlite_copy(source: Path, dest: Path) -> None:
    """Page by page through SQLite's online backup API: consistent while others write,
    WAL included (copying the file alone could miss what is still in the -wal)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with (
        contextlib.closing(sqlite3.connect(source)) as src,
        contextlib.closing(sqlite3.connect(dest)) as dst,
    ):
        src.backup(dst)


@contextlib.contextmanager
def _service_lock(database: Path) -> Iterator[None]:
    """The lock `mjtable serve` holds beside its SQLite database while it runs."""
    database.parent.mkdir(parents=True, exist_ok=True)
    with open(database.with_name(database.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield


def _tool(command: list[str]) -> int:
    if shutil.which(command[0]) is None:
        print(f"db: {command[0]} is not installed (apt install postgresql-client)", file=sys.stderr)
        return EXIT_FAILED
    shown: list[Any] = [c if "://" not in c else "<database>" for c in command]
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        print(f"db: {' '.join(map(str, shown))} exited {done.returncode}", file=sys.stderr)
    return done.returncode
