"""What goes to the public channels, and when: a void declaration waits for its hand's end,
everything else goes at once; held records come out in their order, per table."""

from __future__ import annotations

from table_service.mirror.records import Fault, HandRecord, Record, Violation
from table_service.service.disclosure import WITHHELD, Disclosure, in_play, withheld
from tests.mirror.kit_script import Script, quiet

READY_W = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s


def violation(seq: int, code: str = "out_of_turn", table: str = "t1") -> Violation:
    return Violation(table=table, boot_id=1, seq=seq, seat=2, code=code, detail="…")


def void(seq: int, table: str = "t1") -> Violation:
    return violation(seq, "void_declaration", table)


def fault(seq: int) -> Fault:
    return Fault(table="t1", boot_id=1, seq=seq, code="gap", detail="…")


def test_only_the_void_declaration_is_withheld() -> None:
    assert {"void_declaration"} == WITHHELD
    assert withheld(void(1))
    assert not withheld(violation(1)) and not withheld(fault(1))


def test_a_void_declaration_waits_for_the_hand_s_end() -> None:
    d = Disclosure()
    assert d.public("t1", [void(5)], hand_over=False) == []
    assert d.held("t1") == [void(5)]
    assert d.public("t1", [], hand_over=False) == []
    assert d.public("t1", [], hand_over=True) == [void(5)]
    assert d.held("t1") == []
    assert d.public("t1", [], hand_over=True) == []  # told once


def test_other_records_go_at_once_past_a_held_one() -> None:
    d = Disclosure()
    assert d.public("t1", [violation(4), void(5), fault(6), violation(7)], hand_over=False) == [
        violation(4),
        fault(6),
        violation(7),
    ]
    assert d.public("t1", [violation(8)], hand_over=True) == [void(5), violation(8)]


def test_held_ones_come_out_in_their_order_before_the_commit_that_ended_the_hand() -> None:
    d = Disclosure()
    d.public("t1", [void(5)], hand_over=False)
    d.public("t1", [void(9)], hand_over=False)
    assert d.public("t1", [violation(12), void(13)], hand_over=True) == [
        void(5),
        void(9),
        violation(12),
        void(13),  # made as its hand ended: nothing left to keep it for
    ]


def test_tables_are_held_apart() -> None:
    d = Disclosure()
    d.public("t1", [void(5)], hand_over=False)
    d.public("t2", [void(6, "t2")], hand_over=False)
    assert d.public("t2", [], hand_over=True) == [void(6, "t2")]
    assert d.held("t1") == [void(5)]


def test_a_batch_spanning_two_hands_releases_the_first_at_its_hand_record() -> None:
    """One commit held hand 1's void declaration, its end, and a void declaration of hand 2
    still in play: the first is told before hand 1's record, the second waits."""
    t = Script(quiet())
    t.discard(0, "2m")
    first = t.button(2, "ready")  # a quiet hand waits on nothing
    assert t.violations(first) == [(t.seq, 2, "void_declaration")]
    ended = t.burn(0) + t.finish()
    (record,) = ended  # 荒局, and nothing else
    assert isinstance(record, HandRecord)
    second = [void(t.seq + 50)]
    d = Disclosure()
    batch: list[Record] = [violation(1), *first, fault(140), record, *second]
    out = d.public("t1", batch, hand_over=False)
    assert out == [violation(1), fault(140), *first, record]
    assert d.held("t1") == second


def test_in_play_follows_the_mirror_s_hand() -> None:
    t = Script(quiet({2: READY_W}, extra="2m"), deal=False)
    assert not in_play(t.mirror.hand)  # no hand yet
    t.open_hand()
    assert not in_play(t.mirror.hand)  # shuffled, not dealt
    t = Script(quiet({2: READY_W}, extra="2m"))
    assert in_play(t.mirror.hand)
    t.burn(0)
    t.finish()
    assert t.mirror.hand is not None and t.mirror.hand.phase == "over"
    assert not in_play(t.mirror.hand)


def test_a_void_declaration_from_the_mirror_is_told_when_its_hand_ends() -> None:
    """The service's loop, reduced: each event's records through `public`, the hand's state
    after it. The public hears the void declaration with the hand's end, not before."""
    t = Script(quiet())
    d = Disclosure()
    heard: list[Record] = []

    def step(records: list[Record]) -> None:
        heard.extend(d.public("t1", records, hand_over=not in_play(t.mirror.hand)))

    step(t.discard(0, "2m"))
    step(t.button(2, "ready"))  # a quiet hand waits on nothing
    assert [r for r in t.records if isinstance(r, Violation)] and heard == []
    while t.drawable > 0:
        assert heard == []  # the hand is in play: nothing of it told
        step(t.cycle(t.next_seat))
    if in_play(t.mirror.hand):
        step(t.finish())
    kinds = [r.code if isinstance(r, Violation) else r.type for r in heard]
    assert kinds == ["void_declaration", "hand"]
    assert isinstance(heard[-1], HandRecord) and heard[-1].result == "drawn"
