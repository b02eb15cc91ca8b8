"""A database the store must not build over is refused, untouched, with a message naming it,
what is wrong and what to do: an emptied, non-SQLite, truncated or corrupt SQLite file, a
database of someone else's tables, one a newer mjtable migrated. A missing file, or an
empty PostgreSQL schema, is new: built whole. The commands say it in one line."""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import inspect, text

from mjtable.cli import main
from table_service.store import Store, StoreAhead, StoreDamaged
from tests.store.kit import load_game, play

MJTABLE = Path(sys.executable).with_name("mjtable")


def records(path: Path) -> Path:
    """A real mjtable database with a game in it, all in the main file (no -wal left)."""
    store = Store(f"sqlite:///{path}")
    try:
        store.migrate()
        play(store, load_game("EX01", "t01"))
    finally:
        store.close()
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
    return path


def emptied(path: Path) -> None:
    records(path).write_bytes(b"")


def not_sqlite(path: Path) -> None:
    path.write_text("[serve]\ndata_dir = '/var/lib/mjtable'\n" * 50)


def truncated(path: Path) -> None:
    data = records(path).read_bytes()
    path.write_bytes(data[: 3 * 4096])


def corrupt(path: Path) -> None:
    data = bytearray(records(path).read_bytes())
    data[4096:] = b"\xa5" * (len(data) - 4096)  # every page after the first overwritten
    path.write_bytes(bytes(data))


