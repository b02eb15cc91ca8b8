"""Worked cases for state.py's survivors of bench/mutation.py: a seat's picture as the
public and the referee see it (its flags are true or false, a declaration none until made)."""

from __future__ import annotations

from tests.mirror.kit_script import QUIET, Script, add_the_fourth_7p, quiet


def test_a_fresh_seat_is_not_dead_and_has_declared_nothing() -> None:
    t = Script(quiet())
    referee = t.seat_state(2)
    assert referee["dead_hand"] is False
    assert referee["declared"] is None
    assert referee["passed_win"] is False
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    public = hand["seats"][2]
    assert public["dead_hand"] is False
    assert public["declared"] is None


KEEPER = "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3s 4s 8p"  # seat 1: draws 8p, waits 2s 5s
DEALER_2S = QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p") + " 2s"


def restriction_5_win(keeper: str, replacement: str) -> Script:
    """The dealer discards 2s; seat 1 keeps its drawn 8p, makes an 暗槓 of 3p and wins on
    the replacement."""
    t = Script(quiet({0: DEALER_2S, 1: keeper}))
    t.discard(0, "2s")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, replacement)
    return t


def test_restriction_5_judged_on_the_wait_before_a_replacement_of_a_new_kind() -> None:
    """禁制 5: the dealer discarded 2s, one of seat 1's waits (2s 5s); seat 1 keeps its drawn
    8p, makes an 暗槓 and wins on the replacement 5s: its winning tiles included the 2s
    discarded in this go-round, so the win is invalid."""
    t = restriction_5_win(KEEPER, "5s")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_5")]
    assert (t.hand().result, t.hand().codes) == ("false_win", ["restriction_5"])


PONG_FIRST = "2m 2m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W 3m"  # seat 2: pongs 2m, waits 6s 9s


def test_earthly_ready_after_a_pong_is_void() -> None:
    """地聽 is declared with the first discard on a concealed hand; seat 2 ponged first:
    void (D7), though its hand is ready."""
    t = Script(quiet({2: PONG_FIRST}))
    t.discard(0, "2m")
    t.pong(2, 0)
    t.discard(2, "3m")
    seq = t.seq + 1
    t.button(2, "ready")
    assert t.violations() == [(seq, 2, "void_declaration")]


KONG_FIRST = "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7s 8s E"  # seat 1: draws E, 暗槓 3p


def test_earthly_ready_after_a_concealed_kong_stands() -> None:
    """An 暗槓 keeps the hand concealed (門清 allows it): seat 1's 暗槓 before its first
    discard, then ready with that discard: 地聽, no violation."""
    t = Script(quiet({1: KONG_FIRST}))
    t.discard(0, "2m")
    t.draw(1, "E")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "4p")
    t.discard(1, "4p")
    t.button(1, "ready")
    assert t.violations() == []
    assert t.seat_state(1)["declared"] == "earthly_ready"


# --- what the public sees ---------------------------------------------------------------


def public_seat(t: Script, seat: int) -> dict[str, object]:
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    return dict(hand["seats"][seat])


def test_a_concealed_kong_is_hidden_from_the_public_until_the_hand_ends() -> None:
    """An 暗槓 is four concealed tiles: the public sees that a kong lies there, not its
    tiles, until the hand is over; the referee sees them; a 碰 is public at once."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"}))
    t.discard(0, "2m")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "3m")
    t.kong(0, "P", "concealed")
    assert public_seat(t, 0)["melds"] == [{"kind": "kong_concealed"}]
    assert [m["kind"] for m in t.seat_state(0)["melds"]] == ["kong_concealed"]
    assert t.seat_state(0)["melds"][0]["tiles"] == ["P", "P", "P", "P"]
    pong = public_seat(t, 1)["melds"]
    assert isinstance(pong, list) and pong[0]["tiles"] == ["2m", "2m", "2m"]
    t.replacement(0, "4m")
    t.discard(0, "4m")
    t.burn(0)
    t.finish()
    assert t.hand().result == "drawn"
    melds = public_seat(t, 0)["melds"]
    assert isinstance(melds, list) and melds[0]["tiles"] == ["P", "P", "P", "P"]


def test_the_referee_sees_the_concealed_ids() -> None:
    t = Script(quiet())
    assert t.seat_state(2)["concealed_ids"] == t.concealed[2]


def test_the_public_sees_a_heavenly_ready_declared() -> None:
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}))
    t.button(2, "ready")
    assert t.violations() == []
    assert public_seat(t, 2)["declared"] == "heavenly_ready"


def test_who_may_claim_the_dealers_discard() -> None:
    """§3: 吃 only by the discarder's 下家 (seat 1); 碰/槓 and 胡 by any other seat."""
    t = Script(quiet())
    t.discard(0, "2m")
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    claims = hand["claimable"]["claims"]
    assert claims[0] == []
    assert set(claims[1]) == {"chow", "pong", "kong", "win"}
    assert set(claims[2]) == set(claims[3]) == {"pong", "kong", "win"}


