"""The log takes a seat taken before a session's first shuffle: an entry of kind
`seating` (a player's seat code scanned at the table, or an admin seating by hand).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from table_service.store.migrations.checks import rewrite_check

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = "kind IN ('event', 'session', 'session_end', 'correction', 'fault')"
AFTER = "kind IN ('event', 'session', 'session_end', 'correction', 'fault', 'seating')"


def upgrade() -> None:
    rewrite_check("log", "ck_log_kind", BEFORE, AFTER)


def downgrade() -> None:
    # the seats stay as the entries left them in `sessions` and `seats`; the entries go
    op.execute("DELETE FROM log WHERE kind = 'seating'")
    rewrite_check("log", "ck_log_kind", AFTER, BEFORE)
