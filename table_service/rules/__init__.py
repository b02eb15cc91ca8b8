"""The rules engine: pure functions over immutable values, no I/O.

Entry points: `parse_hand` + `score` (or `score_json`), `wait_kinds`,
`settle` (or `settle_json`), and `Profile` / `profile_from_toml` / `load_preset`.
"""

from table_service.rules.hand import Hand, HandInputError, Meld, parse_hand
from table_service.rules.profile import (
    DEFAULT_PROFILE,
    Profile,
    ProfileError,
    Rules,
    load_preset,
    preset_names,
    profile_from_mapping,
    profile_from_toml,
)
from table_service.rules.scoring import ScoredItem, ScoreResult, score, score_json
from table_service.rules.settlement import (
    HandOutcome,
    Payment,
    SettleInputError,
    Stakes,
    net,
    session_totals,
    settle,
    settle_json,
)
from table_service.rules.shapes import is_complete, readings, wait_kinds

__all__ = [
    "DEFAULT_PROFILE",
    "Hand",
    "HandInputError",
    "HandOutcome",
    "Meld",
    "Payment",
    "Profile",
    "ProfileError",
    "Rules",
    "ScoreResult",
    "ScoredItem",
    "SettleInputError",
    "Stakes",
    "is_complete",
    "load_preset",
    "net",
    "parse_hand",
    "preset_names",
    "profile_from_mapping",
    "profile_from_toml",
    "readings",
    "score",
    "score_json",
    "session_totals",
    "settle",
    "settle_json",
    "wait_kinds",
]
