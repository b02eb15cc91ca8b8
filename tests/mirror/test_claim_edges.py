"""Worked cases for claims.py's survivors of bench/mutation.py (taiwan16.md §3, D1–D4,
D12; replay-format.md). Every expected value comes from the rules text."""

from __future__ import annotations

from table_service.mirror.records import Fault, Record, Violation
from tests.mirror.kit_script import QUIET, Script, add_the_fourth_7p, quiet


def items(t: Script) -> set[str]:
    return {i.id for i in t.hand().items}


# --- discards out of phase --------------------------------------------------------------


def test_a_discard_during_the_deal_is_impossible() -> None:
    """replay-format.md: an event that cannot happen in this phase is an `impossible`
    fault (what else the mirror makes of it is not pinned here)."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    for code in ("P", "P", "P", "P"):
        t.draw(0, code)
    seq = t.seq + 1
    out = t.discard(0, "P")
    assert (seq, "impossible") in t.faults()
    assert out[0].detail == "a discard during the deal"  # type: ignore[union-attr]


def test_a_turns_draw_from_the_back_kept_and_discarded_is_that_turns_draw() -> None:
    """Seat 1 takes its turn's tile from the 槓尾 (wrong_end) and plays on with it: its
    hand held 17 and discards to 16, so the discard is no short hand; seat 2 plays next."""
    t = Script(quiet())
    t.discard(0, "2m")
    seq = t.seq + 1
    t.draw(1, "3m", end="back")
    t.discard(1, "3m")
    t.cycle(2)
    assert t.violations() == [(seq, 1, "wrong_end")]
    assert t.seat_state(1)["concealed_count"] == 16
    assert t.seat_state(1)["discards"] == ["3m"]


def test_a_discard_before_the_kongs_replacement_is_a_short_hand() -> None:
    """The dealer's 暗槓 counts as a set of three; discarding before its replacement leaves
    15 tiles: a short hand (相公), not a flower's replacement_order."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    seq = t.seq + 1
    t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "hand_size")]
    assert t.seat_state(0)["dead_hand"]


