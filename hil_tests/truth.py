"""The mirror against the simulator's ground truth: what the far end concluded, hand by hand.

After every hand the mirror's picture must equal the simulator's: each seat's tiles,
melds, flowers and discards, the result, the 台 items, the money, the deal; and every
violation the mirror flags must be one the simulator committed on purpose. Used by
the soak run, the HIL suite and the property tests alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hil_tests.simulator.hand import HandResult
from table_service.mirror.records import HandRecord, Violation
from table_service.mirror.state import HandState
from table_service.rules.tiles import wind_code

FLOWER_KINDS = ("eight_immortals", "seven_rob_one", "seven_rob_one_self_draw")


def expected_result(truth: HandResult) -> str:
    """The hand record's `result` the ground truth calls for."""
    if truth.end == "draw":
        return "drawn"
    if truth.end == "false_win":
        return "false_win"
    return "flower_win" if truth.settle_kind in FLOWER_KINDS else "win"


def hand_mismatches(record: HandRecord, seen: HandState, truth: HandResult) -> list[str]:
    """Every way the mirror's record and final picture of a hand differ from the truth."""
    found: list[str] = []

    def check(what: str, got: Any, want: Any) -> None:
        if got != want:
            found.append(f"{what}: mirror {got!r}, truth {want!r}")

    check("result", record.result, expected_result(truth))
    check("dealer", record.dealer, truth.deal.dealer)
    check("streak", record.streak, truth.deal.streak)
    check("round wind", record.round_wind, wind_code(truth.deal.round_wind))
    check("net", record.net, list(truth.net))
    if truth.end != "draw":
        check("seat", record.seat, truth.winner)
        check("kind", record.kind, truth.settle_kind)
    if truth.score is not None:
        check("tai", record.tai, truth.score["tai"])
        check(
            "items",
            sorted((i.id, i.tai) for i in record.items),
            sorted((i["id"], i["tai"]) for i in truth.score["items"]),
        )
    for s, seat in enumerate(seen.seats):
        check(f"seat {s} concealed", sorted(seat.concealed), sorted(truth.hands[s]))
        check(
            f"seat {s} melds",
            sorted(sorted(m.tiles) for m in seat.melds),
            sorted(sorted(m) for m in truth.melds[s]),
        )
        check(f"seat {s} flowers", sorted(seat.flowers), sorted(truth.flowers[s]))
        check(f"seat {s} discards", seat.river, list(truth.discards[s]))
    return found


@dataclass
class Tally:
    """What the far end's judgement of many hands came to (the soak summary's fields)."""

    hands_judged: int = 0
    mirror_mismatches: int = 0
    violations_injected: int = 0
    violations_flagged: int = 0
    violations_missed: int = 0
    violations_false: int = 0
    notes: list[str] = field(default_factory=list)

    def add_hand(self, problems: list[str], label: str) -> None:
        self.hands_judged += 1
        if problems:
            self.mirror_mismatches += 1
            if len(self.notes) < 20:
                self.notes.append(f"{label}: " + "; ".join(problems[:4]))

    def add_violations(
        self,
        injected: Iterable[tuple[int, int, str]],
        flagged: Sequence[Violation],
        label: str,
    ) -> None:
        """Match by (seq, seat): the event and the offender. Codes must name the injected one;
        further codes on the same event and seat (a breach that breaks two rules) are fine."""
        want = {(seq, seat): code for seq, seat, code in injected}
        got: dict[tuple[int, int], set[str]] = {}
        for v in flagged:
            got.setdefault((v.seq, v.seat), set()).add(v.code)
        self.violations_injected += len(want)
        self.violations_flagged += len(flagged)
        for key, code in want.items():
            if code not in got.get(key, set()):
                self.violations_missed += 1
                self._note(f"{label}: missed {code} by seat {key[1]} at seq {key[0]}")
        for key, codes in got.items():
            if key not in want:
                self.violations_false += len(codes)
                self._note(f"{label}: flagged {sorted(codes)} of seat {key[1]} at seq {key[0]}")

    def _note(self, text: str) -> None:
        if len(self.notes) < 20:
            self.notes.append(text)

    def to_json(self) -> dict[str, Any]:
        return {
            "hands_judged": self.hands_judged,
            "mirror_mismatches": self.mirror_mismatches,
            "violations_injected": self.violations_injected,
            "violations_flagged": self.violations_flagged,
            "violations_missed": self.violations_missed,
            "violations_false": self.violations_false,
        }
