"""Faults a real table has, injected on purpose; each is off by default.

Table faults change what the sensors report, not the game: a misread reports a
different tile id than the one drawn; a reread first reports the id of a tile the mirror
knows is elsewhere, then the table reads the same draw again, right (a player's own
breaches, such as a draw out of turn, are not faults: see `violations.py`). Link faults
(corruption, drops, duplicates, delays, unplugging, reboots) act on the bytes and live
with the device transport. Faults draw from their own random stream, so the same seed
plays the same game with or without them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields


@dataclass(frozen=True, slots=True)
class TableFaults:
    misread: float = 0.0  # chance a drawn tile is reported with a wrong id
    reread: float = 0.0  # chance a draw is reported as a tile elsewhere, then read again


@dataclass(frozen=True, slots=True)
class LinkFaults:
    corruption: float = 0.0  # per byte, both directions
    drop: float = 0.0  # per frame the controller sends
    duplicate: float = 0.0  # per frame the controller sends
    delay: float = 0.0  # seconds a burst of output is held back
    burst: float = 0.0  # chance per write that output is held for `delay`
    unplug_every: int = 0  # hands between cable pulls, a third into the hand (0: never)
    unplug_for: float = 0.5  # seconds the cable stays out
    reboot_every: int = 0  # hands between controller resets, mid-hand (0: never)


@dataclass(frozen=True, slots=True)
class Faults:
    table: TableFaults = field(default_factory=TableFaults)
    link: LinkFaults = field(default_factory=LinkFaults)
    broker_restart_every: int = 0  # hands between broker restarts (a broker the run owns)

    @classmethod
    def all(cls) -> Faults:
        """Every fault on at a rate a soak run can carry (`--faults all`)."""
        return cls(
            TableFaults(misread=0.002, reread=0.001),
            LinkFaults(
                corruption=0.01,
                drop=0.01,
                duplicate=0.01,
                delay=0.05,
                burst=0.01,
                unplug_every=3,
                unplug_for=0.5,
                reboot_every=4,
            ),
            broker_restart_every=10,
        )

    @classmethod
    def parse(cls, spec: str) -> Faults:
        """`none`, `all`, or comma-separated names (`corruption,unplug`) at `all`'s rates."""
        if spec in ("", "none"):
            return cls()
        full = cls.all()
        if spec == "all":
            return full
        table: dict[str, float] = {}
        link: dict[str, float] = {}
        restarts = 0
        table_names = {f.name for f in fields(TableFaults)}
        link_names = {f.name for f in fields(LinkFaults)} - {"unplug_for", "delay"}
        aliases = {"unplug": "unplug_every", "reboot": "reboot_every", "burst": "burst"}
        for name in (n.strip() for n in spec.split(",")):
            key = aliases.get(name, name)
            if key in table_names:
                table[key] = getattr(full.table, key)
            elif key in link_names:
                link[key] = getattr(full.link, key)
                if key == "burst":
                    link["delay"] = full.link.delay
            elif key == "broker_restart":
                restarts = full.broker_restart_every
            else:
                known = ", ".join(
                    sorted(table_names | link_names | set(aliases) | {"broker_restart"})
                )
                raise ValueError(f"--faults: unknown fault {name!r} (known: {known}, all, none)")
        return cls(TableFaults(**table), LinkFaults(**link), restarts)  # type: ignore[arg-type]


class FaultDice:
    """The faults' own random stream, and a count of what was injected."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed ^ 0x5EED_FA17)
        self.injected: dict[str, int] = {}

    def roll(self, rate: float, name: str) -> bool:
        if rate and self.rng.random() < rate:
            self.injected[name] = self.injected.get(name, 0) + 1
            return True
        return False
