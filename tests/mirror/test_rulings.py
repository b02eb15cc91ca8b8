"""A referee's rulings, as the fold reads them (rulings.py, fold.py): each kind re-derives
the records to what the corrected stream gives, and an undo gives back the records as
they were."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from firmware_bridge.messages import Event
from table_service.mirror.records import HandRecord, Record, Violation
from table_service.mirror.rulings import Rulings, in_force, parse_ruling, tile_id
from tests.mirror.kit_script import Script, quiet, refold

READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # waits 6s 9s


def judged(records: list[Record]) -> list[tuple[Any, ...]]:
    """What a comparison needs: the violations and the hands, without event keys."""
    out: list[tuple[Any, ...]] = []
    for r in records:
        if isinstance(r, Violation):
            out.append(("violation", r.seat, r.code))
        elif isinstance(r, HandRecord):
            out.append(("hand", r.result, r.kind, r.seat, r.payer, r.tai, tuple(r.net)))
    return out


def key(event: Event) -> dict[str, int]:
    return {"boot_id": event.boot_id, "seq": event.seq}


def test_without_rulings_the_fold_is_the_mirror() -> None:
    t = Script(quiet({2: READY_69S}))
    t.discard(0, "2m")
    t.cycle(1, "6s")
    t.win(2)
    t.finish()
    assert judged(refold(t)) == judged(t.records)


def test_a_tile_ruling_judges_the_hand_on_the_tile_it_was() -> None:
    """Seat 1's discard was a 6s that the sensor read as a 4p: seat 2's 胡 on it was a 詐胡
    on the reading. Ruled a 6s, the same stream gives the win that happened, paid by seat 1,
    exactly as the stream read right gives it."""
    read = Script(quiet({2: READY_69S}))
    read.discard(0, "2m")
    read.cycle(1, "4p")
    read.button(2, "win")
    read.reveal(2, [*read.concealed[2], read.offered])  # type: ignore[list-item]
    read.finish()
    assert read.hand().result == "false_win"

    right = Script(quiet({2: READY_69S}))
    right.discard(0, "2m")
    right.cycle(1, "6s")
    right.win(2)
    right.finish()
    assert right.hand().result == "win"

    misread = next(e for e in read.events if e.body.kind == "tile_discarded" and e.body.seat == 1)
    reveal = read.events[-1]
    ruling = {"kind": "tile", **key(misread), "read": "4p", "was": "6s", "reason": "camera"}
    again = {"kind": "tile", **key(reveal), "read": "4p", "was": "6s", "reason": "camera"}
    assert judged(refold(read, ruling, again)) == judged(right.records)


def test_a_drop_ruling_removes_a_ghost_press_without_a_gap() -> None:
    """A 胡 press no one made (a sensor's ghost) made seat 3 a 詐胡; dropped, the hand plays
    on as it did, no gap is seen where the press was, and the win that followed stands."""
    t = Script(quiet({2: READY_69S}))
    t.discard(0, "2m")
    ghost = t.button(3, "win")
    press = t.events[-1]
    t.cycle(1, "6s")
    t.win(2)
    t.finish()
    assert ghost is not None
    assert t.hands()[0].result == "false_win"
    out = refold(t, {"kind": "drop", **key(press), "reason": "nobody pressed"})
    hands = [r for r in out if isinstance(r, HandRecord)]
    assert [(h.result, h.seat, h.payer) for h in hands] == [("win", 2, 1)]
    assert not [r for r in out if getattr(r, "code", None) == "gap"]


def test_an_insert_ruling_adds_a_missing_draw() -> None:
    """Seat 1's draw was never read: its discard came with no tile to spare (hand_size, a
    相公). The referee inserts the draw after seat 0's discard: no violation remains."""
    t = Script(quiet())
    t.discard(0, "2m")
    before = t.events[-1]
    tile = t.alloc("2p")
    t.concealed[1].append(tile)
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": tile})
    t.cycle(2)
    assert [code for _, _, code in t.violations()] == ["hand_size"]
    draw = {"kind": "tile_drawn", "seat": 1, "tile": tile, "end": "front"}
    out = refold(t, {"kind": "insert", **key(before), "body": draw, "reason": "unread"})
    assert [r for r in out if isinstance(r, Violation)] == []


