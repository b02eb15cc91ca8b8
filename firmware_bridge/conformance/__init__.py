"""The table link's conformance suite: a scripted host checks a device against docs/protocol.md.

`mjtable link-test --port PORT` runs it; firmware teams run it against their board.
"""

from firmware_bridge.conformance.checks import CHECKS, Board, Check
from firmware_bridge.conformance.suite import Result, run_check, run_suite, select
from firmware_bridge.conformance.wire import PortError, Wire

__all__ = [
    "CHECKS",
    "Board",
    "Check",
    "PortError",
    "Result",
    "Wire",
    "run_check",
    "run_suite",
    "select",
]