def test_a_flower_drawn_in_play_and_kept_is_flagged_at_the_discard() -> None:
    """§2: a flower drawn in play is revealed at once and replaced; seat 1 keeps it and
    discards another tile: a flower not replaced before the discard (replacement_order)."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    seq = t.seq + 1
    t.discard(1, "9p")
    assert t.violations() == [(seq, 1, "replacement_order")]


def test_a_dealt_flower_kept_past_the_first_discard_is_flagged_then() -> None:
    """§2 補花: every dealt flower is revealed and replaced before play; seat 2 still holds
    its dealt h3 when the dealer makes the hand's first discard (replacement_order)."""
    t = Script(quiet({2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s h3"}))
    seq = t.seq + 1
    t.discard(0, "2m")
    assert t.violations() == [(seq, 2, "replacement_order")]
    t.cycle(1)
    assert t.violations() == [(seq, 2, "replacement_order")]


READY_E = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p


def test_pass_water_cleared_by_a_discard_reads_false() -> None:
    """D1: seat 1 reaches to draw past the dealer's 6p (過水), then discards a tile that is
    not a winning tile: cleared; the referee's picture shows the flag off (false)."""
    t = Script(quiet({1: READY_E}, extra="6p"))
    t.discard(0, "6p")
    t.draw(1, "3p")
    assert t.seat_state(1)["passed_win"] is True
    t.discard(1, "3p")
    assert t.seat_state(1)["passed_win"] is False


# --- melds the stream cannot explain (replay-format.md faults) --------------------------

PAIR_2M = "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"  # seat 1: a pair of 2m


def test_a_meld_listing_one_tile_twice_is_a_tile_twice_fault_and_changes_nothing() -> None:
    t = Script(quiet({1: PAIR_2M}))
    t.discard(0, "2m")
    own = t.ids(1, "2m")[0]
    seq = t.seq + 1
    body = {"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0}
    out = t.emit({**body, "tiles": [t.offered, own, own]})
    assert t.faults() == [(seq, "tile_twice")]
    assert out[0].detail == f"a meld lists one tile id twice: {[t.offered, own, own]}"  # type: ignore[union-attr]
    assert t.violations() == []
    assert t.seat_state(1)["melds"] == []


def test_a_meld_with_a_flower_in_it_is_impossible_and_changes_nothing() -> None:
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m h1"}))
    t.discard(0, "2m")
    seq = t.seq + 1
    tiles = [t.offered, *t.ids(1, "2m h1")]
    out = t.emit(
        {"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": tiles}
    )
    assert t.faults(out) == [(seq, "impossible")]
    assert out[0].detail == "a meld with a flower in it: 2m 2m h1"  # type: ignore[union-attr]
    assert t.violations(out) == []
    assert t.seat_state(1)["melds"] == []


def test_a_meld_after_a_win_is_impossible() -> None:
    """Seat 2 won the dealer's 6s; a pong reported after it cannot happen (impossible,
    replay-format.md), and the detail says why."""
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    assert t.hand().result == "win"
    seq = t.seq + 1
    body = {"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0}
    out = t.emit({**body, "tiles": t.ids(1, "9p 9p 9p")})
    assert t.faults(out) == [(seq, "impossible")]
    assert out[0].detail == "a meld while over"  # type: ignore[union-attr]


def test_a_pong_with_no_discard_to_claim_is_impossible() -> None:
    """Seat 1 lays down a pong before any discard was made: nothing to claim, an
    `impossible` fault (what else the mirror makes of it is not pinned here)."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p 9p"}))
    seq = t.seq + 1
    tiles = t.ids(1, "9p 9p 9p")
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": tiles})
    assert (seq, "impossible") in t.faults()
    assert "seat 1 exposed a pong with no discard to claim" in [
        r.detail for r in t.records if isinstance(r, Fault)
    ]


ADDER = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"  # seat 1: a pair of 7p
PAIR_2M_2 = "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"  # seat 2: a pair of 2m


def test_a_pong_of_the_last_discard_after_the_next_draw_and_a_kong_is_late() -> None:
    """D3: the dealer's 2m; seat 1 draws (a 碰 of the 2m is late from then on) and adds a
    kong; seat 2 then pongs the 2m still lying there: a late claim."""
    t = Script(quiet({1: ADDER, 2: PAIR_2M_2}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "2m")
    two = t.offered
    assert two is not None
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    assert t.seat_state(0)["discards"][-1] == "2m"
    seq = t.seq + 1
    tiles = [two, *t.ids(2, "2m 2m")]
    out = t.emit(
        {"kind": "meld_exposed", "seat": 2, "meld": "pong", "from_seat": 0, "tiles": tiles}
    )
    assert t.violations() == [(seq, 2, "late_claim")]
    assert out[0].detail == "seat 2 claimed a pong after its window closed"  # type: ignore[union-attr]
    assert t.faults() == []


def test_a_pong_of_three_different_tiles_is_impossible() -> None:
    """A 碰 is three of one kind: 2m 3m 4m reported as a pong is no pong, an `impossible`
    fault (what else the mirror makes of it is not pinned here)."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"}))
    t.discard(0, "2m")
    seq = t.seq + 1
    tiles = [t.offered, *t.ids(1, "3m 4m")]
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": tiles})
    assert (seq, "impossible") in t.faults()
    assert "2m 3m 4m is not a pong" in [r.detail for r in t.records if isinstance(r, Fault)]


CHOW_2M = "E E E E S S S S 1p 1p 1p 1p 9p 2m 3m 4m"  # seat 1: chows 2m with 3m 4m, keeps a 2m


def test_passed_pong_after_the_tile_was_chowed() -> None:
    """D2: seat 2 holds a pair of 2m and lets the dealer's 2m be chowed by seat 1 (a 碰
    would have outranked the 吃); seat 1 then discards its own 2m (禁制 6) and seat 2
    pongs it in the same go-round: 過碰."""
    t = Script(quiet({1: CHOW_2M, 2: PAIR_2M_2}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    discard = t.seq + 1
    t.discard(1, "2m")
    pong = t.seq + 2  # the button, then the meld
    t.pong(2, 1)
    assert t.violations() == [(discard, 1, "restriction_6"), (pong, 2, "passed_pong")]
    (breach,) = [r for r in t.records if isinstance(r, Violation) and r.seq == discard]
    assert breach.detail == "seat 1 discarded 2m right after claiming it (禁制 6)"


def test_a_ponged_tile_leaves_the_discarders_discards() -> None:
    t = Script(quiet({1: PAIR_2M}))
    t.discard(0, "2m")
    assert t.seat_state(0)["discards"] == ["2m"]
    t.pong(1, 0)
    assert t.seat_state(0)["discards"] == []
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["pong"]


# --- 胡 over a 碰/槓 (§3 priority: 胡 over 碰/槓 over 吃) --------------------------------

KONG_6S = "E E E E S S S S 1p 1p 1p 1p 9p 6s 6s 6s"  # seat 1: three 6s
PAIR_6S = "W W W W N N N N 1s 1s 1s 1s 9s 9s 6s 6s"  # seat 2: a pair of 6s
CHOW_6S = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7s 8s"  # seat 1: 7s 8s
ALSO_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 5s 7s C C"  # seat 3: waits 6s alone
DEALER_6S = QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p") + " 6s"


def test_a_win_over_an_exposed_kong_takes_the_tile_and_no_replacement_is_owed() -> None:
    """Seat 1 makes a 明槓 of the dealer's 6s; seat 3 wins on that 6s (胡 outranks 槓):
    the kong is not made, seat 1 keeps its three 6s and owes no replacement."""
    t = Script(quiet({0: DEALER_6S, 1: KONG_6S, 3: ALSO_6S}))
    t.discard(0, "6s")
    t.kong(1, "6s", "exposed", from_seat=0)
    t.win(3)
    assert (t.hand().result, t.hand().kind, t.hand().seat, t.hand().payer) == (
        "win",
        "discard",
        3,
        0,
    )
    seat1 = t.seat_state(1)
    assert (seat1["melds"], seat1["owed_replacements"], seat1["concealed_count"]) == ([], 0, 16)


def test_a_win_over_a_pong_made_over_a_chow() -> None:
    """Seat 1 chows the dealer's 6s, seat 2 pongs it over the chow, seat 3 wins on it over
    the pong: seat 3's win, the dealer pays; neither meld stands."""
    t = Script(quiet({0: DEALER_6S, 1: CHOW_6S, 2: PAIR_6S, 3: ALSO_6S}))
    t.discard(0, "6s")
    t.chow(1, 0, "7s 8s")
    t.pong(2, 0)
    t.win(3)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat, t.hand().payer) == (
        "win",
        "discard",
        3,
        0,
    )
    assert t.seat_state(1)["melds"] == [] and t.seat_state(2)["melds"] == []
    assert t.seat_state(0)["discards"] == []


def test_a_pong_over_a_chow_gives_the_chower_its_tiles_back_to_play() -> None:
    """Seat 2's 碰 outranks seat 1's 吃 of the dealer's 6s: the chow goes back into seat 1's
    hand, and seat 1 later discards its 7s like any tile of its hand: no fault."""
    t = Script(quiet({0: DEALER_6S, 1: CHOW_6S, 2: PAIR_6S}))
    t.discard(0, "6s")
    t.chow(1, 0, "7s 8s")
    t.pong(2, 0)
    t.concealed[1] += [tile for meld in t.melds[1] for tile in meld[1][1:]]
    t.melds[1] = []
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "3m")
    t.discard(1, "7s")
    assert t.violations() == []
    assert t.faults() == []
    assert t.seat_state(1)["discards"] == ["7s"]


def test_a_discard_out_of_turn_is_a_short_hand() -> None:
    """Seat 2 discards while seat 1 is to draw: it had no tile to spare, its hand is now
    short (hand_size, §3 相公), told to the referee in words."""
    t = Script(quiet())
    t.discard(0, "2m")
    seq = t.seq + 1
    out = t.discard(2, "W")
    assert t.violations() == [(seq, 2, "hand_size")]
    assert out[0].detail == "seat 2 discarded with no tile to spare (short hand)"  # type: ignore[union-attr]


def test_a_flower_discarded_is_named_in_its_detail() -> None:
    """Seat 1 draws h3 and discards it instead of laying it face up (flower_discarded, its
    own code, §3): the detail names the flower."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h3")
    seq = t.seq + 1
    out = t.discard(1, "h3")
    assert t.violations() == [(seq, 1, "flower_discarded")]
    assert out[0].detail == "seat 1 discarded a flower (h3)"  # type: ignore[union-attr]


def test_a_flower_drawn_in_play_and_kept_is_flagged_once() -> None:
    """§2: a flower drawn during play is revealed at once and replaced. Seat 1 keeps the h1
    it drew and discards another tile: replacement_order, told in words; kept a go-round
    longer, it is the same breach, not flagged again."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    seq = t.seq + 1
    out = t.discard(1, "9p")
    assert t.violations() == [(seq, 1, "replacement_order")]
    assert out[0].detail == "seat 1 kept a flower in hand"  # type: ignore[union-attr]
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.cycle(1)
    assert t.violations() == [(seq, 1, "replacement_order")]


def test_a_dealt_flower_kept_past_the_first_discard_is_flagged() -> None:
    """§2 補花: after the deal each player reveals its flowers. Seat 2 still holds its dealt
    h2 when the dealer makes the hand's first discard: replacement_order for seat 2, told
    in words."""
    t = Script(quiet({2: QUIET[2].replace("9s 9s 9s 9s", "9s 9s 9s h2")}))
    seq = t.seq + 1
    out = t.discard(0, "2m")
    assert t.violations() == [(seq, 2, "replacement_order")]
    assert out[0].detail == "seat 2 kept a dealt flower (補花)"  # type: ignore[union-attr]


# --- own kongs ---------------------------------------------------------------------------


def test_a_concealed_kong_made_with_tiles_shown_breaks_restriction_8() -> None:
    """禁制 8: the dealer showed two of its 白 by its own fault; an 暗槓 with them is barred."""
    t = Script(quiet())
    t.shown(0, "P P")
    seq = t.seq + 2  # the button, then the meld
    t.kong(0, "P", "concealed")
    assert t.violations() == [(seq, 0, "restriction_8")]


def test_a_concealed_kong_in_another_seats_turn_is_out_of_turn() -> None:
    """Seat 1 lays an 暗槓 down while the dealer is still to discard: not its move."""
    t = Script(quiet())
    seq = t.seq + 2
    t.kong(1, "E", "concealed")
    assert t.violations() == [(seq, 1, "out_of_turn")]


def test_a_kong_replacement_flower_discarded_past_is_replacement_order() -> None:
    """The dealer's 暗槓 draws a flower as its replacement and reveals it; discarding before
    the flower's own replacement: a flower not replaced before the discard (§2)."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    t.replacement(0, "h1")
    t.flower(0, "h1")
    seq = t.seq + 1
    out = t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "replacement_order")]
    assert out[0].detail == "seat 0 discarded before its replacement"  # type: ignore[union-attr]


def test_a_discard_before_a_kongs_replacement_is_a_short_hand() -> None:
    """The dealer lays an 暗槓 down and discards before drawing its replacement: its hand
    is a tile short (hand_size, §3 相公), told to the referee in words."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    seq = t.seq + 1
    out = t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "hand_size")]
    assert out[0].detail == "seat 0 discarded before its kong's replacement (short)"  # type: ignore[union-attr]