def dead_hand() -> tuple[Script, list[dict[str, Any]]]:
    """Seat 2 drew before seat 1 (out_of_turn) and discarded with no tile to spare
    (hand_size): both make it 相公, so its later 胡 is a dead_hand_claim 詐胡. The
    referee's verdict on each (its decision left to the test)."""
    t = Script(quiet({2: READY_69S}))
    t.discard(0, "2m")
    t.draw(2, "7p")
    t.emit({"kind": "tile_discarded", "seat": 2, "tile": t.concealed[2].pop()})
    flagged = t.violations()
    assert [code for _, _, code in flagged] == ["out_of_turn", "hand_size"]
    t.cycle(3)
    t.cycle(0, "6s")
    t.win(2)
    t.finish()
    assert t.hands()[-1].result == "false_win"
    verdicts = [
        {"kind": "verdict", "boot_id": 1, "seq": seq, "seat": seat, "code": code,
         "reason": "seat 1 let its turn go"}
        for seq, seat, code in flagged
    ]  # fmt: skip
    return t, verdicts


def test_overturning_the_dead_hand_violations_lifts_the_dead_hand() -> None:
    """Both overturned, the 胡 is the win it was; the overturned violations are still
    listed (their rulings stand beside them). One overturned, the other still binds."""
    t, verdicts = dead_hand()
    overturns = [{**v, "decision": "overturn"} for v in verdicts]
    out = refold(t, *overturns)
    hands = [r for r in out if isinstance(r, HandRecord)]
    assert [(h.result, h.seat, h.payer) for h in hands] == [("win", 2, 0)]
    assert [(r.seat, r.code) for r in out if isinstance(r, Violation)] == [
        (2, "out_of_turn"),
        (2, "hand_size"),
    ]
    one = refold(t, overturns[0])
    assert [r.result for r in one if isinstance(r, HandRecord)] == ["false_win"]


def test_upholding_changes_nothing_and_an_undo_gives_the_records_back() -> None:
    t, verdicts = dead_hand()
    upheld = [{**v, "decision": "uphold"} for v in verdicts]
    assert judged(refold(t, *upheld)) == judged(t.records)
    overturns = [{**v, "decision": "overturn"} for v in verdicts]
    assert judged(refold(t, *overturns)) != judged(t.records)
    undo = {"kind": "undo", "ruling": 2, "reason": "misclicked"}
    assert judged(refold(t, *overturns, undo)) == judged(t.records)
    redo = {"kind": "undo", "ruling": 3, "reason": "it was right"}
    assert judged(refold(t, *overturns, undo, redo)) == judged(refold(t, *overturns))


def test_overturning_a_false_win_on_a_hand_that_does_not_win_lets_the_hand_play_on() -> None:
    """Seat 3 pressed 胡 on a hand that does not win: 詐胡. Overturned, the press is as if
    never made: the hand plays on to the win that followed."""
    t = Script(quiet({2: READY_69S}))
    t.discard(0, "2m")
    t.button(3, "win")
    press = t.events[-1]
    t.cycle(1, "6s")
    t.win(2)
    t.finish()
    verdict = {"kind": "verdict", **key(press), "seat": 3, "code": "false_win",
               "decision": "overturn", "reason": "elbow on the button"}  # fmt: skip
    out = refold(t, verdict)
    hands = [r for r in out if isinstance(r, HandRecord)]
    assert [(h.result, h.seat) for h in hands] == [("win", 2)]


def test_a_later_verdict_on_the_same_violation_stands() -> None:
    rulings = [
        (1, parse_ruling({"kind": "verdict", "boot_id": 1, "seq": 9, "seat": 2,
                          "code": "out_of_turn", "decision": "overturn", "reason": "a"})),
        (2, parse_ruling({"kind": "verdict", "boot_id": 1, "seq": 9, "seat": 2,
                          "code": "out_of_turn", "decision": "uphold", "reason": "b"})),
    ]  # fmt: skip
    assert in_force(rulings) == Rulings()
    assert in_force(rulings[:1]).overturned == {(1, 9, 2, "out_of_turn")}


