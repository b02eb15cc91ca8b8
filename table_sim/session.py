"""A 將 at a simulated table: 搬風, 定莊, hand after hand with 連莊, and the running tally."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from firmware_bridge.protocol.catalogue import DiceRoll, DiceRolled
from table_service.rules import Profile
from table_service.rules.table import SEATS, Deal, HandEnd, counted_seat
from table_sim.faults import FaultDice, TableFaults
from table_sim.hand import Emit, HandResult, HandSim
from table_sim.violations import Violations


def hand_end(result: HandResult) -> HandEnd:
    """How the hand ended, for the next deal (§2 連莊; a 詐胡 by the dealer passes it)."""
    if result.end == "draw":
        return "draw"
    if result.end == "false_win":
        return "dealer_false_win" if result.dealer_won else "other_false_win"
    return "dealer_win" if result.dealer_won else "other_win"


@dataclass
class Jiang:
    """One 將: who sits where (players 0–3 by seat) and every hand's ground truth."""

    seating: list[int]
    first_dealer: int
    hands: list[HandResult] = field(default_factory=list)
    tally: list[int] = field(default_factory=lambda: [0] * SEATS)  # by player


class TableSim:
    """Deterministic by seed: the same seed plays the same tiles, dice and choices."""

    def __init__(
        self,
        seed: int,
        emit: Emit,
        profile: Profile | None = None,
        faults: TableFaults | None = None,
        violations: Violations | None = None,
    ) -> None:
        self.rng = random.Random(seed)
        self.emit = emit
        self.profile = profile or Profile()
        self.faults = faults or TableFaults()
        self.violations = violations or Violations()
        self.fault_dice = FaultDice(seed)
        self.jiangs: list[Jiang] = []
        self._deal: Deal | None = None

    def _roll(self, roll: DiceRoll) -> int:
        dice = [self.rng.randint(1, 6) for _ in range(3)]
        self.emit(DiceRolled(roll, *dice))
        return sum(dice)

    def _start_jiang(self) -> Deal:
        """搬風 (a new relative order each 將) and 定莊 by the 東 seat's roll."""
        self._roll(DiceRoll.SEATING)
        previous = self.jiangs[-1].seating if self.jiangs else None
        seating = list(range(SEATS))
        while True:
            self.rng.shuffle(seating)
            if previous is None or not _same_relative_order(seating, previous):
                break
        first_dealer = counted_seat(0, self._roll(DiceRoll.DEALER))  # seat 0 drew 東
        self.jiangs.append(Jiang(seating, first_dealer))
        return Deal(first_dealer, 0, 0, first_dealer)

    def play_hand(self) -> HandResult:
        """Play the next hand, starting a new 將 when the last one is over."""
        if self._deal is None:
            self._deal = self._start_jiang()
        jiang = self.jiangs[-1]
        sim = HandSim(
            self.rng,
            self._deal,
            self.emit,
            self.profile,
            self.faults,
            self.fault_dice,
            self.violations,
        )
        result = sim.play()
        jiang.hands.append(result)
        for seat, amount in enumerate(result.net):
            jiang.tally[jiang.seating[seat]] += amount
        self._deal = self._deal.next(hand_end(result))
        return result

    def hands(self, n: int) -> Iterator[HandResult]:
        for _ in range(n):
            yield self.play_hand()


def _same_relative_order(a: list[int], b: list[int]) -> bool:
    """Whether seating `a` is a rotation of seating `b` (the same order round the table)."""
    return any(a == b[k:] + b[:k] for k in range(SEATS))
