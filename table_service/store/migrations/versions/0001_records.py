"""The service's records: the log, sessions, hands, ledger, judgements, tokens.

Revision ID: 0001
Revises:
Create Date: 2026-11-30

`log.session_id` and `sessions.started_log_id` name each other. SQLite takes a foreign
key to a table not made yet (and cannot add one later without copying the table), so
there it is declared inline; PostgreSQL adds it once `sessions` exists.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


LOG_SESSION_FK = "fk_log_session_id_sessions"


def upgrade() -> None:
    inline = op.get_bind().dialect.name == "sqlite"
    log_session_fk = (
        [sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], name=op.f(LOG_SESSION_FK))]
        if inline
        else []
    )
    op.create_table(
        "log",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("boot_id", sa.BigInteger(), nullable=True),
        sa.Column("seq", sa.BigInteger(), nullable=True),
        sa.Column("ts", sa.Double(), nullable=False),
        sa.Column("body", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.CheckConstraint(
            "(kind = 'event') = (boot_id IS NOT NULL AND seq IS NOT NULL)",
            name=op.f("ck_log_event_key"),
        ),
        sa.CheckConstraint(
            "kind IN ('event', 'session', 'session_end', 'correction')", name=op.f("ck_log_kind")
        ),
        *log_session_fk,
        sa.PrimaryKeyConstraint("id", name=op.f("pk_log")),
        sa.UniqueConstraint("table", "boot_id", "seq", name=op.f("uq_log_table_boot_id_seq")),
    )
    op.create_index(op.f("ix_log_session_id"), "log", ["session_id"])
    op.create_index(op.f("ix_log_table_id"), "log", ["table", "id"])

    op.create_table(
        "tokens",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.Double(), nullable=False),
        sa.Column("revoked_at", sa.Double(), nullable=True),
        sa.CheckConstraint("role IN ('referee', 'admin')", name=op.f("ck_tokens_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tokens")),
        sa.UniqueConstraint("hash", name=op.f("uq_tokens_hash")),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("profile", sa.JSON(), nullable=False),
        sa.Column("base", sa.Integer(), nullable=False),
        sa.Column("per_tai", sa.Integer(), nullable=False),
        sa.Column("start_seat", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("round_wind", sa.String(length=1), nullable=False),
        sa.Column(
            "started_log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("started_at", sa.Double(), nullable=False),
        sa.Column(
            "ended_log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("ended_at", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(
            ["ended_log_id"], ["log.id"], name=op.f("fk_sessions_ended_log_id_log")
        ),
        sa.ForeignKeyConstraint(
            ["started_log_id"], ["log.id"], name=op.f("fk_sessions_started_log_id_log")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
    )
    op.create_index(op.f("ix_sessions_table_id"), "sessions", ["table", "id"])
    if not inline:
        op.create_foreign_key(op.f(LOG_SESSION_FK), "log", "sessions", ["session_id"], ["id"])

    op.create_table(
        "snapshots",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("at", sa.Double(), nullable=False),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_snapshots_log_id_log")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_snapshots")),
    )
    op.create_index(op.f("ix_snapshots_table_log_id"), "snapshots", ["table", "log_id"])

    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=True),
        sa.Column("at", sa.Double(), nullable=False),
        sa.CheckConstraint("kind IN ('penalty', 'deal', 'note')", name=op.f("ck_corrections_kind")),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_corrections_log_id_log")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_corrections_session_id_sessions")
        ),
        sa.ForeignKeyConstraint(
            ["token_id"], ["tokens.id"], name=op.f("fk_corrections_token_id_tokens")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_corrections")),
    )
    op.create_index(op.f("ix_corrections_session_id"), "corrections", ["session_id"])
    op.create_index(op.f("ix_corrections_table_id"), "corrections", ["table", "id"])

    op.create_table(
        "faults",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("boot_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_faults_log_id_log")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_faults_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_faults")),
    )
    op.create_index(op.f("ix_faults_session_id"), "faults", ["session_id"])
    op.create_index(op.f("ix_faults_table_id"), "faults", ["table", "id"])

    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("boot_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("hand_no", sa.Integer(), nullable=False),
        sa.Column("round_wind", sa.String(length=1), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("result", sa.String(length=16), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("payer", sa.Integer(), nullable=True),
        sa.Column("tai", sa.Integer(), nullable=False),
        sa.Column("dealer_tai", sa.Integer(), nullable=False),
        sa.Column("winning_tile", sa.String(length=4), nullable=True),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("codes", sa.JSON(), nullable=False),
        sa.Column("net", sa.JSON(), nullable=False),
        sa.Column("payments", sa.JSON(), nullable=False),
        sa.Column("next", sa.JSON(none_as_null=True), nullable=True),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_hands_log_id_log")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_hands_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_hands")),
        sa.UniqueConstraint("log_id", "hand_no", name=op.f("uq_hands_log_id_hand_no")),
    )
    op.create_index(op.f("ix_hands_session_id"), "hands", ["session_id"])
    op.create_index(op.f("ix_hands_table_id"), "hands", ["table", "id"])

    op.create_table(
        "violations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=True),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("boot_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=32), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_violations_log_id_log")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_violations_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_violations")),
    )
    op.create_index(op.f("ix_violations_session_id"), "violations", ["session_id"])
    op.create_index(op.f("ix_violations_table_id"), "violations", ["table", "id"])

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

    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("session_id", sa.Integer(), nullable=False),
        sa.Column("table", sa.String(length=64), nullable=False),
        sa.Column("log_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("hand_id", sa.Integer(), nullable=True),
        sa.Column("correction_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(length=200), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["correction_id"], ["corrections.id"], name=op.f("fk_ledger_correction_id_corrections")
        ),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name=op.f("fk_ledger_hand_id_hands")),
        sa.ForeignKeyConstraint(["log_id"], ["log.id"], name=op.f("fk_ledger_log_id_log")),
        sa.ForeignKeyConstraint(
            ["session_id"], ["sessions.id"], name=op.f("fk_ledger_session_id_sessions")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
    )
    op.create_index(op.f("ix_ledger_session_id"), "ledger", ["session_id"])


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f(LOG_SESSION_FK), "log", type_="foreignkey")
    for table in (
        "ledger", "decisions", "violations", "hands", "faults", "corrections", "snapshots",
        "sessions", "tokens", "log",
    ):  # fmt: skip
        op.drop_table(table)  # their indexes go with them
