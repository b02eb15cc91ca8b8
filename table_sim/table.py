"""A simulated table end to end: the game (`TableSim`) played through a `Controller`.

The game is played a hand at a time into a list of events, which the controller
then sends at the chosen pace. Everything sent is kept, per boot, as the ground
truth the far end must reproduce exactly once and in order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import Message
from table_service.rules import Profile
from table_sim.controller import Controller
from table_sim.faults import Faults
from table_sim.hand import HandResult
from table_sim.session import TableSim
from table_sim.violations import Violations

# Seconds a real table takes per event (speed 1.0); `speed` divides them, 0 means no waiting.
PACE: Mapping[type[Message], float] = {
    c.ShuffleStarted: 0.5,
    c.ShuffleFinished: 12.0,
    c.WallBuilt: 3.0,
    c.DiceRolled: 2.0,
    c.TileDrawn: 0.4,
    c.TileDiscarded: 1.5,
    c.MeldExposed: 1.5,
    c.FlowerRevealed: 0.8,
    c.SeatButton: 0.5,
    c.HandRevealed: 2.0,
    c.TilesLeft: 0.0,
}


@dataclass
class Sent:
    """The ground truth of the wire: each boot's events in the order they were emitted."""

    by_boot: dict[int, list[Message]] = field(default_factory=dict)

    def add(self, boot_id: int, message: Message) -> None:
        self.by_boot.setdefault(boot_id, []).append(message)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.by_boot.values())

    @property
    def last_key(self) -> tuple[int, int] | None:
        """(boot id, seq) of the last event sent, the key a far end must reach."""
        if not self.by_boot:
            return None
        boot_id, messages = list(self.by_boot.items())[-1]
        return boot_id, len(messages)


class SimulatedTable:
    """One table: deterministic game by `seed`, faults as configured, pace by `speed`."""

    def __init__(
        self,
        controller: Controller,
        seed: int,
        *,
        faults: Faults | None = None,
        speed: float = 0.0,
        profile: Profile | None = None,
        violations: Violations | float | None = None,
    ) -> None:
        """`violations`: the rule breaches the bots commit (a bare rate turns every code on)."""
        self.controller = controller
        self.faults = faults or Faults()
        self.speed = speed
        if not isinstance(violations, Violations):
            violations = Violations(float(violations or 0.0))
        self.violations = violations
        self._pending: list[Message] = []
        self.game = TableSim(
            seed, self._pending.append, profile, self.faults.table, self.violations
        )
        self.sent = Sent()
        self.results: list[HandResult] = []
        self._next_boot = max(controller.boots) + 1

    async def start(self) -> None:
        await self.controller.start()

    async def stop(self) -> None:
        await self.controller.stop()

    async def play_hand(self) -> HandResult:
        """Play one hand and send its events; returns the hand's ground truth."""
        self._pending.clear()
        result = self.game.play_hand()
        events = list(self._pending)
        link, number = self.faults.link, len(self.results) + 1
        reboot_at = len(events) // 2 if _due(link.reboot_every, number) else -1  # mid-hand
        unplug_at = len(events) // 3 if _due(link.unplug_every, number) else -1
        for i, message in enumerate(events):
            if i == reboot_at:
                await self._reboot()
            if i == unplug_at:
                await self.controller.pull_cable(link.unplug_for)
            await self.controller.wait_room()
            self.controller.emit(message)
            self.sent.add(self.controller.session.boot_id, message)
            if self.speed:
                await asyncio.sleep(PACE.get(type(message), 0.5) / self.speed)
            elif i % 16 == 15:
                await asyncio.sleep(0)  # let the link run
        self.results.append(result)
        return result

    async def _reboot(self) -> None:
        """A controller reset mid-hand, once its queue is acknowledged: nothing is lost."""
        await self.controller.wait_idle()
        self.controller.reboot(self._next_boot)
        self._next_boot += 1


def _due(every: int, number: int) -> bool:
    """Whether hand `number` (from 1) is one of every `every`-th."""
    return every > 0 and number % every == 0