def test_a_concealed_kong_of_four_unlike_tiles_is_impossible() -> None:
    t = Script(quiet())
    seq = t.seq + 1
    tiles = t.ids(0, "P P P 5m")
    t.emit(
        {
            "kind": "meld_exposed",
            "seat": 0,
            "meld": "kong_concealed",
            "from_seat": 255,
            "tiles": tiles,
        }
    )
    assert (seq, "impossible") in t.faults()


def ponged_7p() -> Script:
    """Seat 1 pongs the dealer's 7p, discards, and later draws the fourth 7p."""
    t = Script(quiet({1: ADDER}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "7p")
    return t


def test_an_added_kong_with_the_fourth_tile_shown_breaks_restriction_8() -> None:
    """禁制 8: seat 1 showed the 7p it drew by its own fault; adding it to its pong is a 槓
    with a tile it had shown."""
    t = ponged_7p()
    t.shown(1, "7p")
    seq = t.seq + 2  # the button, then the meld
    t.kong(1, "7p", "added")
    assert t.violations() == [(seq, 1, "restriction_8")]


def test_an_added_kong_of_another_kind_is_impossible() -> None:
    """A 加槓 is the fourth of the pong's kind: the pong's three 7p and a 1p is none."""
    t = ponged_7p()
    pong = t.melds[1][0][1]
    seq = t.seq + 1
    tiles = [*pong, t.ids(1, "1p")[0]]
    t.emit(
        {"kind": "meld_exposed", "seat": 1, "meld": "kong_added", "from_seat": 255, "tiles": tiles}
    )
    assert t.faults() == [(seq, "impossible")]
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["pong"]


def test_an_added_kong_is_shown_as_one_and_draws_its_replacement() -> None:
    t = ponged_7p()
    t.kong(1, "7p", "added")
    t.replacement(1, "3m")
    t.discard(1, "3m")
    assert t.violations() == []
    assert t.faults() == []
    assert [(m["kind"], len(m["tiles"])) for m in t.seat_state(1)["melds"]] == [("kong_added", 4)]


PONG_WAIT_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 8s 7p 7p 9p"  # seat 1: pongs 7p, waits 8s


def test_a_win_on_an_added_kongs_replacement_is_kong_bloom() -> None:
    """Seat 1 pongs 7p, later adds the fourth and wins on the replacement: a self-draw
    with 槓上開花 (I4) and 獨聽; not 門清 (the pong is exposed)."""
    t = Script(quiet({1: PONG_WAIT_8S}, extra="7p"))
    t.discard(0, "7p")
    add_the_fourth_7p(t)
    t.replacement(1, "8s")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 1)
    assert items(t) == {"self_draw", "kong_bloom", "single_wait"}


