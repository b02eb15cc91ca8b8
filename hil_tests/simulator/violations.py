"""Rule breaches the simulated players commit on purpose, and their ground truth.

The game mirror must flag every breach a player commits (taiwan16.md §3, "Violation
codes"); the soak run compares its flags with what was injected here. Each breach is
recorded with the offender's seat and the very catalogue message that constitutes
it, so the soak can find its (boot_id, seq) by identity in the sent list.

Breaches are decided by the fault dice (their own random stream), never by the
game's, so a seed plays the same game when the rate is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from firmware_bridge.protocol.catalogue import Message

SUPPORTED: Final[tuple[str, ...]] = (
    "out_of_turn",
    "wrong_end",
    "chow_not_from_left",
    "flower_discarded",
    "false_win",
    "passed_win",
    "restriction_6",
    "restriction_7",
    "void_declaration",
    "passed_pong",
    "reserve_draw",
    "dead_hand_claim",
    "restriction_8",
)

# Codes whose opportunities are rare (a few a hundred hands, or one a drawn hand) are
# tried at `rate` times this, at most 1, so a few hundred hands at 0.05 show each of them.
RARE: Final[dict[str, float]] = {
    "restriction_8": 4.0,  # a seat shows a pair by its own fault, then pongs it anyway
    "passed_win": 6.0,  # the chance a seat lets a win go to take a later one under 過水
    "passed_pong": 20.0,
    "restriction_7": 4.0,
    "reserve_draw": 6.0,
    "dead_hand_claim": 3.0,
    "restriction_6": 3.0,
}


@dataclass(frozen=True, slots=True)
class Violations:
    """How often the bots break rules: `rate` per opportunity (see `RARE`), for `codes`."""

    rate: float = 0.0
    codes: frozenset[str] = frozenset(SUPPORTED)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"--violations: a rate from 0 to 1, got {self.rate!r}")
        unknown = sorted(self.codes - set(SUPPORTED))
        if unknown:
            known = ", ".join(SUPPORTED)
            raise ValueError(f"--violation-codes: unknown code {unknown[0]!r} (known: {known})")

    @classmethod
    def parse(cls, rate: float, codes_spec: str = "all") -> Violations:
        """From the command line: a rate and `all` or a comma list of codes."""
        spec = codes_spec.strip()
        if spec in ("", "all"):
            return cls(rate)
        codes = frozenset(c.strip() for c in spec.split(",") if c.strip())
        return cls(rate, codes)

    def on(self, code: str) -> bool:
        """Whether `code` may be injected at all (no dice are rolled for one that is off)."""
        return self.rate > 0.0 and code in self.codes

    def chance(self, code: str) -> float:
        """The chance per opportunity: `rate`, raised for the rare codes (`RARE`)."""
        return min(1.0, self.rate * RARE.get(code, 1.0))


@dataclass(frozen=True, slots=True)
class InjectedViolation:
    """One breach: its code, the offender, and the emitted message that is the breach."""

    code: str
    seat: int
    message: Message

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "seat": self.seat, "event": self.message.KIND}
