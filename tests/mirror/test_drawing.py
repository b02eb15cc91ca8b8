"""Draws during the deal and in play: who may take a tile, from which end, and what a
tile taken wrongly and put back leaves (taiwan16.md §3; replay-format.md's put-back)."""

from __future__ import annotations

from table_service.mirror.drawing import DEAL_TILES
from table_service.rules.table import SEATS
from tests.mirror.kit_script import Script, quiet

CODES = [f"{n}{s}" for s in "mps" for n in range(1, 10)] + list("ESWNCFP")


def fresh(t: Script) -> int:
    """A tile id nobody holds yet (never one that completes a hand of the quiet seats)."""
    for code in [f"{n}{s}" for s in "mps" for n in (2, 3, 4, 6, 7, 8)]:
        try:
            return t.alloc(code)
        except ValueError:
            continue
    raise AssertionError("no tile left")


def take(t: Script, seat: int, tile: int | None = None, end: str = "front") -> int:
    tile = fresh(t) if tile is None else tile
    t.emit({"kind": "tile_drawn", "seat": seat, "tile": tile, "end": end})
    return tile


def deal_rest(t: Script, start: int) -> None:
    """Deal tiles `start`… in order: four at a time from the dealer (seat 0), its 17th last."""
    for i in range(start, DEAL_TILES):
        tile = t.alloc(CODES[i % len(CODES)])
        take(t, 0 if i == DEAL_TILES - 1 else (i // 4) % SEATS, tile)


def test_a_dealt_tile_taken_out_of_turn_and_put_back_is_flagged_once() -> None:
    """Seat 1 takes the dealer's first tile; the dealer then takes that very tile: it was put
    back. One violation, no fault, and the deal goes on in its order to play."""
    t = Script(deal=False)
    t.open_hand()
    tile = take(t, 1)
    assert t.violations() == [(5, 1, "out_of_turn")]
    assert t.records[-1].detail == "seat 1 took a dealt tile; seat 0's turn"  # type: ignore[union-attr]
    take(t, 0, tile)
    deal_rest(t, 1)
    assert t.violations() == [(5, 1, "out_of_turn")] and t.faults() == []
    hand = t.mirror.snapshot()["hand"]
    assert (hand["phase"], hand["turn"], hand["step"]) == ("play", 0, "discard")
    assert [s["concealed_count"] for s in hand["seats"]] == [17, 16, 16, 16]
    assert hand["tiles_left"] == 144 - DEAL_TILES


def test_a_dealt_tile_from_the_back_is_the_wrong_end() -> None:
    t = Script(deal=False)
    t.open_hand()
    tile = take(t, 0, end="back")
    assert t.violations() == [(5, 0, "wrong_end")]
    assert t.records[-1].detail == "seat 0 took a dealt tile from the 槓尾"  # type: ignore[union-attr]
    take(t, 0, tile)  # taken again from the front: it was put back
    deal_rest(t, 1)
    assert t.mirror.snapshot()["hand"]["phase"] == "play"
    assert len(t.violations()) == 1 and t.faults() == []


def test_a_back_draw_with_no_replacement_owed() -> None:
    """From the 槓尾 with nothing owed: the wrong end for the seat whose draw it is, out of
    turn for anyone else."""
    t = Script(quiet())
    t.discard(0, "2m")
    take(t, 1, end="back")
    take(t, 2, end="back")
    got = [(seat, code) for _, seat, code in t.violations()]
    assert got == [(1, "wrong_end"), (2, "out_of_turn")]
    details = {r.detail for r in t.records[-2:]}  # type: ignore[union-attr]
    assert details == {f"seat {s} drew from the 槓尾 with no replacement owed" for s in (1, 2)}


def test_a_front_draw_out_of_turn_names_whose_turn_it_was() -> None:
    t = Script(quiet())
    take(t, 2)  # the dealer has yet to discard: no draw is due
    assert t.records[-1].detail == "seat 2 drew with no draw due"  # type: ignore[union-attr]
    t = Script(quiet())
    t.discard(0, "2m")
    take(t, 2)
    assert t.records[-1].detail == "seat 2 drew in seat 1's turn"  # type: ignore[union-attr]
    assert [code for _, _, code in t.violations()] == ["out_of_turn"]


def test_a_draw_after_a_drawn_hand_is_a_reserve_draw_and_after_a_win_impossible() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    assert [h.result for h in t.hands()] == ["drawn"]
    seat = t.next_seat
    take(t, seat)
    assert t.violations()[-1][1:] == (seat, "reserve_draw")
    assert t.records[-1].detail == f"seat {seat} drew from the reserve after 荒局"  # type: ignore[union-attr]
    take(t, seat, end="back")
    assert t.faults()[-1][1] == "impossible"
    assert t.records[-1].detail == f"seat {seat} drew a tile after the hand ended"  # type: ignore[union-attr]
