"""The service's records: tables' logs, sessions, hands, money, rulings, tokens.

`Store` is the one way in (SQLAlchemy 2 over SQLite or PostgreSQL, schema by Alembic);
`entries.py` holds what it stores, `rows.py` what its queries return.
"""

from table_service.store.entries import Applied, Entry, EntryKind
from table_service.store.errors import (
    DuplicateEvent,
    InvalidEntry,
    NotFound,
    StoreAhead,
    StoreDamaged,
    StoreError,
)
from table_service.store.players import RANKED
from table_service.store.rows import (
    ROLES,
    CorrectionRow,
    DecisionRow,
    FaultRow,
    HandRow,
    LedgerRow,
    NextDealRow,
    PaymentRow,
    PlayerHand,
    PlayerRow,
    PlayerStats,
    Role,
    SessionRow,
    Standing,
    StandingRow,
    TaiItem,
    TokenRow,
    ViolationRow,
)
from table_service.store.store import (
    Store,
    alembic_config,
    database_url,
    token_hash,
)

__all__ = [
    "RANKED",
    "ROLES",
    "Applied",
    "CorrectionRow",
    "DecisionRow",
    "DuplicateEvent",
    "Entry",
    "EntryKind",
    "FaultRow",
    "HandRow",
    "InvalidEntry",
    "LedgerRow",
    "NextDealRow",
    "NotFound",
    "PaymentRow",
    "PlayerHand",
    "PlayerRow",
    "PlayerStats",
    "Role",
    "SessionRow",
    "Standing",
    "StandingRow",
    "Store",
    "StoreAhead",
    "StoreDamaged",
    "StoreError",
    "TaiItem",
    "TokenRow",
    "ViolationRow",
    "alembic_config",
    "database_url",
    "token_hash",
]
