"""Following each physical tile: a tile taken from where it cannot be is a fault that names
where the mirror had it, and the mirror then follows the table (replay-format.md faults); a
draw waits one event for its re-read first (test_faults.py)."""

from __future__ import annotations

from table_service.mirror.records import Fault
from table_service.rules.tiles import tile_code
from tests.mirror.kit_script import Script, quiet

QUIET_3_2M = "C C C C F F F F 1m 1m 2m 9m 9m 9m 9m 1m"  # seat 3 holds one 2m


def last_fault(t: Script) -> tuple[str, str]:
    fault = t.records[-1]
    assert isinstance(fault, Fault)
    return fault.code, fault.detail


def seat_view(t: Script, seat: int) -> dict[str, object]:
    return t.mirror.snapshot(concealed=True)["hand"]["seats"][seat]  # type: ignore[no-any-return]


def test_discarding_a_tile_in_another_seats_hand() -> None:
    t = Script(quiet())
    tile = t.concealed[3][0]
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": tile})
    assert last_fault(t) == (
        "tile_twice",
        f"seat 0 discarded {tile_code(tile)} (id {tile}), which is in seat 3's hand: a misread,"
        " the discard is still due",
    )
    assert seat_view(t, 3)["concealed_count"] == 16  # nothing moves: its re-read may follow
    assert seat_view(t, 0)["discards"] == []
    t.draw(1)  # no re-read came: the discard is followed as the table reported it
    assert seat_view(t, 3)["concealed_count"] == 15
    assert seat_view(t, 0)["discards"] == [tile_code(tile)]
    assert t.violations() == []


def test_a_misread_discard_and_its_reread() -> None:
    """The re-read of a misread discard is the discard: nobody is blamed, nothing moved."""
    t = Script(quiet())
    tile = t.concealed[3][0]
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": tile})
    t.discard(0, "2m")
    t.draw(1)
    assert [code for _, code in t.faults()] == ["tile_twice"]
    assert t.violations() == []
    assert seat_view(t, 3)["concealed_count"] == 16
    assert seat_view(t, 0)["discards"] == ["2m"]


def test_discarding_a_tile_still_in_the_wall() -> None:
    t = Script(quiet())
    left = t.mirror.snapshot()["hand"]["tiles_left"]
    tile = t.alloc("7s")
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": tile})
    assert last_fault(t) == (
        "impossible",
        f"seat 0 discarded 7s (id {tile}), which is still in the wall",
    )
    assert t.mirror.snapshot()["hand"]["tiles_left"] == left - 1  # it left the wall
    t.emit({"kind": "tiles_left", "count": left - 1})
    assert [code for _, code in t.faults()] == ["impossible"]  # the counts agree


def test_discarding_a_tile_already_discarded() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    gone = t.offered
    assert gone is not None
    t.draw(1)
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": gone})
    assert last_fault(t) == (
        "tile_twice",
        f"seat 1 discarded 2m (id {gone}), which is in seat 0's discards: a misread, the"
        " discard is still due",
    )
    t.finish()  # the stream ends with no re-read: the discard is followed as reported
    assert seat_view(t, 0)["discards"] == []
    assert seat_view(t, 1)["discards"] == ["2m"]


def test_drawing_a_tile_in_a_hand_or_in_the_discards() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    held = t.concealed[2][0]
    t.emit({"kind": "tile_drawn", "seat": 1, "tile": held, "end": "front"})
    assert last_fault(t) == (
        "tile_twice",
        f"seat 1 drew {tile_code(held)} (id {held}), which is in seat 2's hand: a misread,"
        " the draw is still due",
    )
    assert seat_view(t, 2)["concealed_count"] == 16  # nothing moves: its re-read may follow
    assert seat_view(t, 1)["concealed_count"] == 16
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": held})  # no re-read came
    assert seat_view(t, 2)["concealed_count"] == 15  # followed as the table reported it
    assert seat_view(t, 1)["discards"] == [tile_code(held)]
    assert t.violations() == []


def test_a_meld_of_tiles_in_another_seats_hand() -> None:
    """Seat 1 claims 碰 on the 2m with two 2m the mirror has in seat 3's hand."""
    t = Script(quiet({3: "C C C C F F F F 1m 1m 2m 2m 9m 9m 9m 9m"}))
    t.discard(0, "2m")
    offered = t.offered
    own = t.ids(3, "2m 2m")
    t.button(1, "pong")
    tiles = [offered, *own]
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": tiles})
    faults = [(f.code, f.detail) for f in t.records if isinstance(f, Fault)]
    assert faults == [
        (
            "tile_twice",
            f"seat 1 melded 2m (id {own[0]}), which is in seat 3's hand: a misread, the meld is"
            " still due",
        )
    ]
    assert seat_view(t, 3)["concealed_count"] == 16  # held: its re-read may follow
    t.finish()  # none came: the meld is followed as the table reported it
    assert seat_view(t, 3)["concealed_count"] == 14
    assert [m["kind"] for m in seat_view(t, 1)["melds"]] == ["pong"]
    assert t.violations() == []


def test_tiles_moving_outside_a_hand_are_faults_naming_the_phase() -> None:
    t = Script(deal=False)
    t.emit({"kind": "tile_discarded", "seat": 0, "tile": 5})
    assert last_fault(t) == (
        "hand_unseen",
        "a discard with no hand seen before it: the hand is followed without judging until"
        " the next shuffle",
    )
    t.emit({"kind": "shuffle_started"})
    t.emit({"kind": "tile_drawn", "seat": 0, "tile": 5, "end": "front"})
    assert last_fault(t) == ("impossible", "a tile drawn while shuffling")
    t.emit({"kind": "flower_revealed", "seat": 0, "tile": 140})
    assert last_fault(t) == ("impossible", "a flower revealed while shuffling")


def test_a_misread_meld_and_its_reread() -> None:
    """A 碰 reported with a tile of seat 3's hand, then read again right: one fault, the
    pong as re-read, nobody blamed."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m", 3: QUIET_3_2M}))
    t.discard(0, "2m")
    offered = t.offered
    t.button(1, "pong")
    wrong = [offered, t.ids(3, "2m")[0], t.ids(1, "2m")[0]]
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": wrong})
    t.pong(1, 0, press=False)
    t.discard(1, "9p")
    assert [code for _, code in t.faults()] == ["tile_twice"]
    assert t.violations() == []
    assert seat_view(t, 3)["concealed_count"] == 16
    assert [m["ids"] for m in seat_view(t, 1)["melds"]] == [t.melds[1][0][1]]
