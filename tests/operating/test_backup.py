"""Backups, restores and upgrades as docs/operating.md does them, with `mjtable db`:
records written by the real Store come back equal, row for row, after a wipe; a database
behind the code's migrations is brought to head and the Store works on it.

SQLite always; PostgreSQL too when MJTABLE_TEST_DATABASE_URL names a server (each test
there makes a scratch database, since pg_dump and pg_restore work on whole databases)."""

from __future__ import annotations

import json
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from mjtable.cli import main
from mjtable.commands.serve import single_writer
from table_service.service.settings import load_serve_settings
from table_service.store import Store, alembic_config
from table_service.store.models import Base
from table_service.store.store import make_engine
from tests.kit_databases import BACKENDS, PG_URL
from tests.store.kit import load_game, play


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a database of its own (a scratch database on PostgreSQL)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'mjtable.db'}"
        return
    assert PG_URL is not None
    name = f"mjt_ops_{uuid.uuid4().hex[:12]}"
    admin = create_engine(
        make_url(PG_URL).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def db(*args: str) -> int:
    """`mjtable db …`, in process."""
    return main(["db", *args])


def rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table of the records, in primary key order."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: [
                    tuple(row)
                    for row in connection.execute(select(table).order_by(*table.primary_key))
                ]
                for table in Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()


def wipe(url: str) -> None:
    """Lose the database: its files (SQLite), or every object in it (PostgreSQL)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = Path(str(parsed.database))
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        return
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def test_backup_wipe_restore_gives_back_every_record(
    database: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert db("upgrade", "--db", database) == 0
    store = Store(database)
    try:
        session_id = play(store, load_game("EX01", "t01"))
        play(store, load_game("EX02", "t02"))
        store.create_token("admin", "front desk")
        before = rows(database)
        hands = store.hands(session_id=session_id)
        assert hands and before["log"] and before["ledger"]

        # online: the store still has its connections open (on SQLite, WAL not yet
        # checkpointed) while the backup is taken
        backups = tmp_path / "backups"
        backups.mkdir()
        capsys.readouterr()
        assert db("backup", "--db", database, str(backups)) == 0
        written = Path(capsys.readouterr().out.strip())
        assert written.parent == backups and written.is_file()
        assert [p.name for p in backups.iterdir()] == [written.name]  # no .partial left

        play(store, load_game("EX03", "t03"))  # after the backup: gone by the restore
    finally:
        store.close()

    wipe(database)
    assert db("current", "--db", database) == 1  # nothing there
    assert db("restore", "--db", database, str(written)) == 0
    assert rows(database) == before

    restored = Store(database)
    try:
        restored.migrate()  # what `serve` does at start: nothing to do
        assert restored.hands(session_id=session_id) == hands
        assert restored.tables() == ["t01", "t02"]
        assert [t.label for t in restored.tokens()] == ["front desk"]
        play(restored, load_game("EX03", "t03"))  # and it takes new records
        assert "t03" in restored.tables()
    finally:
        restored.close()


def test_an_sqlite_restore_waits_for_the_service_to_stop(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert db("upgrade", "--data-dir", str(data_dir)) == 0
    backup = tmp_path / "backup.db"
    assert db("backup", "--data-dir", str(data_dir), str(backup)) == 0
    settings = load_serve_settings(None, data_dir=data_dir)
    with single_writer(settings):  # as a running `mjtable serve` holds it
        assert db("restore", "--data-dir", str(data_dir), str(backup)) == 3
    assert db("restore", "--data-dir", str(data_dir), str(backup)) == 0


def test_a_backup_of_a_missing_database_fails(tmp_path: Path) -> None:
    assert db("backup", "--data-dir", str(tmp_path / "none"), str(tmp_path)) == 2
    assert list(tmp_path.iterdir()) == []


def older_revisions() -> list[str | None]:
    """Every revision behind head, None for an empty database."""
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    head = script.get_current_head()
    return [None] + [r.revision for r in script.walk_revisions() if r.revision != head]


@pytest.mark.parametrize("revision", older_revisions())
def test_upgrade_brings_an_older_database_to_head(
    store_url: str, revision: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    if revision is not None:
        command.upgrade(alembic_config(store_url), revision)
    assert db("current", "--db", store_url) == 1
    assert "behind" in capsys.readouterr().out
    assert db("upgrade", "--db", store_url) == 0
    head = ScriptDirectory.from_config(alembic_config(store_url)).get_current_head()
    assert capsys.readouterr().out.strip().endswith(f"-> {head}")
    assert db("current", "--db", store_url) == 0
    assert "up to date" in capsys.readouterr().out
    store = Store(store_url)
    try:
        session_id = play(store, load_game("EX01", "t01"))
        assert store.hands(session_id=session_id)
    finally:
        store.close()


def test_db_reads_the_services_settings_file(tmp_path: Path) -> None:
    """`--config /etc/mjtable/serve.toml` finds the database `serve` uses."""
    config = tmp_path / "serve.toml"
    config.write_text(f'[serve]\ndata_dir = "{tmp_path / "data"}"\n')
    assert db("upgrade", "--config", str(config)) == 0
    assert (tmp_path / "data" / "mjtable.db").is_file()
    assert db("current", "--config", str(config)) == 0


RECORDER = """#!{python}
import json, os, sys
with open({record!r}, "a") as out:
    out.write(json.dumps({{"argv": sys.argv, "env": dict(os.environ)}}) + "\\n")
