"""What the mirror's public snapshot shows of a hand in play: an 暗槓 is there, its tiles
are not, until the hand ends; the referee's snapshot and the records keep them."""

from __future__ import annotations

import json
from typing import Any

from table_service.rules.tiles import tile_code
from tests.mirror.kit_script import QUIET, Script, quiet

KONG_E = "3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p, a 3p triplet
READY_W = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
READY_1 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1 waits 6p 9p


def seat(t: Script, s: int, *, concealed: bool = False) -> dict[str, Any]:
    hand = t.mirror.snapshot(concealed=concealed)["hand"]
    assert hand is not None
    return dict(hand["seats"][s])


def concealed_kong_then_pong() -> tuple[Script, list[int]]:
    """Seat 1 makes an 暗槓 of 3p, then pongs seat 3's E: the 暗槓's ids, in play."""
    t = Script(quiet({1: KONG_E}, extra="2m"))
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "6s")
    t.discard(1, "6s")
    t.cycle(2)
    t.cycle(3, "E")
    t.pong(1, 3)
    t.discard(1, "2m")
    kong = next(ids for kind, ids in t.melds[1] if kind == "kong_concealed")
    return t, kong


def test_the_public_sees_that_seat_holds_a_concealed_kong_not_which() -> None:
    t, _ = concealed_kong_then_pong()
    melds = seat(t, 1)["melds"]
    assert [m["kind"] for m in melds] == ["kong_concealed", "pong"]  # its place is kept
    assert melds[0] == {"kind": "kong_concealed"}
    assert melds[1]["tiles"] == ["E", "E", "E"]  # an exposed meld is exposed
    assert seat(t, 1)["concealed_count"] == 10
    text = json.dumps(t.mirror.snapshot())
    assert '"3p"' not in text  # nowhere in the public state: no meld, no discard shows one


def test_the_referee_sees_the_concealed_kong_tiles() -> None:
    t, kong = concealed_kong_then_pong()
    meld = seat(t, 1, concealed=True)["melds"][0]
    assert meld["kind"] == "kong_concealed"
    assert meld["ids"] == kong
    assert meld["tiles"] == [tile_code(i) for i in kong] == ["3p"] * 4


def test_the_hand_s_end_reveals_the_concealed_kong() -> None:
    """Seat 1 wins on its 暗槓's replacement (槓上開花): the hand is over, all is shown."""
    t = Script(quiet({1: KONG_E}, extra="7p"))
    t.discard(0, "7p")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    kong = list(t.melds[1][0][1])
    assert seat(t, 1)["melds"] == [{"kind": "kong_concealed"}]
    t.replacement(1, "9p")
    assert seat(t, 1)["melds"] == [{"kind": "kong_concealed"}]  # not yet: it may still win
    t.win(1)
    assert t.mirror.snapshot()["hand"]["phase"] == "over"
    (meld,) = seat(t, 1)["melds"]
    assert meld["ids"] == kong and meld["tiles"] == ["3p"] * 4


def test_a_new_hand_shows_no_concealed_kong_of_the_last() -> None:
    t = Script(quiet({1: KONG_E}, extra="7p"))
    t.discard(0, "7p")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "9p")
    t.win(1)
    t.open_hand()
    assert all(s["melds"] == [] for s in t.mirror.snapshot()["hand"]["seats"])


def test_a_declaration_voided_by_a_passed_win_stands_for_the_public_until_the_end() -> None:
    """D7: seat 2's 天聽 is void once it lets its winning 6s go; the public learning that
    during play would learn its 過水, and so its wait."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.button(2, "ready")
    t.discard(0, "6s")
    t.button(2, "pass")
    assert seat(t, 2, concealed=True)["passed_win"] is True
    assert seat(t, 2, concealed=True)["declared"] is None  # the referee: void
    assert seat(t, 2)["declared"] == "heavenly_ready"  # the public: as it was declared
    assert "passed_win" not in seat(t, 2)


def test_a_standing_declaration_is_public() -> None:
    t = Script(quiet({2: READY_W}, extra="2m"))
    t.button(2, "ready")
    assert seat(t, 2)["declared"] == seat(t, 2, concealed=True)["declared"] == "heavenly_ready"
    assert t.violations() == []


def test_a_void_declaration_looks_pressed_to_the_public_until_the_hand_ends() -> None:
    """Seat 2 declares 天聽 on a hand that is not ready: the referee's view has no
    declaration, the public's still shows it (its voiding is told at the hand's end)."""
    t = Script(quiet())
    t.button(2, "ready")  # before any discard: a 天聽, judged at once
    assert any(getattr(r, "code", None) == "void_declaration" for r in t.records)
    hand = t.mirror.hand
    assert hand is not None
    public = hand.snapshot(concealed=False)["seats"][2]["declared"]
    referee = hand.snapshot(concealed=True)["seats"][2]["declared"]
    assert public is not None and referee is None
    while t.drawable > 0:
        t.cycle(t.next_seat)
    t.finish()
    assert t.mirror.hand is not None and t.mirror.hand.phase == "over"
    assert t.mirror.hand.snapshot(concealed=False)["seats"][2]["declared"] is None


def test_a_winner_lays_its_hand_down_for_everyone_and_the_others_keep_theirs() -> None:
    t = Script(quiet({1: READY_1}, extra="9p"))
    t.discard(0, "9p")
    assert "concealed" not in seat(t, 1)  # in play: hidden
    t.win(1)
    shown = seat(t, 1)
    assert sorted(shown["laid_down"]) == sorted([*READY_1.split(), "9p"])  # with the winning tile
    assert not {"concealed", "concealed_ids", "passed_win"} & shown.keys()  # the public view
    assert all("laid_down" not in seat(t, s) for s in (0, 2, 3))
    assert seat(t, 1, concealed=True)["laid_down"] == seat(t, 1, concealed=True)["concealed"]


def test_a_false_win_lays_its_hand_down_and_a_drawn_hand_shows_none() -> None:
    t = Script(quiet({0: QUIET[0] + " 2m"}))
    t.win(0)
    assert t.hand().result == "false_win"
    assert sorted(seat(t, 0)["laid_down"]) == sorted([*QUIET[0].split(), "2m"])
    drawn = Script(quiet())
    drawn.burn(0)
    assert drawn.hand().result == "drawn"
    assert all("laid_down" not in seat(drawn, s) for s in range(4))