# --- what a 吃 is (§4 reading the table: three consecutive numbers of one suit) ----------

BASE = "2m 2m 2m 2p 2p 2p 2s 2s 2s 3m 3m 3m"
OTHERS = {
    2: "6m 6m 6m 6m 6p 6p 6p 6p 6s 6s 6s 6s 7m 7m 7m 7m",
    3: "7p 7p 7p 7p 7s 7s 7s 7s 4m 4m 4m 4m 8p 8p 8p 8p",
}


def chowed(extra: str, own: str, rest: str) -> tuple[Script, int]:
    """Seat 1 chows the dealer's `extra` with `own`; the seq of the meld."""
    t = Script(quiet({1: f"{BASE} {own} {rest}", **OTHERS}, extra=extra))
    t.discard(0, extra)
    t.chow(1, 0, own)
    return t, t.seq


def test_an_honour_sequence_is_no_chow() -> None:
    t, seq = chowed("E", "S W", "3p 3p")
    assert (seq, "impossible") in t.faults()


def test_a_sequence_across_two_suits_is_no_chow() -> None:
    t, seq = chowed("2p", "9m 1p", "3p 3p")
    assert (seq, "impossible") in t.faults()
    t, seq = chowed("1p", "8m 9m", "3p 3p")
    assert (seq, "impossible") in t.faults()


