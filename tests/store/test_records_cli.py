"""`mjtable token` and `mjtable export` as an operator runs them: the records named by the
service's own settings file (--config), or by --db; errors exit 2 and say what is wrong."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

from table_service.store import Store
from tests.store.kit import Game, play

MJTABLE = [sys.executable, "-m", "mjtable"]


ROOT = Path(__file__).resolve().parents[2]


def mjtable(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MJTABLE_SERVE_")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [*MJTABLE, *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env
    )


def test_tokens_through_the_services_settings_file(tmp_path: Path) -> None:
    config = tmp_path / "serve.toml"
    config.write_text(f'[serve]\ndata_dir = "{tmp_path / "data"}"\n')
    made = mjtable(
        "token", "create", "--role", "referee", "--label", "desk", "--config", str(config)
    )
    assert made.returncode == 0, made.stderr
    secret = made.stdout.strip()
    assert len(secret) >= 32 and "shown only now" in made.stderr
    listed = mjtable("token", "list", "--config", str(config))
    (row,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (row["role"], row["label"], row["revoked_at"]) == ("referee", "desk", None)
    assert secret not in listed.stdout  # only its hash is kept
    store = Store(f"sqlite:///{tmp_path / 'data' / 'mjtable.db'}")  # where serve would look
    try:
        found = store.token_for(secret)
        assert found is not None and found.role == "referee"
        assert mjtable("token", "revoke", str(row["id"]), "--config", str(config)).returncode == 0
        assert store.token_for(secret) is None
    finally:
        store.close()
    missing = mjtable("token", "revoke", "999", "--config", str(config))
    assert missing.returncode == 2 and "token: no token 999" in missing.stderr


def test_a_missing_or_bad_settings_file_exits_2_naming_it(tmp_path: Path) -> None:
    absent = mjtable("token", "list", "--config", str(tmp_path / "nope.toml"))
    assert absent.returncode == 2 and "nope.toml" in absent.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[serve]\ndb = 'oracle://x'\n")
    refused = mjtable("export", "--session", "1", "--config", str(bad))
    assert refused.returncode == 2 and "is not sqlite:///path or postgresql://" in refused.stderr


def test_export_a_session_as_json_and_csv(tmp_path: Path, ex01: Game) -> None:
    url = f"sqlite:///{tmp_path / 'records.db'}"
    store = Store(url)
    try:
        store.migrate()
        session_id = play(store, ex01)
        standings = [s.total for s in store.standings(session_id)]
    finally:
        store.close()
    as_json = mjtable("export", "--session", str(session_id), "--db", url)
    assert as_json.returncode == 0, as_json.stderr
    exported = json.loads(as_json.stdout)
    assert [s["total"] for s in exported["standings"]] == standings
    assert sum(standings) == 0 and any(standings)
    out = tmp_path / "s.csv"
    as_csv = mjtable("export", "--session", str(session_id), "--db", url, "--format", "csv",
                     "-o", str(out))  # fmt: skip
    assert as_csv.returncode == 0 and as_csv.stdout == ""
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # a BOM: a spreadsheet reads it as UTF-8
    rows = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert rows[0][0] == "hand" and rows[0][-4:] == ["P0", "P1", "P2", "P3"]
    assert len(rows) >= 3
    unknown = mjtable("export", "--session", "999", "--db", url)
    assert unknown.returncode == 2 and "export: no session 999" in unknown.stderr


def test_export_without_a_database_says_where_it_looked_and_creates_nothing(
    tmp_path: Path,
) -> None:
    looked = tmp_path / "mjtable-data" / "mjtable.db"
    result = mjtable("export", "--session", "1", cwd=tmp_path)
    assert result.returncode == 2 and f"no database at {looked}" in result.stderr
    given = mjtable("export", "--session", "1", "--data-dir", str(tmp_path / "elsewhere"))
    assert given.returncode == 2 and str(tmp_path / "elsewhere" / "mjtable.db") in given.stderr
    assert list(tmp_path.iterdir()) == []  # no directory, no empty database


def test_db_refold_derives_the_records_again_from_the_log(tmp_path: Path, ex02: Game) -> None:
    """Rows lost or written by an older rule (here: deleted) come back from the log as
    the fold gives them: the 詐胡, its violation and its money, for every table or one."""
    url = f"sqlite:///{tmp_path / 'records.db'}"
    store = Store(url)
    try:
        store.migrate()
        session_id = play(store, ex02)
        hands = store.hands(session_id=session_id)
        standings = [s.total for s in store.standings(session_id)]
        with store.engine.begin() as connection:
            for table in ("ledger", "hands", "violations"):
                connection.exec_driver_sql(f"DELETE FROM {table}")
        assert store.hands(session_id=session_id) == []
    finally:
        store.close()
    done = mjtable("db", "refold", "--db", url)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "t2: derived again from its log; 1 hand(s) changed\n"
    store = Store(url)
    try:
        again = store.hands(session_id=session_id)
        assert [(h.result, h.seat, h.net) for h in again] == [
            (h.result, h.seat, h.net) for h in hands
        ]
        assert [s.total for s in store.standings(session_id)] == standings
        assert [v.code for v in store.violations("t2")] == ["false_win"]
    finally:
        store.close()
    unknown = mjtable("db", "refold", "nowhere", "--db", url)
    assert unknown.returncode == 2 and "no table 'nowhere'" in unknown.stderr
