"""The migrations build the schema the models describe, on an empty database of each
backend, and ship with the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from table_service.store import Store, alembic_config
from table_service.store.models import Base

TABLES = {
    "log", "sessions", "hands", "ledger", "violations", "decisions", "faults", "corrections",
    "snapshots", "tokens",
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
    needed = {migrations / "env.py", migrations / "script.py.mako"}
    needed |= set((migrations / "versions").glob("*.py"))
    assert needed <= shipped
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    assert len(list(script.walk_revisions())) == len(list((migrations / "versions").glob("*.py")))
