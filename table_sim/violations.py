"""Rule breaches the simulated players commit on purpose, and their ground truth.

The game mirror must flag every breach a player commits (taiwan16.md §3, "Violation
codes"); the soak run compares its flags with what was injected here. Each breach is
recorded with the offender's seat and the very catalogue message that constitutes
it, so the soak can find its (boot_id, seq) by identity in the sent list.

A class (`SUPPORTED`, `--violation-codes`) is a code, a variant of one (another way of
breaking the same rule), or a situation that breaks no rule but that the mirror must judge
right (攔胡 with a press between); situations and sensor faults the mirror must see
through are recorded as `Injected`. Where the bots would meet an opportunity too rarely
they are dealt it: a tile of the wall brought to the front, a bot's discard chosen.

Breaches are decided by the fault dice (their own random stream), never by the
game's, so a seed plays the same game when the rate is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from firmware_bridge.protocol.catalogue import Message

# Every class of breach or situation the bots can be set on (`--violation-codes`).
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
    "restriction_8_win",
    "passed_win_self_draw",
    "replacement_order",
    "intercepted_win",
)

# Classes that are not their own code: a variant commits the code named here; a situation
# (None) breaks no rule at all, and its truth is the hand's result (the mirror must not flag).
VARIANT_OF: Final[dict[str, str | None]] = {
    "restriction_8_win": "restriction_8",  # wins on a discard completing a 搭子 it showed
    "passed_win_self_draw": "passed_win",  # self-draws a win under 過水 (D1)
    "intercepted_win": None,  # 攔胡 with a 碰/槓 press between the two 胡 (D3)
}

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
    "restriction_8_win": 6.0,  # a ready seat shows a 搭子 its wait completes, wins on it later
    "passed_win_self_draw": 12.0,  # a seat lets a discard win go; its next draw is rigged to win
    "replacement_order": 50.0,  # a 補花 replacement that is a flower, a later seat to come
    "intercepted_win": 50.0,  # two seats wait on a kind the seat to discard holds (1 hand in 7)
}


def code_of(name: str) -> str | None:
    """The violation code a class commits (None for a situation that breaks no rule)."""
    return VARIANT_OF.get(name, name)


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
    """One breach: its code, the offender, and the emitted message that is the breach;
    `kind` the class it was injected as, when that is a variant (`VARIANT_OF`); `also` an
    earlier message of the same act, where a flag (same code, same seat) stands for the
    breach as well (the reveal before an early 補花 replacement: either may be called the
    act out of its pass)."""

    code: str
    seat: int
    message: Message
    kind: str = ""
    also: Message | None = None

    @property
    def name(self) -> str:
        """The class injected (`SUPPORTED`)."""
        return self.kind or self.code

    def to_json(self) -> dict[str, Any]:
        data = {"code": self.code, "seat": self.seat, "event": self.message.KIND}
        if self.kind:
            data["class"] = self.kind
        return data


@dataclass(frozen=True, slots=True)
class Injected:
    """A situation that breaks no rule (`intercepted_win`), or a sensor fault the mirror must
    record as a fault and otherwise see through (`reread`): its class, the seat it concerns,
    the message that makes it, and the fault code the mirror owes at that message, if any."""

    kind: str
    seat: int
    message: Message
    fault: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"class": self.kind, "seat": self.seat, "event": self.message.KIND}
        if self.fault:
            data["fault"] = self.fault
        return data
