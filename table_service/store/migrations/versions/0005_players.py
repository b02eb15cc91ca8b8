"""Players: the club's list, and who of it sat where in each session.

A session's players were names alone, forgotten after it. A player of the list has a
name, a nickname and a member number; a session's seat may name one (a guest stays a
name). A merge keeps both histories: the merged player points at the one it joined.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("nickname", sa.String(length=200), nullable=True),
        sa.Column("member_no", sa.String(length=64), nullable=True),
        sa.Column("merged_into", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(
            ["merged_into"], ["players.id"], name=op.f("fk_players_merged_into_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("member_no", name=op.f("uq_players_member_no")),
        sa.UniqueConstraint("name", name=op.f("uq_players_name")),
    )
    op.create_table(
        "seats",
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_seats_player_id_players")
        ),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_seats_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("session_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_player_id"), "seats", ["player_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_seats_player_id"), table_name="seats")
    op.drop_table("seats")
    op.drop_table("players")
