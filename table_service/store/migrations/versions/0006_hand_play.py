"""A hand keeps what the sensors saw of its play (`HandPlay`: its length, the winner's
wait, the go-round dealt in at, each seat's readiness and pace): the players' statistics
read it. Hands stored before have none (null) until a refold derives it from the log.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("hands", sa.Column("play", sa.JSON(none_as_null=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands") as batch:
        batch.drop_column("play")
