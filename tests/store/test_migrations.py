"""The migrations build the schema the models describe, on an empty database of each
backend, and ship with the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from table_service.store import Store, alembic_config
from table_service.store.models import Base

TABLES = {
    "log", "sessions", "hands", "ledger", "violations", "faults", "corrections",
    "snapshots", "tokens", "players", "seats",
}  # fmt: skip


def test_migrate_builds_every_table_on_an_empty_database(store_url: str) -> None:
    store = Store(store_url)
    try:
        store.migrate()
        names = set(inspect(store.engine).get_table_names())
        assert names == TABLES | {"alembic_version"}
        head = ScriptDirectory.from_config(alembic_config(store_url)).get_current_head()
        with store.engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == head
    finally:
        store.close()


def test_models_and_migrations_agree(store: Store) -> None:
    """What `alembic check` asks: autogenerate finds nothing to add, drop or alter."""
    with store.engine.connect() as connection:
        diffs = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert diffs == []


def test_migrate_twice_is_a_no_op(store: Store) -> None:
    store.create_token("admin", "kept")
    store.migrate()
    assert [t.label for t in store.tokens()] == ["kept"]


def test_downgrade_then_upgrade(store: Store, store_url: str) -> None:
    config = alembic_config(store_url)
    command.downgrade(config, "base")
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    store.engine.dispose()
    store.migrate()
    assert set(inspect(store.engine).get_table_names()) >= TABLES


def test_the_migrations_are_package_data() -> None:
    """An installed (non-editable) package carries every file Alembic reads."""
    root = Path(__file__).parents[2]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["table_service"]
    shipped = {p for pattern in patterns for p in (root / "table_service").glob(pattern)}
    migrations = root / "table_service" / "store" / "migrations"
    needed = {migrations / "env.py", migrations / "script.py.mako", migrations / "checks.py"}
    needed |= set((migrations / "versions").glob("*.py"))
    assert needed <= shipped
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    assert len(list(script.walk_revisions())) == len(list((migrations / "versions").glob("*.py")))


def test_decisions_become_verdict_rulings(store_url: str) -> None:
    """0003: a decision on a violation row becomes a `verdict` ruling naming the violation
    by its event, seat and code (confirmed → uphold, dismissed → overturn), its note the
    reason; the decisions table goes, and a downgrade gives it back empty."""
    config = alembic_config(store_url)
    store = Store(store_url)
    try:
        command.upgrade(config, "0002")
        with store.engine.begin() as c:
            token = c.execute(
                text(
                    "INSERT INTO tokens (role, label, hash, created_at) "
                    "VALUES ('referee', 'ref', 'h', 0) RETURNING id"
                )
            ).scalar_one()
            log = c.execute(
                text(
                    'INSERT INTO log ("table", kind, boot_id, seq, ts, body) '
                    "VALUES ('t1', 'event', 7, 3, 1.0, '{}') RETURNING id"
                )
            ).scalar_one()
            v = c.execute(
                text(
                    'INSERT INTO violations ("table", log_id, boot_id, seq, seat, '
                    "code, detail) VALUES ('t1', :log, 7, 3, 2, 'out_of_turn', 'x') "
                    "RETURNING id"
                ),
                {"log": log},
            ).scalar_one()
            c.execute(
                text(
                    "INSERT INTO decisions (violation_id, decision, note, token_id, at) "
                    "VALUES (:v, 'dismissed', 'sensor', :t, 5.0), "
                    "(:v, 'confirmed', '', NULL, 6.0)"
                ),
                {"v": v, "t": token},
            )
        store.engine.dispose()
        store.migrate()
        assert "decisions" not in inspect(store.engine).get_table_names()
        first, second = store.corrections("t1")
        assert first.body == {"kind": "verdict", "boot_id": 7, "seq": 3, "seat": 2,
                              "code": "out_of_turn", "decision": "overturn",
                              "reason": "sensor", "token_id": token}  # fmt: skip
        assert (first.token_id, first.at, first.kind) == (token, 5.0, "verdict")
        assert second.body["decision"] == "uphold"
        assert second.body["reason"] == "confirmed (before rulings)"
        (v,) = store.violations("t1")
        assert v.status == "confirmed" and v.decision is not None
        store.engine.dispose()
        command.downgrade(config, "0002")
        assert "decisions" in inspect(store.engine).get_table_names()
        with store.engine.connect() as c:
            assert c.execute(text("SELECT count(*) FROM corrections")).scalar_one() == 0
            assert c.execute(text("SELECT count(*) FROM log")).scalar_one() == 1
    finally:
        store.close()