def test_one_two_three_of_dots_is_a_chow() -> None:
    t, _ = chowed("1p", "2p 3p", "4s 4s")
    assert t.faults() == []
    assert t.violations() == []
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["chow"]


# --- wins with melds: the rules engine reads each meld as what it is ------------------------

CHOW_THEN_WAIT = "3s 4s 2m 3m 4m 6m 7m 8m 2p 2p 2p 7p 8p E E 4m"  # seat 1: chows 2s, waits 6p 9p


def test_a_win_after_a_chow_is_a_win_of_no_tai() -> None:
    """Seat 1 chows the dealer's 2s and wins on seat 3's 6p: not 門清, a two-sided wait,
    a triplet (no 平胡), the 東 pair is not its wind: 0 台, still a win (§4)."""
    t = Script(quiet({1: CHOW_THEN_WAIT}, extra="2s"))
    t.discard(0, "2s")
    t.chow(1, 0, "3s 4s")
    t.discard(1, "4m")
    t.cycle(2)
    t.cycle(3, "6p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer, hand.tai) == ("win", "discard", 1, 3, 0)
    assert items(t) == set()


PONG_THEN_WAIT = "3s 3s 2m 3m 4m 6m 7m 8m 2p 2p 2p 7p 8p E E 4m"  # seat 1: pongs 3s, waits 6p 9p


def test_a_win_after_a_pong_is_a_win_of_no_tai() -> None:
    t = Script(quiet({1: PONG_THEN_WAIT}, extra="3s"))
    t.discard(0, "3s")
    t.pong(1, 0)
    t.discard(1, "4m")
    t.cycle(2)
    t.cycle(3, "6p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer, hand.tai) == ("win", "discard", 1, 3, 0)


KONG_THEN_WAIT = "3s 3s 3s 2m 3m 4m 6m 7m 8m 2p 2p 2p 7p 8p E E"  # seat 1: kongs 3s, waits 6p 9p


def test_a_win_on_an_exposed_kongs_replacement_is_barred_by_restriction_2() -> None:
    """禁制 2: the replacement after a 碰槓 cannot win by self-draw: 詐胡 on the 牌面 of the
    hand as won (自摸 1 + 槓上開花 1; not 門清)."""
    t = Script(quiet({1: KONG_THEN_WAIT}, extra="3s"))
    t.discard(0, "3s")
    t.kong(1, "3s", "exposed", from_seat=0)
    t.replacement(1, "9p")
    t.win(1)
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 1, ["restriction_2"])
    assert items(t) == {"self_draw", "kong_bloom"}


CHOW_PING_HU = "3s 4s 2m 3m 4m 6m 7m 8m 2p 3p 4p 3m 3m 7p 8p 6s"  # chows 2s, waits 6p 9p


def test_a_chow_counts_as_a_sequence_for_ping_hu() -> None:
    """Seat 1 chows the dealer's 2s and wins on seat 3's 6p with five sequences and a pair,
    no flowers or honours, a two-sided wait, on a discard: 平胡 2 (§4)."""
    t = Script(quiet({1: CHOW_PING_HU}, extra="2s"))
    t.discard(0, "2s")
    t.chow(1, 0, "3s 4s")
    t.discard(1, "6s")
    t.cycle(2)
    t.cycle(3, "6p")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().tai) == ("win", 2)
    assert items(t) == {"ping_hu"}


