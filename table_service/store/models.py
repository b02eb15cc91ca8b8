"""The service's tables (SQLAlchemy 2, typed declarative): the schema the migrations build.

The log is append-only: an entry is never changed or deleted. The rows derived from it
(hands, violations, faults, their ledger lines, snapshots) are the fold's consequence,
and a referee's ruling derives them again from the entry it names (projector.py). Times are Unix
seconds (UTC) as floats, like an event's `ts`: the same on SQLite and PostgreSQL,
with no time-zone trap. Constraint names come from one naming convention, so the
migrations and the models agree on both backends.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Double,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from table_service.mirror.rulings import RULING_KINDS
from table_service.store.entries import ENTRY_KINDS

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

TABLE_NAME = 64  # a table's name, as the bridge's --table
# Log ids and event keys outgrow 32 bits (a boot id is a u32); SQLite's INTEGER is 64-bit
# already, and only "INTEGER PRIMARY KEY" is its rowid alias (autoincrement).
BigId = BigInteger().with_variant(Integer, "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Log(Base):
    """Every table's ordered log: bridge events and service entries; `id` is the order."""

    __tablename__ = "log"
    __table_args__ = (
        UniqueConstraint("table", "boot_id", "seq"),
        Index(None, "table", "id"),
        CheckConstraint(f"kind IN ({', '.join(repr(k) for k in ENTRY_KINDS)})", name="kind"),
        CheckConstraint(
            "(kind = 'event') = (boot_id IS NOT NULL AND seq IS NOT NULL)", name="event_key"
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    kind: Mapped[str] = mapped_column(String(16))
    boot_id: Mapped[int | None] = mapped_column(BigInteger)
    seq: Mapped[int | None] = mapped_column(BigInteger)
    ts: Mapped[float] = mapped_column(Double)
    body: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # use_alter: log and sessions name each other (a session starts at a log entry).
    session_id: Mapped[int | None] = mapped_column(
        ForeignKey("sessions.id", use_alter=True), index=True
    )


class SessionModel(Base):
    """A session at a table: its players, stakes and profile, from start to end."""

    __tablename__ = "sessions"
    __table_args__ = (Index(None, "table", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    players: Mapped[list[Any]] = mapped_column(JSON)
    profile: Mapped[Any] = mapped_column(JSON)  # a preset's name, or overrides
    base: Mapped[int] = mapped_column(Integer)
    per_tai: Mapped[int] = mapped_column(Integer)
    start_seat: Mapped[int] = mapped_column(Integer)
    # null: left to the table (a session asked for during a hand); its first hand says
    dealer: Mapped[int | None] = mapped_column(Integer)
    streak: Mapped[int | None] = mapped_column(Integer)
    round_wind: Mapped[str | None] = mapped_column(String(1))
    started_log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    started_at: Mapped[float] = mapped_column(Double)
    ended_log_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("log.id"))
    ended_at: Mapped[float | None] = mapped_column(Double)


class HandModel(Base):
    """A hand the mirror scored and settled (a `HandRecord`)."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("log_id", "hand_no"), Index(None, "table", "id"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    boot_id: Mapped[int] = mapped_column(BigInteger)
    seq: Mapped[int] = mapped_column(BigInteger)
    hand_no: Mapped[int] = mapped_column(Integer)
    round_wind: Mapped[str] = mapped_column(String(1))
    dealer: Mapped[int] = mapped_column(Integer)
    streak: Mapped[int] = mapped_column(Integer)
    result: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str | None] = mapped_column(String(32))
    seat: Mapped[int | None] = mapped_column(Integer)
    payer: Mapped[int | None] = mapped_column(Integer)
    tai: Mapped[int] = mapped_column(Integer)
    dealer_tai: Mapped[int] = mapped_column(Integer)
    winning_tile: Mapped[str | None] = mapped_column(String(4))
    items: Mapped[list[Any]] = mapped_column(JSON)
    codes: Mapped[list[Any]] = mapped_column(JSON)
    net: Mapped[list[Any]] = mapped_column(JSON)
    payments: Mapped[list[Any]] = mapped_column(JSON)
    next: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    # what the sensors saw of its play (records.HandPlay); null for hands stored before it
    play: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class LedgerLine(Base):
    """One seat's money from one hand or correction; a hand's four lines sum to 0."""

    __tablename__ = "ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id"), index=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    hand_id: Mapped[int | None] = mapped_column(ForeignKey("hands.id"))
    # the hand itself: a hand and its lines are added together and inserted in one flush
    hand: Mapped[HandModel | None] = relationship()
    correction_id: Mapped[int | None] = mapped_column(ForeignKey("corrections.id"))
    seat: Mapped[int] = mapped_column(Integer)
    player: Mapped[str] = mapped_column(String(200))
    amount: Mapped[int] = mapped_column(Integer)


class ViolationModel(Base):
    """A player broke a rule (a `Violation`); a referee's decisions on it are rows apart."""

    __tablename__ = "violations"
    __table_args__ = (Index(None, "table", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    boot_id: Mapped[int] = mapped_column(BigInteger)
    seq: Mapped[int] = mapped_column(BigInteger)
    seat: Mapped[int] = mapped_column(Integer)
    code: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(Text)


class FaultModel(Base):
    """The event stream was impossible (a `Fault`): a sensor, not a player."""

    __tablename__ = "faults"
    __table_args__ = (Index(None, "table", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    boot_id: Mapped[int] = mapped_column(BigInteger)
    seq: Mapped[int] = mapped_column(BigInteger)
    code: Mapped[str] = mapped_column(String(32))
    detail: Mapped[str] = mapped_column(Text)


class CorrectionModel(Base):
    """A referee's ruling (rulings.py): a log entry of its own, who made it and why, and
    what it changed (`effect`: where its re-derivation began, the money before and after)."""

    __tablename__ = "corrections"
    __table_args__ = (
        CheckConstraint(f"kind IN ({', '.join(repr(k) for k in RULING_KINDS)})", name="kind"),
        Index(None, "table", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    session_id: Mapped[int | None] = mapped_column(ForeignKey("sessions.id"), index=True)
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    kind: Mapped[str] = mapped_column(String(16))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    token_id: Mapped[int | None] = mapped_column(ForeignKey("tokens.id"))
    at: Mapped[float] = mapped_column(Double)
    effect: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class SnapshotModel(Base):
    """A pickled mirror taken at a log entry, so a restart folds only what follows."""

    __tablename__ = "snapshots"
    __table_args__ = (Index(None, "table", "log_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table: Mapped[str] = mapped_column(String(TABLE_NAME))
    log_id: Mapped[int] = mapped_column(BigId, ForeignKey("log.id"))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    at: Mapped[float] = mapped_column(Double)


class TokenModel(Base):
    """An API token: only the secret's sha256 is kept, the secret is shown once."""

    __tablename__ = "tokens"
    __table_args__ = (
        UniqueConstraint("hash"),
        CheckConstraint("role IN ('referee', 'admin')", name="role"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    role: Mapped[str] = mapped_column(String(16))
    label: Mapped[str] = mapped_column(String(200))
    hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Double)
    revoked_at: Mapped[float | None] = mapped_column(Double)


class PlayerModel(Base):
    """A player of the club's list. A merge points the merged player at the one it joined
    (`merged_into`): both histories stay, counted under the one that is left."""

    __tablename__ = "players"
    __table_args__ = (UniqueConstraint("name"), UniqueConstraint("member_no"))

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    nickname: Mapped[str | None] = mapped_column(String(200))
    member_no: Mapped[str | None] = mapped_column(String(64))
    merged_into: Mapped[int | None] = mapped_column(ForeignKey("players.id"))
    created_at: Mapped[float] = mapped_column(Double)


class SeatModel(Base):
    """Who of the list sat where in a session (a guest, by name alone, has no row)."""

    __tablename__ = "seats"

    session_id: Mapped[int] = mapped_column(ForeignKey("sessions.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id"), index=True)
