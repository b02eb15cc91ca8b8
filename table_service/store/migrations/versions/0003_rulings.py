"""Rulings: a referee's word is a log entry the records follow.

The corrections table holds every ruling (tile, drop, insert, verdict, hand, undo besides
penalty, deal and note), with where its re-derivation began and what it changed. A
decision on a violation was a row beside the records, naming a violation row by id; the
rows are derived again now, so each decision becomes a `verdict` ruling naming the
violation by what it is (event, seat, code): confirmed → uphold, dismissed → overturn.
The decisions table goes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from table_service.store.migrations.checks import rewrite_check

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BEFORE = "kind IN ('penalty', 'deal', 'note')"
AFTER = "kind IN ('tile', 'drop', 'insert', 'verdict', 'hand', 'undo', 'deal', 'penalty', 'note')"
DECISION = {"confirmed": "uphold", "dismissed": "overturn"}

log = sa.table(
    "log",
    sa.column("id", sa.Integer),
    sa.column("table", sa.String),
    sa.column("kind", sa.String),
    sa.column("ts", sa.Double),
    sa.column("body", sa.JSON),
    sa.column("session_id", sa.Integer),
)
corrections = sa.table(
    "corrections",
    sa.column("id", sa.Integer),
    sa.column("table", sa.String),
    sa.column("session_id", sa.Integer),
    sa.column("log_id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("body", sa.JSON),
    sa.column("token_id", sa.Integer),
    sa.column("at", sa.Double),
)


def upgrade() -> None:
    rewrite_check("corrections", "ck_corrections_kind", BEFORE, AFTER)
    op.add_column("corrections", sa.Column("effect", sa.JSON(none_as_null=True), nullable=True))
    bind = op.get_bind()
    decisions = bind.execute(
        sa.text(
            'SELECT d.decision, d.note, d.token_id, d.at, v."table", v.session_id, '
            "v.boot_id, v.seq, v.seat, v.code FROM decisions d "
            "JOIN violations v ON v.id = d.violation_id ORDER BY d.id"
        )
    ).all()
    for decision, note, token_id, at, table, session_id, boot_id, seq, seat, code in decisions:
        body = {
            "kind": "verdict", "boot_id": boot_id, "seq": seq, "seat": seat, "code": code,
            "decision": DECISION[decision], "reason": note or f"{decision} (before rulings)",
            "token_id": token_id,
        }  # fmt: skip
        log_id = bind.execute(
            log.insert()
            .values(table=table, kind="correction", ts=at, body=body, session_id=session_id)
            .returning(log.c.id)
        ).scalar_one()
        bind.execute(
            corrections.insert().values(
                table=table,
                session_id=session_id,
                log_id=log_id,
                kind="verdict",
                body=body,
                token_id=token_id,
                at=at,
            )
        )
    op.drop_index(op.f("ix_decisions_violation_id"), table_name="decisions")
    op.drop_table("decisions")


def downgrade() -> None:
    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("violation_id", sa.Integer(), nullable=False),
        sa.Column("decision", sa.String(length=16), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.Double(), nullable=False),
        sa.CheckConstraint(
            "decision IN ('confirmed', 'dismissed')", name=op.f("ck_decisions_decision")
        ),
        sa.ForeignKeyConstraint(
            ["token_id"], ["tokens.id"], name=op.f("fk_decisions_token_id_tokens")
        ),
        sa.ForeignKeyConstraint(
            ["violation_id"], ["violations.id"], name=op.f("fk_decisions_violation_id_violations")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decisions")),
    )
    op.create_index(op.f("ix_decisions_violation_id"), "decisions", ["violation_id"])
    # Rulings the earlier schema cannot hold are dropped; the records they re-derived stay.
    bind = op.get_bind()
    newer = "FROM corrections WHERE kind NOT IN ('penalty', 'deal', 'note')"
    ids = [row[0] for row in bind.execute(sa.text(f"SELECT log_id {newer}"))]
    op.execute(f"DELETE {newer}")
    if ids:
        bind.execute(log.delete().where(log.c.id.in_(ids)))  # named by nothing else
    op.execute("ALTER TABLE corrections DROP COLUMN effect")
    rewrite_check("corrections", "ck_corrections_kind", AFTER, BEFORE)
