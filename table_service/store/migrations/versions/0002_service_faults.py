"""The log takes the service's own faults: an entry of kind `fault` (a delivery that
conflicts with what is stored, a boot that appeared from nowhere).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from table_service.store.migrations.checks import rewrite_check

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = "kind IN ('event', 'session', 'session_end', 'correction')"
AFTER = "kind IN ('event', 'session', 'session_end', 'correction', 'fault')"


def _kinds(before: str, after: str) -> None:
    rewrite_check("log", "ck_log_kind", before, after)


def upgrade() -> None:
    _kinds(BEFORE, AFTER)


def downgrade() -> None:
    op.execute("DELETE FROM faults WHERE log_id IN (SELECT id FROM log WHERE kind = 'fault')")
    op.execute("DELETE FROM log WHERE kind = 'fault'")
    _kinds(AFTER, BEFORE)