def test_an_added_kong_extends_the_pong_of_its_kind() -> None:
    """Seat 1 holds two pongs (7p, then 2m) and adds the fourth 2m: its 2m pong becomes the
    kong; the 7p pong stays."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 7p 7p 2m 2m"}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3, "2m")
    t.pong(1, 3)
    t.discard(1, "S")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "2m")
    t.kong(1, "2m", "added")
    assert t.faults() == []
    melds = [(m["kind"], m["tiles"][0]) for m in t.seat_state(1)["melds"]]
    assert melds == [("pong", "7p"), ("kong_added", "2m")]


# --- 過碰 (D2) only where a 碰 was allowed ------------------------------------------------


def test_a_tile_let_go_when_no_pong_was_allowed_gives_no_passed_pong() -> None:
    """D2 bars a 碰 after letting a tile go that could have been ponged; 禁制 7 (D12) bars
    every 碰 of a discard made with three drawable tiles or fewer. Seat 2 holds a pair of
    2m and lets the dealer's 2m go at 3 drawable: no 碰 was allowed, so no 過碰. Its 碰 of
    seat 1's 2m in the same go-round breaks 禁制 7 alone."""
    t = Script(quiet({2: PAIR_2M_2}, extra="3m"))
    t.discard(0, "3m")
    t.burn(4, 1)
    assert (t.next_seat, t.drawable) == (0, 4)
    t.cycle(0, "2m")
    t.cycle(1, "2m")
    seq = t.seq + 2  # the button, then the meld
    t.pong(2, 1)
    assert t.violations() == [(seq, 2, "restriction_7")]