def foreign(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.execute("CREATE TABLE members (name TEXT)")
        db.execute("INSERT INTO members VALUES ('Ah Lam')")
        db.commit()


DAMAGE: dict[str, tuple[Callable[[Path], None], str]] = {
    "emptied": (emptied, "an empty file (0 bytes)"),
    "not sqlite": (not_sqlite, "not a SQLite database"),
    "truncated": (truncated, "truncated to 12288 bytes"),
    "corrupt": (corrupt, "damaged (quick_check:"),
    "foreign": (foreign, "holds tables (members) but no mjtable migration"),
}


@pytest.fixture(params=list(DAMAGE), ids=list(DAMAGE))
def damaged(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    """A data directory whose mjtable.db is damaged one way, and what the message says."""
    make, says = DAMAGE[request.param]
    path = tmp_path / "data" / "mjtable.db"
    path.parent.mkdir()
    make(path)
    return path, says


def files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def test_the_store_refuses_a_damaged_database_and_leaves_it(damaged: tuple[Path, str]) -> None:
    path, says = damaged
    before = files(path.parent)
    with pytest.raises(StoreDamaged) as raised:
        store = Store(f"sqlite:///{path}")
        try:
            store.migrate()
        finally:
            store.close()
    message = str(raised.value)
    assert message.startswith(f"database {path}: ") and says in message
    assert "restore" in message or "move" in message  # what to do
    assert "\n" not in message
    after = files(path.parent)
    assert {k: v for k, v in after.items() if k == path.name} == {path.name: before[path.name]}


def test_a_missing_database_is_made_whole(tmp_path: Path) -> None:
    store = Store.for_data_dir(tmp_path / "new")
    try:
        assert store.revision() is None
        store.migrate()
        assert store.revision() is not None and store.tables() == []
    finally:
        store.close()
    again = Store.for_data_dir(tmp_path / "new")  # and opens sound the next time
    again.migrate()
    again.close()


def test_a_foreign_database_is_refused_on_each_backend(store_url: str) -> None:
    store = Store(store_url)
    try:
        with store.engine.begin() as connection:
            connection.execute(text("CREATE TABLE members (name TEXT)"))
        with pytest.raises(StoreDamaged, match=r"holds tables \(members\) but no mjtable"):
            store.migrate()
        assert set(inspect(store.engine).get_table_names()) == {"members"}  # nothing added
    finally:
        store.close()


def test_an_empty_database_is_new_on_each_backend(store_url: str) -> None:
    store = Store(store_url)
    try:
        assert store.revision() is None
        store.migrate()
        assert "log" in inspect(store.engine).get_table_names()
    finally:
        store.close()


def ahead(store: Store) -> None:
    """As if a newer mjtable had migrated it: a revision this code does not know."""
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'f00dfeed9999'"))


def test_a_database_of_a_newer_mjtable_is_refused(store: Store) -> None:
    ahead(store)
    with pytest.raises(StoreAhead, match=r"f00dfeed9999, which this mjtable .* does not know"):
        store.migrate()
    with pytest.raises(StoreAhead, match="upgrade mjtable"):
        store.revision()
    with store.engine.connect() as connection:
        kept = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    assert kept == "f00dfeed9999"


def test_db_current_tells_ahead_from_behind(
    store: Store, store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["db", "current", "--db", store_url]) == 0
    ahead(store)
    capsys.readouterr()
    assert main(["db", "current", "--db", store_url]) == 4
    out = capsys.readouterr().out
    assert "f00dfeed9999" in out and "ahead" in out and "upgrade mjtable" in out
    assert "behind" not in out
    assert main(["db", "upgrade", "--db", store_url]) == 4  # it cannot go forward from there
    assert "a newer mjtable wrote it" in capsys.readouterr().err


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


def test_serve_exits_with_one_line_on_a_damaged_database(damaged: tuple[Path, str]) -> None:
    path, says = damaged
    done = subprocess.run(
        [str(MJTABLE), "serve", "--data-dir", str(path.parent), "--mqtt", "mqtt://127.0.0.1:9",
         "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 3
    line = one_line(done)
    assert line.startswith(f"serve: database {path}: ") and says in line


def test_serve_exits_with_one_line_on_a_newer_database(store: Store, store_url: str) -> None:
    ahead(store)
    done = subprocess.run(
        [str(MJTABLE), "serve", "--db", store_url, "--mqtt", "mqtt://127.0.0.1:9", "--port", "0"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 3
    assert "f00dfeed9999" in one_line(done)


@pytest.mark.parametrize("action", ["current", "upgrade", "backup"])
def test_db_exits_with_one_line_on_a_damaged_database(
    damaged: tuple[Path, str], action: str, tmp_path: Path
) -> None:
    path, says = damaged
    backups = tmp_path / "backups"
    backups.mkdir()
    dest = [str(backups)] if action == "backup" else []
    done = subprocess.run(
        [str(MJTABLE), "db", action, "--data-dir", str(path.parent), *dest],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert says in one_line(done)
    assert list(backups.iterdir()) == []  # no backup of it to rotate the good ones out


def test_restore_puts_a_backup_in_place_of_a_damaged_database(
    damaged: tuple[Path, str], tmp_path: Path
) -> None:
    """The remedy the refusal names works: on a file that is not sound SQLite, which the
    backup API cannot write over, after moving it aside, kept for a post-mortem."""
    path, says = damaged
    good = records(tmp_path / "good" / "mjtable.db")
    backup = tmp_path / "backup.db"
    assert main(["db", "backup", "--db", f"sqlite:///{good}", str(backup)]) == 0
    wrecked = path.read_bytes()
    assert main(["db", "restore", "--data-dir", str(path.parent), str(backup)]) == 0
    store = Store(f"sqlite:///{path}")
    try:
        store.migrate()
        assert store.tables() == ["t01"]
    finally:
        store.close()
    aside = [p for p in path.parent.iterdir() if p.name.startswith("mjtable.db.damaged-")]
    sound_sqlite = says == DAMAGE["foreign"][1]
    assert [p.read_bytes() for p in aside] == ([] if sound_sqlite else [wrecked])


def test_restore_refuses_an_empty_backup(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert main(["db", "upgrade", "--data-dir", str(data)]) == 0
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    before = files(data)
    assert main(["db", "restore", "--data-dir", str(data), str(empty)]) == 2
    assert files(data) == before
