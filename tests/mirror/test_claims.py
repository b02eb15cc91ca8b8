"""The tricky claims: 攔胡, 搶槓, 碰 over 吃, and the flower wins (taiwan16.md §3, §5, D8)."""

from __future__ import annotations

from tests.mirror.kit_script import QUIET, Script, quiet, settled

READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
ALSO_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 5s 7s C C"  # seat 3: waits 6s alone

# --- 攔胡: two seats press 胡 on one discard; the nearest after the discarder wins ----


def rival_winners() -> Script:
    t = Script(
        quiet(
            {0: QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p 6s"), 2: READY_69S, 3: ALSO_6S},
            extra="6s",
        )
    )
    t.discard(0, "6s")
    return t


def test_intercepted_win_farther_seat_pressed_first() -> None:
    """Seat 3 presses first, seat 2 (nearer after the dealer) too: seat 2 wins."""
    t = rival_winners()
    t.button(3, "win")
    t.button(2, "win")
    t.reveal(2)
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)
    assert hand.net[3] == 0


def test_intercepted_win_nearer_seat_pressed_first() -> None:
    t = rival_winners()
    t.button(2, "win")
    t.button(3, "win")
    t.reveal(2)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.seat, hand.payer) == ("win", 2, 0)


def intercepted(hand_record_seat: int, t: Script) -> None:
    """No one is blamed, no fault, and the one hand record pays `hand_record_seat`."""
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == (
        "win",
        "discard",
        hand_record_seat,
        0,
    )
    assert hand.net[1] == 0 and hand.net[5 - hand_record_seat] == 0


def test_intercepted_win_is_not_decided_by_a_pong_press_between() -> None:
    """D3: the farther seat's 胡 is not settled by another seat's 碰 press; the nearer seat
    presses 胡 next and reveals: it wins, whatever the order of the presses."""
    t = rival_winners()
    t.button(3, "win")
    t.button(1, "pong")  # a press 胡 outranks
    t.button(1, "kong")
    assert t.hands() == []
    t.button(2, "win")
    t.reveal(2)
    intercepted(2, t)


def test_intercepted_win_waits_for_the_nearer_seat_after_the_farther_reveal() -> None:
    """The farther seat reveals first; the nearer seat, who may still win, presses after:
    the nearer seat wins and the farther reveal changes nothing."""
    t = rival_winners()
    t.win(3)
    assert t.hands() == []  # seat 2 may still claim: the window is open
    t.win(2)
    intercepted(2, t)


def test_intercepted_win_decided_when_the_nearer_seat_passes() -> None:
    t = rival_winners()
    t.win(3)
    t.button(2, "pass")
    intercepted(3, t)


def test_intercepted_win_decided_when_its_window_closes() -> None:
    """The nearer seat never claims: the farther seat's revealed 胡 is decided at the next
    event that closes the window (here the next hand's shuffle), as revealed."""
    t = rival_winners()
    t.win(3)
    t.emit({"kind": "shuffle_started"})
    intercepted(3, t)


def barred_nearer() -> Script:
    """Seat 2 showed its 7s 8s by its own fault: 禁制 8 bars its win on the 6s."""
    t = Script(
        quiet(
            {0: QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p 6s"), 2: READY_69S, 3: ALSO_6S},
            extra="6s",
        )
    )
    t.shown(2, "7s 8s")
    t.discard(0, "6s")
    return t


def barred_press_lost(t: Script, press: int) -> None:
    """Seat 3 won, paid by seat 0; seat 2's barred 胡 press is flagged (a win declared that
    禁制 8 bars), though it lost on priority and settles nothing."""
    assert t.violations() == [(press, 2, "restriction_8")]
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.seat, hand.payer) == ("win", 3, 0)
    assert hand.net[2] == 0


