"""Which seqs of one boot the mirror has seen: the top one and the holes below it, as ranges.

A boot that begins at seq 30,000,000 (or 2**63 - 1, from a hostile stream) costs two
numbers, not a set of every missing seq: memory follows the number of holes, never
their width. A late event splits the hole it fills.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

MAX_HOLES: Final = 1024  # holes kept per boot; a late event in a forgotten one is a duplicate
_ABOVE_ANY: Final = 2**64  # above every seq: sorts (seq, _) after each hole starting at seq


@dataclass
class BootSeqs:
    """One boot's seqs: all of 1..`top` seen except the `holes`, sorted (first, last) ranges."""

    top: int = 0
    holes: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def from_set(cls, top: int, missing: Iterable[int]) -> BootSeqs:
        """The ranges of a set of missing seqs (a mirror pickled when holes were a set)."""
        seqs = BootSeqs(top)
        for seq in sorted(missing):
            if seqs.holes and seqs.holes[-1][1] == seq - 1:
                seqs.holes[-1] = (seqs.holes[-1][0], seq)
            else:
                seqs.holes.append((seq, seq))
        del seqs.holes[:-MAX_HOLES]
        return seqs

    def admit(self, seq: int) -> bool:
        """True the first time `seq` is seen (a new top, or one that fills a hole)."""
        if seq > self.top:
            if seq > self.top + 1:
                self.holes.append((self.top + 1, seq - 1))
                if len(self.holes) > MAX_HOLES:
                    del self.holes[0]
            self.top = seq
            return True
        at = bisect_right(self.holes, (seq, _ABOVE_ANY)) - 1  # the last hole from seq or below
        if at < 0 or not self.holes[at][0] <= seq <= self.holes[at][1]:
            return False
        first, last = self.holes[at]
        parts = [(a, b) for a, b in ((first, seq - 1), (seq + 1, last)) if a <= b]
        self.holes[at : at + 1] = parts
        return True

    def missing(self) -> int:
        """How many seqs below the top are still missing."""
        return sum(last - first + 1 for first, last in self.holes)