def test_a_win_over_a_kong_whose_replacement_came_from_the_front_owes_nothing() -> None:
    """Seat 1 makes a 明槓 of the dealer's 6s and takes its replacement from the front
    (wrong_end): the replacement is drawn, nothing more is owed. Seat 3 then wins on the 6s
    (胡 outranks 槓 until the claimer's discard, D3): the kong is undone, and seat 1 still
    owes no replacement (never a negative count)."""
    t = Script(quiet({0: DEALER_6S, 1: KONG_6S, 3: ALSO_6S}))
    t.discard(0, "6s")
    t.kong(1, "6s", "exposed", from_seat=0)
    t.replacement(1, "3m", end="front")
    t.win(3)
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 3, 0)
    assert t.seat_state(1)["melds"] == []
    assert t.seat_state(1)["owed_replacements"] == 0


DEALER_PAIR_6S = QUIET[0].replace("5s 5s 5s 5s", "5s 5s 6s 6s") + " 2m"


def test_a_win_over_a_pong_leaves_the_pongers_own_kong_replacement_owed() -> None:
    """The dealer lays down an 暗槓 and discards before its replacement (a short hand,
    相公); it then pongs seat 1's 6s all the same (dead_hand_claim), and seat 3 wins on that
    6s (胡 over 碰). The pong is undone; the 暗槓's replacement, never drawn, is still owed."""
    t = Script(quiet({0: DEALER_PAIR_6S, 3: ALSO_6S}))
    t.kong(0, "P", "concealed")
    t.discard(0, "2m")
    t.draw(1, "6s")
    t.discard(1, "6s")
    t.pong(0, 1)
    t.win(3)
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 3, 1)
    assert [m["kind"] for m in t.seat_state(0)["melds"]] == ["kong_concealed"]
    assert t.seat_state(0)["owed_replacements"] == 1


# --- breaches of §3's claims and kongs, told to the referee in words ----------------------


def only(records: list[Record]) -> tuple[str, str]:
    """The one violation or fault of a step: (code, detail)."""
    (record,) = [r for r in records if isinstance(r, (Violation, Fault))]
    return record.code, record.detail


