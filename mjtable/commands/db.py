"""`mjtable db`: the service's database: migrate it, show its revision, back it up, restore it."""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from mjtable.commands.export import add_database_arguments, database_url

EXIT_BEHIND = 1
EXIT_FAILED = 2
EXIT_IN_USE = 3
EXIT_AHEAD = 4


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "db",
        help="the service's database: upgrade, current, backup, restore, refold",
        description=(
            "The database `mjtable serve` would open with the same --config, --db and "
            "--data-dir (and MJTABLE_SERVE_DB / MJTABLE_SERVE_DATA_DIR). upgrade: apply every "
            "migration not yet applied (alembic upgrade head; `serve` does it too at start). "
            "current: print the revision; exit 1 if it is behind the code's (run upgrade), 4 "
            "if it is ahead (a newer mjtable wrote it: upgrade mjtable; upgrade and serve "
            "refuse it). A damaged database (an empty or corrupt SQLite file, tables that "
            "are not mjtable's) is refused by every action but restore, exit 2. backup DEST: "
            "SQLite by its online backup API (safe while the service runs), PostgreSQL by "
            "pg_dump --format=custom; DEST a file, or a directory for a dated file in it. "
            "restore SOURCE: put a backup back (stop every `mjtable serve` first; on SQLite "
            "it refuses, exit 3, while one runs). refold [TABLE…]: derive every hand, "
            "violation, fault and ledger line again from the log through the referee's "
            "rulings (after an upgrade that fixed a rule; stop `mjtable serve` first)."
        ),
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    actions.add_parser("upgrade", help="apply the migrations (alembic upgrade head)")
    actions.add_parser(
        "current", help="the database's revision and the code's; exit 1 if behind, 4 if ahead"
    )
    backup = actions.add_parser("backup", help="a consistent copy of the records")
    backup.add_argument("dest", type=Path, metavar="DEST", help="file, or directory")
    restore = actions.add_parser("restore", help="replace the records by a backup")
    restore.add_argument("source", type=Path, metavar="SOURCE", help="a file made by backup")
    refold = actions.add_parser(
        "refold", help="derive the records again from the tables' logs (after a rules fix)"
    )
    refold.add_argument("tables", nargs="*", metavar="TABLE", help="these tables (default: all)")
    for action in actions.choices.values():
        add_database_arguments(action)
    p.set_defaults(func=run)


def revisions(url: str) -> tuple[str | None, str | None]:
    """(the database's revision or None when it has no schema, the code's head); raises
    StoreDamaged or StoreAhead as the store would open it (a missing file is not made)."""
    from table_service.store import Store

    head = revisions_head(url)
    database = _sqlite_path(url)
    if database is not None and not database.is_file():
        return None, head
    store = Store(url)
    try:
        return store.revision(), head
    finally:
        store.close()


def run(args: argparse.Namespace) -> int:
    from table_service.store import StoreAhead, StoreError

    url = database_url(args)
    try:
        if args.action == "upgrade":
            return upgrade(url)
        if args.action == "current":
            return current(url)
        if args.action == "backup":
            return backup(url, args.dest)
        if args.action == "refold":
            return refold(url, args.tables)
        return restore(url, args.source)
    except StoreAhead as exc:
        print(f"db: {exc}", file=sys.stderr)
        return EXIT_AHEAD
    except StoreError as exc:
        print(f"db: {exc}", file=sys.stderr)
        return EXIT_FAILED


def current(url: str) -> int:
    from table_service.store import StoreAhead

    try:
        revision, head = revisions(url)
    except StoreAhead as exc:
        print(
            f"database {exc.revision}, code {revisions_head(url)} (ahead: a newer mjtable "
            "wrote the database; upgrade mjtable)"
        )
        return EXIT_AHEAD
    behind = revision != head
    note = "behind: run `mjtable db upgrade`" if behind else "up to date"
    print(f"database {revision or 'empty'}, code {head} ({note})")
    return EXIT_BEHIND if behind else 0


def revisions_head(url: str) -> str | None:
    """The code's newest migration."""
    from alembic.script import ScriptDirectory

    from table_service.store import alembic_config

    return ScriptDirectory.from_config(alembic_config(url)).get_current_head()


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


