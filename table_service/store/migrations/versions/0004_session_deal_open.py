"""A session may leave its deal to the table: dealer, streak and round wind null until
its first hand, when they are the table's own as that hand shows them. A session asked
for during a hand begins at the next shuffle, so where the 將 then stands is known only
once the hand under way has ended (and a ruling on that hand may change it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from table_service.store.migrations.checks import rewrite_sqlite_schema

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS: dict[str, Any] = {  # the column types
    "dealer": sa.Integer(), "streak": sa.Integer(), "round_wind": sa.String(1)
}  # fmt: skip


def _nullable(nullable: bool) -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name, kind in COLUMNS.items():
            shown = kind.compile(dialect=op.get_bind().dialect)
            closed, open_ = f"{name} {shown} NOT NULL,", f"{name} {shown},"
            before, after = (closed, open_) if nullable else (open_, closed)
            rewrite_sqlite_schema("sessions", before, after)
        return
    for name, kind in COLUMNS.items():
        op.alter_column("sessions", name, existing_type=kind, nullable=nullable)


def upgrade() -> None:
    _nullable(True)


def downgrade() -> None:
    # where the table's deal was left open: the session's first hand's, else a new 將's
    for name, first in (("dealer", "dealer"), ("streak", "streak"), ("round_wind", "round_wind")):
        op.execute(
            f"UPDATE sessions SET {name} = (SELECT h.{first} FROM hands h "
            f"WHERE h.session_id = sessions.id ORDER BY h.id LIMIT 1) WHERE {name} IS NULL"
        )
    op.execute("UPDATE sessions SET dealer = start_seat WHERE dealer IS NULL")
    op.execute("UPDATE sessions SET streak = 0 WHERE streak IS NULL")
    op.execute("UPDATE sessions SET round_wind = 'E' WHERE round_wind IS NULL")
    _nullable(False)