def test_a_chow_of_a_discard_not_from_the_left_is_told_in_words() -> None:
    """§3: 吃 only the discard of one's 上家; seat 2 chows the dealer's 2m."""
    t = Script(quiet({2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m"}))
    t.discard(0, "2m")
    assert only(t.chow(2, 0, "3m 4m")) == ("chow_not_from_left", "seat 2 chowed seat 0's discard")


def test_a_chow_of_the_tile_it_discarded_in_the_go_round_is_told_in_words() -> None:
    """禁制 6: after discarding a tile, no 吃 of that tile in the same go-round; seat 1
    throws 8m, and chows the dealer's 8m before its next discard."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 6m 7m 8m 2s"}))
    t.discard(0, "2m")
    t.draw(1, "3s")
    t.discard(1, "8m")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "8m")
    assert only(t.chow(1, 0, "6m 7m")) == (
        "restriction_6",
        "seat 1 chowed the tile it discarded, or its 絡 (禁制 6)",
    )


def test_a_pong_with_a_tile_it_had_shown_is_told_in_words() -> None:
    """禁制 8: seat 1 showed a 2m by its own fault; it may not pong with it."""
    t = Script(quiet({1: PAIR_2M}))
    t.shown(1, "2m")
    t.discard(0, "2m")
    assert only(t.pong(1, 0)) == (
        "restriction_8",
        "seat 1 made a pong with tiles it had shown (禁制 8)",
    )


def test_a_pong_at_three_drawable_is_told_in_words() -> None:
    """禁制 7 (D12): no 碰 of a discard made with three drawable tiles or fewer."""
    t = Script(quiet({2: PAIR_2M_2}, extra="3m"))
    t.discard(0, "3m")
    t.burn(4, 1)
    t.cycle(0, "2m")
    assert only(t.pong(2, 0)) == ("restriction_7", "seat 2 claimed with 3 drawable left (禁制 7)")


def test_a_passed_pong_is_told_in_words() -> None:
    """D2: seat 2 let the dealer's 2m be chowed holding a pair, and pongs seat 1's 2m in
    the same go-round."""
    t = Script(quiet({1: CHOW_2M, 2: PAIR_2M_2}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.discard(1, "2m")
    assert only(t.pong(2, 1)) == ("passed_pong", "seat 2 let a 2m go and ponged another (過碰)")


def test_a_concealed_kong_with_tiles_shown_is_told_in_words() -> None:
    t = Script(quiet())
    t.shown(0, "P P")
    assert only(t.kong(0, "P", "concealed")) == (
        "restriction_8",
        "seat 0 made an 暗槓 with tiles it had shown (禁制 8)",
    )


def test_a_concealed_kong_out_of_turn_is_told_in_words() -> None:
    t = Script(quiet())
    assert only(t.kong(1, "E", "concealed")) == (
        "out_of_turn",
        "seat 1 made an 暗槓 when it was not its move",
    )


def test_a_concealed_kong_right_after_a_pong_is_told_in_words() -> None:
    """禁制 1: no kong in the same turn right after a 碰."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"}))
    t.discard(0, "2m")
    t.pong(1, 0)
    assert only(t.kong(1, "E", "concealed")) == (
        "restriction_1",
        "seat 1 made an 暗槓 right after a claim (禁制 1)",
    )


def test_a_concealed_kong_after_an_exposed_kongs_replacement_is_told_in_words() -> None:
    """禁制 3 (D10): no further kong in the turn of a 碰槓's replacement."""
    t = Script(quiet({0: DEALER_6S, 1: KONG_6S}))
    t.discard(0, "6s")
    t.kong(1, "6s", "exposed", from_seat=0)
    t.replacement(1, "3m")
    assert only(t.kong(1, "E", "concealed")) == (
        "restriction_3",
        "seat 1 made an 暗槓 after a 碰槓 replacement (禁制 3)",
    )


def test_a_kong_on_the_last_drawable_tile_is_told_in_words() -> None:
    """D4: a kong needs a drawable tile for its replacement; seat 3 draws the last one
    (海底) and lays down an 暗槓."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1, 1)
    t.draw(3)
    assert t.drawable == 0
    assert only(t.kong(3, "C", "concealed")) == (
        "kong_without_replacement",
        "seat 3 made a kong with no drawable tile left (D4)",
    )


def test_melds_that_are_not_what_they_say_are_told_in_words() -> None:
    """A 吃 is three consecutive numbers of one suit, a kong four of one kind, a 加槓 the
    fourth of one of the seat's pongs: anything else cannot be (impossible), and the
    detail names the tiles."""
    t, seq = chowed("E", "S W", "3p 3p")
    assert [r.detail for r in t.records if r.seq == seq] == ["E S W is not a chow"]
    t = Script(quiet())
    tiles = t.ids(0, "P P P 5m")
    body = {"kind": "meld_exposed", "seat": 0, "from_seat": 255, "tiles": tiles}
    assert only(t.emit({**body, "meld": "kong_concealed"})) == (
        "impossible",
        "5m P P P is not a kong",
    )
    t = ponged_7p()
    tiles = [*t.melds[1][0][1], t.ids(1, "1p")[0]]
    body = {"kind": "meld_exposed", "seat": 1, "from_seat": 255, "tiles": tiles}
    assert only(t.emit({**body, "meld": "kong_added"})) == (
        "impossible",
        "seat 1's 加槓 1p 7p 7p 7p does not extend one of its pongs",
    )