def test_intercepted_win_a_barred_nearer_seat_does_not_hold_it() -> None:
    """The nearer seat may not win on the tile, so the farther seat's 胡 is decided at its
    reveal; the barred seat's later press lost on priority, and is still a barred one."""
    t = barred_nearer()
    t.win(3)
    assert len(t.hands()) == 1
    t.button(2, "win")
    press = t.seq
    t.reveal(2)
    barred_press_lost(t, press)


def test_intercepted_win_the_legal_claim_beats_a_barred_nearer_one() -> None:
    """The barred nearer seat presses first: the farther legal claimant still wins, and the
    records are those of the order above."""
    t = barred_nearer()
    t.button(2, "win")
    press = t.seq
    t.win(3)
    barred_press_lost(t, press)


def test_intercepted_win_twin_a_barred_claim_alone_is_a_false_win() -> None:
    t = barred_nearer()
    t.button(2, "win")
    press = t.seq
    t.reveal(2)
    t.button(3, "pass")
    assert t.violations() == [(press, 2, "restriction_8")]
    assert (t.hand().result, t.hand().seat, t.hand().codes) == ("false_win", 2, ["restriction_8"])


# --- 搶槓: a win on the tile of a 加槓; the adder pays ------------------------------

ROBBER = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 8p 9p C C"  # seat 3: waits 7p alone
ADDER = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"  # seat 1: a pair of 7p


def test_robbing_the_kong() -> None:
    """Seat 1 pongs the dealer's 7p (seat 3 lets it go: 過水, cleared by its next discard),
    later draws the fourth and adds it; seat 3 wins on it: the adder pays. The hand's play
    (docs/events.md, HandPlay): a 搶槓 is a deal-in like a discard, at the go-round of the
    robbed kong (seat 1 discarded once, then adds in its next turn: go-round 2); seat 3
    waited on the 7p alone, an edge (8p 9p)."""
    t = Script(quiet({1: ADDER, 3: ROBBER}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    assert not t.seat_state(3)["passed_win"]
    t.cycle(0)
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    t.win(3)
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "robbing_kong", 3, 1)
    assert {"robbing_kong", "single_wait"} <= {i.id for i in hand.items}
    assert hand.net == settled(hand)
    assert hand.net[1] == -hand.net[3] and hand.net[0] == hand.net[2] == 0
    assert hand.play is not None
    assert (hand.play.deal_in_round, hand.play.wait, hand.play.waits) == (2, "edge", ["7p"])


# --- 碰 over 吃: the seat across takes the discard; the seat after it plays next ------

CHOW_1 = "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"
PONG_2 = "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"


def test_pong_over_chow_buttons() -> None:
    """Seat 1 presses 吃, seat 2 presses 碰 and takes the 2m; seat 3 draws next, then 0, 1."""
    t = Script(quiet({1: CHOW_1, 2: PONG_2}))
    t.discard(0, "2m")
    t.button(1, "chow")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1)
    assert t.violations() == []
    assert t.faults() == []
    assert t.seat_state(1)["melds"] == []


def test_pong_over_shown_chow() -> None:
    """Seat 1 lays its chow down; seat 2's pong before seat 1 discards is on time (D3:
    a 碰 is late only once the 吃 is followed by its discard) and takes the tile: the
    chow goes back into seat 1's hand and seat 3 plays after seat 2."""
    t = Script(quiet({1: CHOW_1, 2: PONG_2}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.pong(2, 0)
    assert t.violations() == []
    assert t.faults() == []
    seat1 = t.seat_state(1)
    assert seat1["melds"] == []
    assert seat1["concealed_count"] == 16
    assert [m["kind"] for m in t.seat_state(2)["melds"]] == ["pong"]
    t.concealed[1] += [m for meld in t.melds[1] for m in meld[1][1:]]
    t.melds[1] = []
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1)
    assert t.violations() == []
    assert t.faults() == []


def test_win_over_shown_chow() -> None:
    """胡 outranks 吃: seat 2 wins on the 6s seat 1 has just chowed (before its discard)."""
    chow_6s = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7s 8s"
    t = Script(quiet({1: chow_6s, 2: READY_69S}, extra="6s"))
    t.discard(0, "6s")
    t.chow(1, 0, "7s 8s")
    t.win(2)
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)