def libpq_arguments(url: str) -> tuple[list[str], dict[str, str]]:
    """pg_dump's and pg_restore's options naming the database, and what their environment
    adds: the password goes there (PGPASSWORD), never on the command line, where every
    local user's process list would show it. Other URL parameters (sslmode, options…)
    ride in --dbname as a connection string."""
    from table_service.store import database_url as full_url

    parsed = full_url(url)
    query = {k: v if isinstance(v, str) else v[-1] for k, v in parsed.query.items()}
    password = query.pop("password", None) or parsed.password
    options = [f"--host={parsed.host}"] if parsed.host else []
    options += [f"--port={parsed.port}"] if parsed.port else []
    options += [f"--username={parsed.username}"] if parsed.username else []
    conninfo = {**({"dbname": parsed.database} if parsed.database else {}), **query}
    if list(conninfo) == ["dbname"] and "=" not in conninfo["dbname"]:
        options.append(f"--dbname={conninfo['dbname']}")
    elif conninfo:
        pairs = (f"{key}={_conninfo_value(value)}" for key, value in conninfo.items())
        options.append(f"--dbname={' '.join(pairs)}")
    return options, {} if password is None else {"PGPASSWORD": str(password)}


def _conninfo_value(value: str) -> str:
    """A libpq keyword=value value, quoted when it must be."""
    if value and not any(c in value for c in " '\\"):
        return value
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def backup(url: str, dest: Path) -> int:
    from table_service.store import StoreAhead

    database = _sqlite_path(url)
    suffix = ".db" if database is not None else ".dump"
    if database is None or database.is_file():
        with contextlib.suppress(StoreAhead):  # a newer version's records: copied as they are
            revisions(url)  # a damaged database is refused: its backup would rotate out good ones
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
        options, env = libpq_arguments(url)
        pg_dump = ["pg_dump", "--format=custom", "--no-owner", f"--file={partial}"]
        if _tool([*pg_dump, *options], env) != 0:
            partial.unlink(missing_ok=True)
            return EXIT_FAILED
    partial.replace(dest)
    print(dest)
    return 0


def restore(url: str, source: Path) -> int:
    from table_service.store.store import sqlite_damage

    if not source.is_file():
        print(f"db: no backup at {source}", file=sys.stderr)
        return EXIT_FAILED
    database = _sqlite_path(url)
    if database is None:
        options, env = libpq_arguments(url)
        pg_restore = ["pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction"]
        code = _tool([*pg_restore, *options, str(source)], env)
        return 0 if code == 0 else EXIT_FAILED
    problem = sqlite_damage(source)
    if problem is None:
        with contextlib.closing(sqlite3.connect(source)) as backup_file:
            check = backup_file.execute("PRAGMA integrity_check").fetchone()[0]
            known = backup_file.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'alembic_version'"
            ).fetchone()
        problem = (
            f"fails its integrity check: {check}"
            if check != "ok"
            else None
            if known
            else "holds no mjtable migration (alembic_version)"
        )
    if problem is not None:
        print(f"db: backup {source} is not a sound mjtable database: {problem}", file=sys.stderr)
        return EXIT_FAILED
    try:
        with _service_lock(database):
            moved = _move_damaged(database)
            _sqlite_copy(source, database)
    except BlockingIOError:
        print(f"db: a `mjtable serve` holds {database}; stop it first", file=sys.stderr)
        return EXIT_IN_USE
    if moved is not None:
        print(f"moved the damaged {database} to {moved}")
    print(f"restored {database} from {source}")
    return 0


def refold(url: str, tables: list[str]) -> int:
    from table_service.store import Store

    database = _sqlite_path(url)
    if database is not None and not database.is_file():
        print(f"db: no database at {database}", file=sys.stderr)
        return EXIT_FAILED
    store = Store(url)
    try:
        lock = _service_lock(database) if database is not None else contextlib.nullcontext()
        with lock:
            for table in tables or store.tables():
                effect = store.refold(table)
                revised = len(effect["revised_hands"])
                print(f"{table}: derived again from its log; {revised} hand(s) changed")
    except BlockingIOError:
        print(f"db: a `mjtable serve` holds {database}; stop it first", file=sys.stderr)
        return EXIT_IN_USE
    finally:
        store.close()
    return 0


def _move_damaged(database: Path) -> Path | None:
    """A damaged database (and its -wal, -shm) moved aside, kept for a post-mortem: SQLite's
    backup API cannot write over a file that is not sound SQLite."""
    from table_service.store.store import sqlite_damage

    if not database.is_file() or sqlite_damage(database) is None:
        return None
    aside = database.with_name(f"{database.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    for suffix in ("-wal", "-shm", ""):
        part = Path(f"{database}{suffix}")
        if part.exists():
            part.replace(f"{aside}{suffix}")
    return aside


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


def _tool(command: list[str], env: dict[str, str]) -> int:
    """Run a PostgreSQL client; `env` (the password) is added to its environment only."""
    if shutil.which(command[0]) is None:
        print(f"db: {command[0]} is not installed (apt install postgresql-client)", file=sys.stderr)
        return EXIT_FAILED
    done = subprocess.run(command, check=False, env={**os.environ, **env})
    if done.returncode != 0:
        print(f"db: {' '.join(command)} exited {done.returncode}", file=sys.stderr)
    return done.returncode