for arg in sys.argv:
    if arg.startswith("--file="):
        open(arg.removeprefix("--file="), "wb").write(b"PGDMP")
"""


@pytest.mark.skipif(not PG_URL, reason="MJTABLE_TEST_DATABASE_URL is not set")
def test_the_database_password_never_reaches_a_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pg_dump and pg_restore are found on PATH: a recorder put first there sees the
    argv and environment each child really got (what `ps` would show, and what not)."""
    assert PG_URL is not None
    secret = "s3cret-Pw0rd"
    url = make_url(PG_URL).set(password=secret).render_as_string(hide_password=False)
    assert db("upgrade", "--db", url) == 0  # the test server trusts 127.0.0.1: any password
    tools = tmp_path / "bin"
    tools.mkdir()
    record = tmp_path / "calls.jsonl"
    for name in ("pg_dump", "pg_restore"):
        (tools / name).write_text(RECORDER.format(python=sys.executable, record=str(record)))
        (tools / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("PGPASSWORD", raising=False)

    dump = tmp_path / "club.dump"
    assert db("backup", "--db", url, str(dump)) == 0
    assert dump.read_bytes() == b"PGDMP"
    assert db("restore", "--db", url, str(dump)) == 0

    calls = [json.loads(line) for line in record.read_text().splitlines()]
    assert [Path(call["argv"][0]).name for call in calls] == ["pg_dump", "pg_restore"]
    parsed = make_url(PG_URL)
    for call in calls:
        assert not any(secret in arg for arg in call["argv"]), call["argv"]
        assert not any("://" in arg for arg in call["argv"])  # no URL at all
        assert call["env"]["PGPASSWORD"] == secret
        assert f"--host={parsed.host}" in call["argv"]
        assert f"--username={parsed.username}" in call["argv"]
        assert f"--dbname={parsed.database}" in call["argv"]
    assert "PGPASSWORD" not in os.environ  # the parent's own environment is left as it was


def test_url_parameters_ride_in_a_connection_string() -> None:
    from mjtable.commands.db import libpq_arguments

    options, env = libpq_arguments(
        "postgresql://club:p%40ss@db.lan:5433/it's?sslmode=require&options=-csearch_path%3Dx"
    )
    assert options == [
        "--host=db.lan", "--port=5433", "--username=club",
        "--dbname=dbname='it\\'s' sslmode=require options=-csearch_path=x",
    ]  # fmt: skip
    assert env == {"PGPASSWORD": "p@ss"}