# --- 花胡 -----------------------------------------------------------------------------

SEVEN = "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"  # seat 1 holds seven flowers


def seven_flowers(extra: dict[int, str] | None = None) -> Script:
    """Seat 1 reveals its seven dealt flowers and draws their replacements (補花)."""
    t = Script(quiet({1: SEVEN, **(extra or {})}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    assert t.violations() == []
    return t


def test_eight_immortals() -> None:
    """八仙過海: seat 1 draws the eighth, reveals it, draws the replacement, presses 胡:
    all three pay 8 台 + 底, the dealer its dealer 台 on top."""
    t = seven_flowers()
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.replacement(1)
    t.button(1, "win")
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == (
        "flower_win",
        "eight_immortals",
        1,
        None,
    )
    assert hand.tai == 8
    assert hand.net == [-280, 800, -260, -260]
    assert hand.net == settled(hand)


def test_seven_rob_one_case_1() -> None:
    """七搶一 (1): seat 2 draws the eighth flower and reveals it; seat 1, holding seven,
    robs it: seat 1 draws the replacement (seat 2 draws none) and presses 胡; seat 2 pays."""
    t = seven_flowers()
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.replacement(1)
    t.button(1, "win")
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("flower_win", "seven_rob_one", 1, 2)
    assert hand.tai == 8
    assert hand.net == [0, 260, -260, 0]
    assert hand.net == settled(hand)


def test_seven_rob_one_case_1_across_a_count_of_tiles_left() -> None:
    """The table may report its count between the reveal and the robber's draw; any other
    event in between and the flower is no longer the one just revealed."""
    t = seven_flowers()
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.emit({"kind": "tiles_left", "count": t.wall})
    t.replacement(1)
    t.button(1, "win")
    assert (t.violations(), t.faults()) == ([], [])
    assert (t.hand().kind, t.hand().seat, t.hand().payer) == ("seven_rob_one", 1, 2)
    t = seven_flowers()
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.button(3, "pong")  # a stray button: the reveal is no longer the last thing shown
    t.replacement(1)
    assert [code for _, _, code in t.violations()][-1:] == ["out_of_turn"]  # not a rob
    assert t.hands() == []


def test_seven_rob_one_case_2() -> None:
    """七搶一 (2): seat 1 holds six, seat 3 one; seat 1 draws the last flower, draws its
    replacement and presses 胡: it robs seat 3's flower, seat 3 pays."""
    six = "E E E E S S S S 1p 1p h1 h2 h3 h4 h5 h6"
    t = Script(quiet({1: six, 3: QUIET[3].replace("9m 9m 9m 9m", "9m 9m 9m h8")}))
    for k in range(1, 7):
        t.flower(1, f"h{k}")
    for _ in range(6):
        t.replacement(1)
    t.flower(3, "h8")
    t.replacement(3)
    t.discard(0, "2m")
    t.draw(1, "h7")
    t.flower(1, "h7")
    t.replacement(1)
    t.button(1, "win")
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("flower_win", "seven_rob_one", 1, 3)
    assert hand.net == [0, 260, 0, -260]
    assert hand.net == settled(hand)


def test_eight_immortals_with_a_completing_replacement() -> None:
    """The eighth flower's replacement completes the hand (槓上開花): the hand's own 台 are
    added to the 8, still one 底, all three pay."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p h1 h2 h3 h4 h5 h6 h7"}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for code in ["2s", "3s", "4s", "7p", "8p", "E", "E"]:
        t.replacement(1, code)  # the hand now waits on 6p or 9p
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.replacement(1, "9p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("flower_win", "eight_immortals", 1)
    ids = {i.id for i in hand.items}
    assert {"eight_immortals", "kong_bloom"} <= ids
    assert hand.tai > 8
    assert hand.net == settled(hand)


def test_seven_rob_one_case_2_with_a_completing_replacement() -> None:
    """七搶一 (2) whose replacement completes the hand: a self-draw paid by all three on the
    hand's own 台; the robbed seat adds the 七搶一 8."""
    t = Script(
        quiet(
            {
                1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s h1 h2 h3 h4 h5 h6",
                3: QUIET[3].replace("9m 9m 9m 9m", "9m 9m 9m h8"),
            }
        )
    )
    for k in range(1, 7):
        t.flower(1, f"h{k}")
    for code in ["3s", "4s", "7p", "8p", "E", "E"]:
        t.replacement(1, code)
    t.flower(3, "h8")
    t.replacement(3)
    t.discard(0, "2m")
    t.draw(1, "h7")
    t.flower(1, "h7")
    t.replacement(1, "6p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == (
        "flower_win",
        "seven_rob_one_self_draw",
        1,
        3,
    )
    assert hand.net == settled(hand)
    assert hand.net[3] < hand.net[2] < 0  # the robbed seat pays the 8 on top


def test_chow_followed_by_its_discard_closes_the_win() -> None:
    """Seat 2 could win on the dealer's 6s; seat 1 chows it and discards: seat 2's 胡 on it
    is now late (D3), and it has 過水 (D1)."""
    chow_6s = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7s 8s"
    t = Script(quiet({1: chow_6s, 2: READY_69S}, extra="6s"))
    t.discard(0, "6s")
    t.chow(1, 0, "7s 8s")
    assert not t.seat_state(2)["passed_win"]
    t.discard(1, "9p")
    assert t.seat_state(2)["passed_win"]
    assert [m["kind"] for m in t.seat_state(1)["melds"]] == ["chow"]
    assert t.violations() == []


def test_win_over_an_exposed_pong() -> None:
    """胡 outranks 碰: seat 2 wins on the 6s seat 3 has just ponged (before its discard); the
    pong goes back into seat 3's hand and seat 0 pays."""
    pong_6s = "C C C C F F F F 1m 1m 1m 1m 9m 9m 6s 6s"
    t = Script(quiet({2: READY_69S, 3: pong_6s}, extra="6s"))
    t.discard(0, "6s")
    t.pong(3, 0)
    assert t.hands() == []
    t.win(2)
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)
    assert t.seat_state(3)["melds"] == [] and t.seat_state(3)["concealed_count"] == 16


def test_intercepted_win_a_false_press_that_lost_is_still_a_false_win() -> None:
    """Seat 1 (nearest) presses 胡 on a 6s its hand cannot take; seat 2 wins on it. The
    false declaration settles nothing but is flagged, whatever the order of the presses."""
    for order in ((1, 2), (2, 1)):
        t = rival_winners()
        presses = {}
        for seat in order:
            t.button(seat, "win")
            presses[seat] = t.seq
        t.reveal(2)
        assert t.violations() == [(presses[1], 1, "false_win")]
        hand = t.hand()
        assert (hand.result, hand.seat, hand.payer) == ("win", 2, 0)
        assert hand.net[1] == 0


def test_a_win_pressed_after_another_kind_of_win_ended_the_hand_pays_nothing() -> None:
    """The dealer's 6s goes by; seat 1 draws its 9p and presses 胡 (a self-draw); seat 2
    then presses 胡 on the old 6s and reveals. One hand, one winner (§3): seat 1's
    self-draw is decided at seat 2's press, which came after the hand ended and settles
    nothing (not a second hand record paid twice)."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E", 2: READY_69S},
                     extra="6s"))  # fmt: skip
    t.discard(0, "6s")
    t.draw(1, "9p")
    t.button(1, "win")
    t.button(2, "win")
    t.reveal(2, [*t.concealed[2], t.offered])  # type: ignore[list-item]
    t.reveal(1)
    t.finish()
    (hand,) = t.hands()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 1)
    assert t.mirror.hands == 1
