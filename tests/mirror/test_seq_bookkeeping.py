"""The mirror's seq bookkeeping holds ranges: memory follows the holes, never their width."""

from __future__ import annotations

import pickle

from firmware_bridge.messages import MAX_SEQ, Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault
from table_service.mirror.seqs import MAX_HOLES, BootSeqs


def event(seq: int, boot: int = 1) -> Event:
    return Event(table="t1", boot_id=boot, seq=seq, ts=0.0, body={"kind": "state", "phase": 0,
                 "tiles_left": 0, "turn": 255, "dealer": 255})  # fmt: skip


def test_a_boot_that_begins_at_the_largest_seq_costs_one_range() -> None:
    mirror = TableMirror("t1")
    out = mirror.apply(event(MAX_SEQ))
    assert [r.code for r in out if isinstance(r, Fault)] == ["gap"]
    seqs = mirror._boot_seqs()[1]
    assert (seqs.top, seqs.holes) == (MAX_SEQ, [(1, MAX_SEQ - 1)])
    assert mirror.apply(event(MAX_SEQ)) == [] and mirror.duplicates == 1


def test_late_events_split_and_shrink_the_hole_they_fill() -> None:
    mirror = TableMirror("t1")
    mirror.apply(event(1))
    mirror.apply(event(30_000_000))  # a jump: one fault, one range
    seqs = mirror._boot_seqs()[1]
    assert seqs.holes == [(2, 29_999_999)]
    for seq in (2, 29_999_999, 1_000):
        mirror.apply(event(seq))
    assert seqs.holes == [(3, 999), (1_001, 29_999_998)]
    assert (mirror.events, mirror.duplicates, mirror.gaps) == (5, 0, 1)
    mirror.apply(event(1_000))  # filled already: a duplicate
    assert (mirror.events, mirror.duplicates) == (5, 1)
    assert seqs.missing() == 29_999_998 - 3 + 1 - 1


def test_a_hole_of_one_seq_disappears_when_filled() -> None:
    seqs = BootSeqs()
    assert all(seqs.admit(s) for s in (1, 3, 5))
    assert seqs.holes == [(2, 2), (4, 4)]
    assert seqs.admit(4) and seqs.holes == [(2, 2)]
    assert not seqs.admit(4) and not seqs.admit(5) and not seqs.admit(0)
    assert seqs.admit(2) and seqs.holes == []


def test_the_holes_kept_are_bounded() -> None:
    seqs = BootSeqs()
    for seq in range(1, 2 * (MAX_HOLES + 10), 2):
        seqs.admit(seq)
    assert len(seqs.holes) == MAX_HOLES
    assert not seqs.admit(2)  # the oldest hole was forgotten: taken for a duplicate


def test_a_mirror_pickled_with_sets_of_holes_reads_on() -> None:
    mirror = TableMirror("t1")
    assert "_seqs" not in mirror.__dict__  # made on first use: an older mirror has none
    mirror._seen[1] = (9, {2, 3, 4, 7})
    restored = pickle.loads(pickle.dumps(mirror))
    assert restored.apply(event(3)) == [] and restored.duplicates == 0
    assert restored._boot_seqs()[1].holes == [(2, 2), (4, 4), (7, 7)]
    assert restored.apply(event(5)) == [] and restored.duplicates == 1
