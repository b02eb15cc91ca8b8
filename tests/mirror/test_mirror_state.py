"""The mirror's picture of a hand (state.py): what its snapshot shows while the hand is
dealt and once it has ended, and a mirror stored before the seats kept their counts
reading on (a snapshot is a pickled mirror; the table is not folded again)."""

from __future__ import annotations

import pickle
from typing import Any

from tests.mirror.kit_script import QUIET, Script, quiet

READY_17 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"  # a dealt winning hand
READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 7p 7p 7s 8s W W"  # waits 6s 9s


def seats(t: Script, *, concealed: bool = False) -> list[dict[str, Any]]:
    hand = t.mirror.snapshot(concealed=concealed)["hand"]
    assert hand is not None
    return list(hand["seats"])


def test_while_the_hand_is_dealt_the_snapshot_reads_the_draw_step() -> None:
    """A hand's step is always draw or discard: while the tiles are being dealt nobody
    discards, every seat is drawing."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    for code in ("P", "P", "P", "P"):
        t.draw(0, code)
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    assert (hand["phase"], hand["step"]) == ("dealing", "draw")


def test_only_the_seat_that_ended_the_hand_lays_its_tiles_down() -> None:
    """A 詐胡 ends the hand and the offender's tiles are laid on the table for everyone;
    the other three keep theirs: the public sees none of them, the referee sees their
    concealed tiles but nothing laid down."""
    t = Script(quiet({0: QUIET[0] + " 2m"}))
    t.win(0)
    assert t.hand().result == "false_win"
    public, referee = seats(t), seats(t, concealed=True)
    assert sorted(public[0]["laid_down"]) == sorted([*QUIET[0].split(), "2m"])
    assert referee[0]["laid_down"] == referee[0]["concealed"]
    for s in (1, 2, 3):
        assert "laid_down" not in public[s] and "laid_down" not in referee[s]
        assert sorted(referee[s]["concealed"]) == sorted(QUIET[s].split())


def test_a_mirror_stored_before_seats_kept_their_counts_judges_on() -> None:
    """A snapshot written before a seat kept its counts, held copies and completeness has
    none of them: restored, the seats work them out afresh. The dealer was dealt a winning
    hand and discards its 8s instead (D1: it let a win go, and 8s is still its wait, so
    過水 stays); seat 2 then wins on seat 1's 9s, a discard win paid by seat 1."""
    t = Script(quiet({0: READY_17, 2: READY_69S}))
    assert t.mirror.hand is not None
    for seat in t.mirror.hand.seats:
        for cached in ("_counts", "_held", "_complete"):
            seat.__dict__.pop(cached, None)  # as an earlier revision pickled it
    t.mirror = pickle.loads(pickle.dumps(t.mirror))
    t.discard(0, "8s")
    assert seats(t, concealed=True)[0]["passed_win"] is True
    t.draw(1, "9s")
    t.discard(1, "9s")
    t.win(2)
    assert t.violations() == [] and t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 1)
