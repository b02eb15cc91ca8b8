"""The game mirror: a table's events in, the referee's judgements out (replay-format.md).

`TableMirror` is sans-I/O; `replay_lines` runs a recorded stream through it.
"""

from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import (
    FAULT_CODES,
    VIOLATION_CODES,
    Fault,
    HandRecord,
    Record,
    Summary,
    Violation,
)
from table_service.mirror.replay import ReplayInputError, replay_lines
from table_service.mirror.session import SessionStart

__all__ = [
    "FAULT_CODES",
    "VIOLATION_CODES",
    "Fault",
    "HandRecord",
    "Record",
    "ReplayInputError",
    "SessionStart",
    "Summary",
    "TableMirror",
    "Violation",
    "replay_lines",
]