def test_a_tile_named_by_code_takes_a_copy_still_in_the_wall() -> None:
    assert tile_id("5m", {16: "hand"}) == 17
    assert tile_id(17, {}) == 17
    assert tile_id("h3", {}) == 138
    with pytest.raises(ValueError, match="no copy of 5m"):
        tile_id("5m", dict.fromkeys(range(16, 20), "hand"))
    with pytest.raises(ValueError, match="not one of"):
        tile_id(144, {})


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "tile", "boot_id": 1, "seq": 3, "read": 5, "was": 6},  # no reason
        {
            "kind": "verdict",
            "boot_id": 1,
            "seq": 3,
            "seat": 4,
            "code": "out_of_turn",
            "decision": "overturn",
            "reason": "x",
        },
        {
            "kind": "verdict",
            "boot_id": 1,
            "seq": 3,
            "seat": 1,
            "code": "no_such_code",
            "decision": "overturn",
            "reason": "x",
        },
        {"kind": "undo", "ruling": 0, "reason": "x"},
        {"kind": "drop", "boot_id": 1, "seq": 0, "reason": "x"},
        {"kind": "rewind", "reason": "x"},
    ],
)
def test_a_bad_ruling_is_refused_with_the_field_named(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        parse_ruling(body)


def test_a_hand_ruling_states_a_win_the_sensors_missed() -> None:
    """Seat 2 drew its winning 6s, but its 胡 press and reveal were never read: the hand
    plays on in the stream. The referee states the self-draw with its tiles right after
    the draw: the record is the one the stream with the press gives, and what followed
    the win in the stream (a ghost discard) changes nothing."""
    right = Script(quiet({2: READY_69S}))
    right.discard(0, "2m")
    right.cycle(1)
    right.draw(2, "6s")
    right.win(2)
    right.finish()
    assert right.hand().kind == "self_draw"

    missed = Script(quiet({2: READY_69S}))
    missed.discard(0, "2m")
    missed.cycle(1)
    missed.draw(2, "6s")
    drawn = missed.events[-2]  # the draw (its count follows)
    tiles = [*READY_69S.split(), "6s"]
    ruling = {"kind": "hand", **key(drawn), "result": "win", "seat": 2, "how": "self_draw",
              "tile": "6s", "concealed": tiles, "reason": "seen by all"}  # fmt: skip
    assert judged(refold(missed, ruling)) == judged(right.records)


def test_a_hand_ruling_ends_a_hand_as_drawn_or_void() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.cycle(1)
    at = key(t.events[-1])
    t.cycle(2)
    drawn = refold(t, {"kind": "hand", **at, "result": "drawn", "reason": "wall collapsed"})
    (hand,) = [r for r in drawn if isinstance(r, HandRecord)]
    assert (hand.result, hand.net) == ("drawn", [0, 0, 0, 0])
    void = refold(t, {"kind": "hand", **at, "result": "void", "reason": "dealt wrong"})
    assert [r for r in void if isinstance(r, HandRecord)] == []


def test_a_hand_ruling_whose_tiles_do_not_win_cannot_be_followed() -> None:
    t = Script(quiet({2: READY_69S}))
    t.discard(0, "2m")
    t.cycle(1, "4p")
    ruling = {"kind": "hand", **key(t.events[-1]), "result": "win", "seat": 2,
              "how": "discard", "payer": 1, "tile": "4p",
              "concealed": [*READY_69S.split(), "4p"], "reason": "x"}  # fmt: skip
    with pytest.raises(ValueError, match="is not a winning hand on 4p"):
        refold(t, ruling)
    with pytest.raises(ValidationError, match=r"hand\.self_draw\.tile\n  Field required"):
        parse_ruling({"kind": "hand", "boot_id": 1, "seq": 3, "result": "win", "seat": 1,
                      "how": "self_draw", "reason": "x"})  # fmt: skip
    with pytest.raises(ValidationError, match=r"hand\.claimed\.payer"):
        parse_ruling({**ruling, "payer": None})
    with pytest.raises(ValueError, match="cannot pay for its own win"):
        refold(t, {**ruling, "payer": 2})


def test_an_overturned_late_claim_is_listed_and_the_win_it_was_stands() -> None:
    """Seat 2 (waits 6s 9s) presses 胡 after seat 1 drew past the dealer's 6s: its window
    had closed (D3), a late claim, and a win on a tile it let go (過水, D1): a 詐胡. The
    referee rules the press was in time (both overturned): the 胡 on the 6s is the win it
    was, paid by the dealer, and both violations are still listed, beside their rulings,
    so the desk can show them and undo them."""
    t = Script(quiet({2: READY_69S}, extra="6s"))
    t.discard(0, "6s")
    six = t.offered
    t.cycle(1, "4m")
    t.button(2, "win")
    press = t.events[-1]
    t.reveal(2, [*t.concealed[2], six])  # type: ignore[list-item]
    t.finish()
    assert (t.hand().result, t.hand().codes) == ("false_win", ["passed_win", "late_claim"])
    overturns = [{"kind": "verdict", **key(press), "seat": 2, "code": code,
                  "decision": "overturn", "reason": "pressed before the draw"}
                 for code in ("passed_win", "late_claim")]  # fmt: skip
    out = refold(t, *overturns)
    (hand,) = [r for r in out if isinstance(r, HandRecord)]
    assert (hand.result, hand.seat, hand.payer, hand.codes) == ("win", 2, 0, [])
    listed = [(r.seat, r.code) for r in out if isinstance(r, Violation)]
    assert listed == [(2, "passed_win"), (2, "late_claim")]
    late_only = refold(t, overturns[1])  # 過水 still binds: a 詐胡, late listed once
    assert [r.result for r in late_only if isinstance(r, HandRecord)] == ["false_win"]
    assert [r.code for r in late_only if isinstance(r, Violation)] == ["passed_win", "late_claim"]
