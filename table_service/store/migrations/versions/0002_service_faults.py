"""The log takes the service's own faults: an entry of kind `fault` (a delivery that
conflicts with what is stored, a boot that appeared from nowhere).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = "kind IN ('event', 'session', 'session_end', 'correction')"
AFTER = "kind IN ('event', 'session', 'session_end', 'correction', 'fault')"


def _kinds(before: str, after: str) -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f("ck_log_kind"), "log", type_="check")
        op.create_check_constraint(op.f("ck_log_kind"), "log", after)
        return
    # SQLite keeps a CHECK as text in its schema, and a batch copy of `log` cannot be
    # dropped while sessions and snapshots name it. The change leaves every stored row
    # valid, so the text is rewritten in place, as SQLite's ALTER TABLE page describes.
    bind = op.get_bind()
    version = bind.exec_driver_sql("PRAGMA schema_version").scalar_one()
    bind.exec_driver_sql("PRAGMA writable_schema = ON")
    bind.exec_driver_sql(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'log'",
        (before, after),
    )
    bind.exec_driver_sql(f"PRAGMA schema_version = {int(version) + 1}")
    bind.exec_driver_sql("PRAGMA writable_schema = OFF")


def upgrade() -> None:
    _kinds(BEFORE, AFTER)


def downgrade() -> None:
    op.execute("DELETE FROM faults WHERE log_id IN (SELECT id FROM log WHERE kind = 'fault')")
    op.execute("DELETE FROM log WHERE kind = 'fault'")
    _kinds(AFTER, BEFORE)