def claims_now(t: Script) -> list[set[str]] | None:
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    if hand["claimable"] is None:
        return None
    return [set(c) for c in hand["claimable"]["claims"]]


ANY = {"pong", "kong", "win"}


def test_an_honour_discard_has_no_chow() -> None:
    t = Script(quiet({1: "6m 6m 6m 6m 6p 6p 6p 6p 6s 6s 6s 6s 7m 7m 7m 7m"}, extra="E"))
    t.discard(0, "E")
    assert claims_now(t) == [set(), ANY, ANY, ANY]


def test_once_the_next_seat_drew_only_the_others_may_still_win() -> None:
    """D3: the next seat's draw makes a 碰/槓 late; a 胡 is still on time for the seats
    after it (the drawer let the tile go, D1)."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "3m")
    assert claims_now(t) == [set(), set(), {"win"}, {"win"}]


def test_after_a_chow_is_shown_the_others_may_still_pong_or_win() -> None:
    """D3: a 碰 or 胡 on the tile is on time until the chower's discard."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    assert claims_now(t) == [set(), set(), ANY, ANY]


def test_with_three_drawable_left_at_the_discard_only_a_win() -> None:
    """禁制 7 and D12: no 吃, 碰 or 碰槓 of a discard made with three drawable tiles left."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(4)
    seat = t.next_seat
    t.cycle(seat)  # its draw leaves 3 drawable, then its discard
    assert t.drawable == 3
    expected = [{"win"}] * 4
    expected[seat] = set()
    assert claims_now(t) == expected


def test_with_four_drawable_left_at_the_discard_all_claims() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(5)
    seat = t.next_seat
    t.cycle(seat)
    assert t.drawable == 4
    expected = [ANY] * 4
    expected[seat] = set()
    expected[(seat + 1) % 4] = {"chow", *ANY}
    assert claims_now(t) == expected


def test_an_added_kong_tile_may_only_be_robbed() -> None:
    """搶槓: the tile of a 加槓 may be won on, nothing else."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"}, extra="7p"))
    t.discard(0, "7p")
    add_the_fourth_7p(t)
    assert claims_now(t) == [{"win"}, set(), {"win"}, {"win"}]


def test_a_dead_seat_may_claim_nothing() -> None:
    """相公: no claim and no win (§3). Seat 2 discarded a flower (相公) earlier."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h1")
    t.emit({"kind": "tile_discarded", "seat": 2, "tile": t.ids(2, "h1")[0]})
    t.concealed[2].remove(t.ids(2, "h1")[0])
    t.cycle(3)
    t.cycle(0, "3m")
    assert claims_now(t) == [set(), {"chow", *ANY}, set(), ANY]


def test_the_wall_after_the_deal() -> None:
    """§2: 144 tiles, 65 dealt; 16 (8 墩) are always left undrawn: 79 left, 63 drawable."""
    t = Script(quiet())
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    assert (hand["tiles_left"], hand["drawable"], hand["reserve"]) == (79, 63, 16)


SHANPON = "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 2s 6s 7s 8s 8p"  # seat 1: draws 8p, waits 2s 8p


def test_restriction_5_counts_the_copies_held_before_the_winning_tile_came() -> None:
    """禁制 5 asks what the hand waited on *before* the replacement: seat 1 held two 2s (a
    shanpon on 2s and 8p), so 2s was a wait though the win on the replacement 2s leaves
    three in its hand; the dealer discarded a 2s in this go-round: the win is invalid.
    (Counting one copy too many, four, would make 2s look like no wait: 假聽.)"""
    t = restriction_5_win(SHANPON, "2s")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_5")]
    assert (t.hand().result, t.hand().codes) == ("false_win", ["restriction_5"])
