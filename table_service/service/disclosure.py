"""What the public hears of the mirror's records, and when: some are the referee's until
the hand ends.

A void declaration (D7: a seat declared ready on a hand that is not) tells the other
players that the seat's hand is not ready, which the rules keep from them while it is
played; the referee hears it at once, the public when the hand ends. The records
themselves are stored and replayed whole: this only decides what goes out on the public
channels (the MQTT `…/service/<type>` topics and the WebSockets), and when.

Pure: records in, records out, one small buffer per table. The service calls `public`
once per commit, in the order the records were concluded.
"""

from __future__ import annotations

from typing import Final

from table_service.mirror.records import HandRecord, Record, Violation
from table_service.mirror.state import HandState

# The violation codes the public hears only at the hand's end.
WITHHELD: Final = frozenset({"void_declaration"})


def withheld(record: Record) -> bool:
    """Whether the public hears this record only when its hand ends."""
    return isinstance(record, Violation) and record.code in WITHHELD


def in_play(hand: HandState | None) -> bool:
    """Whether a hand is being played. When none is (it is over, a new one is shuffled or
    dealt after an abandoned one, the session restarted), whatever is held belongs to a
    hand that has ended: a withheld record is only ever made in play."""
    return hand is not None and hand.phase == "play"


class Disclosure:
    """Per table, the withheld records of the hand in play, released when it ends."""

    def __init__(self) -> None:
        self._held: dict[str, list[Record]] = {}

    def public(self, table: str, records: list[Record], hand_over: bool) -> list[Record]:
        """The records the public hears now, in their order, of `records` (one commit's,
        oldest first) and of those held before. `hand_over`: no hand is in play after
        them (`not in_play(mirror.hand)`); a hand's record ends its hand within the batch
        too."""
        held = self._held.setdefault(table, [])
        out: list[Record] = []
        if hand_over:
            out = [*held, *records]
            held.clear()
            return out
        for record in records:
            if isinstance(record, HandRecord):
                out += held  # its hand has ended: what was held in it goes first
                held.clear()
                out.append(record)
            elif withheld(record):
                held.append(record)
            else:
                out.append(record)
        return out

    def held(self, table: str) -> list[Record]:
        """What the table's public has not heard yet (the referee has)."""
        return list(self._held.get(table, ()))

    def forget(self, table: str) -> list[Record]:
        """The table is no longer followed here: its held records, dropped from the buffer
        (a process that takes the table over holds nothing of them)."""
        return self._held.pop(table, [])
