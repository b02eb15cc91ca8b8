"""A simulated game as the bridge would publish it: events with their keys, and the truth.

No link, no broker: for tests and benchmarks of what sits at the far end (the game
mirror), which read the same `Event`s the bridge publishes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.messages import EVENT_BODY, Event
from firmware_bridge.protocol.catalogue import Message, plain
from table_service.rules import Profile
from table_sim.faults import TableFaults
from table_sim.hand import HandResult
from table_sim.session import TableSim
from table_sim.violations import Violations


def event_of(message: Message, table: str, boot_id: int, seq: int, ts: float = 0.0) -> Event:
    """A catalogue message as the bridge publishes it on `…/event`."""
    body = EVENT_BODY.validate_python({"kind": message.KIND, **plain(message)})
    return Event(table=table, boot_id=boot_id, seq=seq, ts=ts, body=body)


@dataclass
class RecordedHand:
    """One hand's events and ground truth; `breaches` as (boot_id, seq, seat, code, also)
    (`also`: the seq of an earlier event of the same act, or 0), and `faults` (boot_id,
    seq, seat, fault code) for the sensor faults the mirror must see through (a re-read);
    `turns` as (seat, seq of the event that began the turn, seq of its discard)."""

    events: list[Event]
    truth: HandResult
    breaches: list[tuple[int, int, int, str, int]] = field(default_factory=list)
    faults: list[tuple[int, int, int, str]] = field(default_factory=list)
    turns: list[tuple[int, int, int]] = field(default_factory=list)


def record_game(
    seed: int,
    hands: int,
    table: str = "sim",
    boot_id: int = 1,
    violations: Violations | None = None,
    profile: Profile | None = None,
    faults: TableFaults | None = None,
) -> list[RecordedHand]:
    """Play `hands` hands of a deterministic game and key every event (seq from 1)."""
    sent: list[Message] = []
    game = TableSim(seed, sent.append, profile, faults, violations)
    recorded: list[RecordedHand] = []
    seq = 0
    for _ in range(hands):
        sent.clear()
        truth = game.play_hand()
        events = []
        seq_of: dict[int, int] = {}
        for message in sent:
            seq += 1
            seq_of[id(message)] = seq
            events.append(event_of(message, table, boot_id, seq))
        breaches = [
            (boot_id, seq_of[id(v.message)], v.seat, v.code, seq_of.get(id(v.also), 0))
            for v in truth.violations
        ]
        sensor = [
            (boot_id, seq_of[id(s.message)], s.seat, s.fault)
            for s in truth.situations
            if s.fault is not None
        ]
        turns = [(seat, seq_of[id(a)], seq_of[id(b)]) for seat, a, b in truth.turn_spans]
        recorded.append(RecordedHand(events, truth, breaches, sensor, turns))
    return recorded
