"""A discard's claim window and the melds made on it (taiwan16.md §3: 吃 only from the
上家, priority 胡 over 碰/槓 over 吃, every kong draws a replacement; D1–D4), and what the
mirror tells the referee when a meld or a show of tiles cannot be (replay-format.md)."""

from __future__ import annotations

from table_service.mirror.records import Fault, Record, Violation
from table_service.rules.tiles import parse_kind
from tests.mirror.kit_script import Script, quiet

CHOW_1 = "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"  # seat 1 (the dealer's 下家): 3m 4m
CHOW_2 = "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m"  # seat 2: 3m 4m too
READY_3P = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p 3p 3p"  # waits 6p 9p
PONG_6P = "E E E E S S S S 1p 1p 1p 1p 9p 9p 6p 6p"  # a pair of 6p and a quad of E
PONG_7P = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"
WAIT_7P = "2m 3m 4m 6m 7m 8m 2s 3s 4s 2p 2p 2p 6p 8p W W"  # waits 7p alone


def only(records: list[Record]) -> tuple[str, str]:
    """The one violation or fault of a step: (code, detail)."""
    (record,) = [r for r in records if isinstance(r, (Violation, Fault))]
    return record.code, record.detail


# --- who may take a discard -----------------------------------------------------------


def test_a_second_chow_of_one_discard_cannot_take_it_from_the_next_seats_chow() -> None:
    """Seat 1, the dealer's 下家, chows the 2m; seat 2 then lays down a chow of the same
    2m. Only the 上家's discard may be chowed (chow_not_from_left, 相公), and a 吃 does not
    outrank a 吃 (only 胡 and 碰/槓 do): seat 1's chow stands as it was shown."""
    t = Script(quiet({1: CHOW_1, 2: CHOW_2}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    seq = t.seq + 2  # its chow button, then the meld
    t.chow(2, 0, "3m 4m")
    assert t.violations() == [(seq, 2, "chow_not_from_left")]
    assert t.faults() == []
    assert t.seat_state(2)["dead_hand"]
    seat1 = t.seat_state(1)
    assert not seat1["dead_hand"]
    assert [(m["kind"], m["tiles"]) for m in seat1["melds"]] == [("chow", ["2m", "3m", "4m"])]
    assert seat1["concealed_count"] == 14


def test_a_win_on_a_discard_after_the_next_seats_draw_and_kong_is_on_time() -> None:
    """D3: a 胡 on a discard is late once the next player has both drawn and discarded.
    Seat 1 draws and lays down an 暗槓 (no discard yet): seat 2's win on the dealer's 6p
    is on time, a discard win paid by the dealer."""
    t = Script(quiet({2: READY_3P}, extra="6p"))
    t.discard(0, "6p")
    t.draw(1)
    t.kong(1, "E", "concealed")
    t.win(2)
    assert t.violations() == [] and t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)


def test_a_pongers_own_kong_closes_the_window_on_the_ponged_tile() -> None:
    """胡 outranks a 碰 only while the ponger has not played on. Seat 1 pongs the dealer's
    6p and, breaking 禁制 1, lays down an 暗槓 at once: the 6p is no longer open to a win,
    and seat 2, which could have won on it, let it go (過水, D1)."""
    t = Script(quiet({1: PONG_6P, 2: READY_3P}, extra="6p"))
    t.discard(0, "6p")
    t.pong(1, 0)
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None and hand["claimable"]["claims"][2] == ["win"]
    seq = t.seq + 2  # its kong button, then the meld
    t.kong(1, "E", "concealed")
    assert t.violations() == [(seq, 1, "restriction_1")]
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None and hand["claimable"] is None
    assert t.seat_state(2)["passed_win"] is True


def test_a_seat_that_could_rob_an_added_kong_and_lets_it_go_has_passed_a_win() -> None:
    """搶槓 and D1: seat 2 waits on 7p alone; seat 1 adds the fourth 7p to its pong. Seat 2
    does not rob it, so once seat 1 has drawn its replacement and discarded, seat 2 has
    passed a win (過水)."""
    t = Script(quiet({1: PONG_7P, 2: WAIT_7P}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)  # seat 2 let the ponged 7p go and discards a tile it does not wait on
    assert t.seat_state(2)["passed_win"] is False
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    t.replacement(1, "3s")
    t.discard(1, "3s")
    assert t.violations() == [] and t.faults() == []
    assert t.seat_state(2)["passed_win"] is True


def test_an_added_kong_clears_the_adders_passed_win() -> None:
    """D1: 過水 is cleared when the player adds by 加槓 a tile that is not one of its own
    winning tiles. Seat 1 (ponged 7p, waiting on E) lets seat 2's E go, then adds the
    fourth 7p: cleared, the referee sees the flag off (false), and its replacement E is a
    win (槓上開花)."""
    t = Script(quiet({1: "7p 7p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p E E"}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "E")
    t.cycle(2, "E")
    t.cycle(3)
    assert t.seat_state(1)["passed_win"] is True
    t.cycle(0)
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    assert t.seat_state(1)["passed_win"] is False
    t.replacement(1, "E")
    t.win(1)
    assert t.violations() == [] and t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.seat) == ("win", 1)
    assert "kong_bloom" in {i.id for i in hand.items}


# --- kongs and their replacements -------------------------------------------------------


def test_two_concealed_kongs_before_their_replacements_owe_two() -> None:
    """Every kong draws a replacement from the 槓尾 (§3). The dealer lays down two 暗槓
    before drawing either: two replacements owed. Discarding after only one leaves the hand
    a tile short (hand_size, 相公), not a flower's replacement_order."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    t.kong(0, "5m", "concealed")
    assert t.seat_state(0)["owed_replacements"] == 2
    t.replacement(0)
    assert t.seat_state(0)["owed_replacements"] == 1
    seq = t.seq + 1
    t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "hand_size")]
    assert t.seat_state(0)["dead_hand"]


def test_two_concealed_kongs_with_both_replacements_are_clean() -> None:
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    t.kong(0, "5m", "concealed")
    t.replacement(0)
    t.replacement(0)
    assert t.seat_state(0)["owed_replacements"] == 0
    t.discard(0, "2m")
    t.cycle(1)
    assert t.violations() == [] and t.faults() == []


# --- what cannot be, told in words -------------------------------------------------------


def test_a_concealed_kong_naming_a_tile_still_in_the_wall_is_told_in_words() -> None:
    """The dealer holds three P and lays down an 暗槓 whose fourth id the mirror still
    counts in the wall: impossible, the detail names the tile, and the kong is followed."""
    t = Script(quiet({0: "P P P 2s 5m 5m 5m 5m 5p 5p 5p 5p 5s 5s 5s 5s 2m"}))
    wall_p = parse_kind("P") * 4 + 3  # the one P not dealt
    tiles = [*t.ids(0, "P P P"), wall_p]
    body = {"kind": "meld_exposed", "seat": 0, "meld": "kong_concealed", "from_seat": 255}
    assert only(t.emit({**body, "tiles": tiles})) == (
        "impossible",
        f"seat 0 melded P (id {wall_p}), which is still in the wall",
    )
    assert [m["kind"] for m in t.seat_state(0)["melds"]] == ["kong_concealed"]


def test_an_added_kong_naming_a_tile_still_in_the_wall_is_told_in_words() -> None:
    """Seat 1 ponged the dealer's 7p and adds a fourth 7p it never drew: impossible, the
    detail names the tile, and the 加槓 is followed."""
    t = Script(quiet({1: PONG_7P}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "3s")
    (pong,) = [tiles for kind, tiles in t.melds[1] if kind == "pong"]
    fourth = t.alloc("7p")
    body = {"kind": "meld_exposed", "seat": 1, "meld": "kong_added", "from_seat": 255}
    assert only(t.emit({**body, "tiles": [*pong, fourth]})) == (
        "impossible",
        f"seat 1 added 7p (id {fourth}), which is still in the wall",
    )
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["kong_added"]


def test_tiles_shown_after_the_hand_ended_are_told_in_words() -> None:
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    out = t.emit({"kind": "tiles_shown", "seat": 1, "tiles": t.ids(1, "E")})
    assert only(out) == ("impossible", "tiles shown while over")


def test_tiles_shown_that_the_seat_does_not_hold_change_nothing() -> None:
    """Seat 1 is reported showing its E and seat 2's W: a misread (impossible, told in
    words) that changes nothing, so seat 1's 暗槓 of E after its draw breaks no 禁制 8."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1)
    tiles = [*t.ids(1, "E"), *t.ids(2, "W")]
    out = t.emit({"kind": "tiles_shown", "seat": 1, "tiles": tiles})
    assert only(out) == ("impossible", "seat 1 showed W, not in its hand")
    t.kong(1, "E", "concealed")
    assert t.violations() == []
