"""The mirror's bookkeeping: what `snapshot` shows, and how seq numbers admit events
(replay-format.md: a gap is a fault, a duplicate changes nothing, a late event still counts).
"""

from __future__ import annotations

from typing import Any

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, Record
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import Script, quiet

SHUFFLE: dict[str, Any] = {"kind": "shuffle_started"}


def event(seq: int, body: dict[str, Any] | None = None, boot: int = 1) -> Event:
    body = body or {"kind": "tiles_left", "count": 144}
    return Event(table="t1", boot_id=boot, seq=seq, ts=0.0, body=EVENT_BODY.validate_python(body))


def faults(records: list[Record]) -> list[tuple[int, str, str]]:
    return [(r.seq, r.code, r.detail) for r in records if isinstance(r, Fault)]


def test_snapshot_of_a_session_before_its_first_hand() -> None:
    session = SessionStart(
        table="t1", players=("甲", "乙", "丙", "丁"), dealer=3, streak=2, round_wind="S",
        start_seat=1,
    )  # fmt: skip
    assert TableMirror("t1", session).snapshot() == {
        "table": "t1",
        "players": ["甲", "乙", "丙", "丁"],
        "seating": ["甲", "乙", "丙", "丁"],  # no shuffle yet: seats may still be taken
        "profile": "mjonline",
        "seat_order": "opening",  # the seat winds count from the 開門位 (§2)
        "dealer": 3,
        "streak": 2,
        "round_wind": "S",
        "start_seat": 1,
        "deal_in_round": 3,  # seat 1 dealt first in this round: 1, 2, then 3
        "hands": 0,
        "totals": [0, 0, 0, 0],
        "hand": None,
        "ruled_deal": None,
    }
    assert TableMirror("t1").snapshot()["players"] == ["0", "1", "2", "3"]
    wrapped = SessionStart(table="t1", dealer=0, start_seat=2)
    assert TableMirror("t1", wrapped).snapshot()["deal_in_round"] == 3  # 2, 3, then 0


def test_snapshot_hides_the_tiles_unless_asked() -> None:
    t = Script(quiet())
    seat = t.mirror.snapshot()["hand"]["seats"][1]
    assert "concealed" not in seat and "passed_win" not in seat
    seat = t.mirror.snapshot(concealed=True)["hand"]["seats"][1]
    assert len(seat["concealed"]) == 16 and seat["passed_win"] is False


def test_seat_winds_appear_with_the_deal_roll() -> None:
    """開門序: the dice (total 5 from the dealer) open at the dealer, who sits 東."""
    t = Script(deal=False)
    t.emit(SHUFFLE)
    assert [s["wind"] for s in t.mirror.snapshot()["hand"]["seats"]] == [None] * 4
    t.new_hand(quiet())
    assert [s["wind"] for s in t.mirror.snapshot()["hand"]["seats"]] == ["E", "S", "W", "N"]
    t.new_hand(quiet(dealer=0), dice=(1, 1, 4))  # total 6: the seat after the dealer opens
    assert [s["wind"] for s in t.mirror.snapshot()["hand"]["seats"]] == ["N", "E", "S", "W"]


def test_a_boot_that_begins_late_is_a_gap_and_its_missing_events_still_count() -> None:
    mirror = TableMirror("t1")
    out = mirror.apply(event(4))
    assert faults(out) == [(4, "gap", "boot 1 begins at seq 4: events 1–3 are missing")]
    assert (mirror.gaps, mirror.events) == (1, 1)
    for seq in (2, 3, 1):  # late, each admitted once
        assert mirror.apply(event(seq)) == []
    assert (mirror.events, mirror.duplicates) == (4, 0)
    mirror.apply(event(2))
    assert (mirror.events, mirror.duplicates) == (4, 1)


def test_a_boot_that_begins_at_2_misses_one_event() -> None:
    mirror = TableMirror("t1")
    out = mirror.apply(event(2))
    assert faults(out) == [(2, "gap", "boot 1 begins at seq 2: events 1–1 are missing")]
    assert mirror.apply(event(1)) == [] and mirror.events == 2
    assert faults(TableMirror("t1").apply(event(1))) == []


def test_a_jump_in_seq_is_a_gap_and_duplicates_are_counted_each_time() -> None:
    mirror = TableMirror("t1")
    mirror.apply(event(1))
    mirror.apply(event(2))
    out = mirror.apply(event(5))
    assert faults(out) == [(5, "gap", "seq jumped from 2 to 5 (boot 1)")]
    assert mirror.apply(event(6)) == []  # the next in line: no gap
    assert mirror.gaps == 1
    for _ in range(3):
        mirror.apply(event(2))
    assert mirror.duplicates == 3
    mirror.apply(event(3))
    mirror.apply(event(4))
    assert (mirror.events, mirror.duplicates, mirror.gaps) == (6, 3, 1)
    mirror.apply(event(4))
    assert mirror.duplicates == 4
    mirror.apply(event(9))
    assert mirror.gaps == 2


def test_each_boot_counts_its_own_seq() -> None:
    mirror = TableMirror("t1")
    mirror.apply(event(1))
    mirror.apply(event(2))
    assert faults(mirror.apply(event(1, boot=2))) == []
    assert (mirror.events, mirror.gaps) == (3, 0)


def test_a_new_shuffle_mid_hand_is_a_fault_unless_the_wall_is_spent() -> None:
    t = Script(quiet())
    seq = t.seq + 1
    t.emit(SHUFFLE)
    assert t.faults() == [(seq, "impossible")]
    assert t.records[-1].detail == "a new shuffle while the hand is in play"  # type: ignore[union-attr]
    assert t.mirror.snapshot()["hand"]["phase"] == "shuffling"


def test_a_shuffle_after_the_last_tile_ends_the_hand_drawn() -> None:
    """The last drawable tile was drawn and discarded, nobody claimed, the table shuffles."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    assert t.hands() == []
    t.burn(0)
    drawn = t.hands()
    assert [h.result for h in drawn] == ["drawn"]
    t.emit(SHUFFLE)
    assert t.faults() == [] and len(t.hands()) == 1


def test_a_jump_of_one_missing_event_is_a_gap() -> None:
    mirror = TableMirror("t1")
    mirror.apply(event(1))
    assert faults(mirror.apply(event(3))) == [(3, "gap", "seq jumped from 1 to 3 (boot 1)")]


def test_an_unreadable_body_delivered_twice_is_one_fault_and_one_duplicate() -> None:
    mirror = TableMirror("t1")
    mirror.apply(event(1))
    assert faults(mirror.fault(1, 2, "unknown_tile", "tile 200")) == [
        (2, "unknown_tile", "tile 200")
    ]
    assert mirror.fault(1, 2, "unknown_tile", "tile 200") == []
    mirror.fault(1, 2, "unknown_tile", "tile 200")
    assert (mirror.events, mirror.faults, mirror.duplicates) == (2, 1, 2)


def test_a_shuffle_after_the_last_tile_is_drawn_ends_the_hand_drawn() -> None:
    """The last drawable tile is drawn and never discarded: the table shuffles, the hand is 荒局."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    t.draw(t.next_seat)
    assert (t.drawable, t.hands()) == (0, [])
    t.emit(SHUFFLE)
    assert [h.result for h in t.hands()] == ["drawn"]
    assert t.faults() == []
