"""Changing a CHECK constraint's list of values or a column's NOT NULL, on PostgreSQL
and on SQLite."""

from __future__ import annotations

from alembic import op


def rewrite_check(table: str, name: str, before: str, after: str) -> None:
    """Replace the CHECK `name` of `table` (`before` → `after`, the same constraint text
    the models give). PostgreSQL drops and adds it. SQLite keeps a CHECK as text in its
    schema, and a batch copy of a table that others name (log, corrections) cannot be
    dropped; when every stored row stays valid, the text is rewritten in place, as
    SQLite's ALTER TABLE page describes."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        op.drop_constraint(op.f(name), table, type_="check")
        op.create_check_constraint(op.f(name), table, after)
        return
    rewrite_sqlite_schema(table, before, after)


def rewrite_sqlite_schema(table: str, before: str, after: str) -> None:
    """Replace `before` by `after` in SQLite's stored text of `table`'s schema: for a
    change every stored row already satisfies (a CHECK widened, a NOT NULL dropped) on a
    table others name, which a batch copy cannot drop (SQLite's ALTER TABLE page)."""
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
        (before, after, table),
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")
