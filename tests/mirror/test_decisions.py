"""The decisions D1–D12 of taiwan16.md §3, each as a test named for it."""

from __future__ import annotations

import pytest

from tests.mirror.kit_script import QUIET, Script, quiet, settled

READY_E = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p
READY_W = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
KONG_E = "3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p, a 3p triplet


def items(t: Script) -> set[str]:
    return {i.id for i in t.hand().items}


# --- D1: 過水 -------------------------------------------------------------------------


def test_d1_pass_bars_a_win_until_the_own_discard() -> None:
    """Seat 2 passes the dealer's 6s (過水); 胡 on seat 1's 9s in the same go-round is
    barred; the hand is a 詐胡 on the 牌面 of the complete hand."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    t.button(2, "pass")
    assert t.seat_state(2)["passed_win"]
    t.cycle(1, "9s")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "passed_win")]
    assert t.hand().result == "false_win"


def test_d1_reaching_to_draw_passes_and_a_discard_clears() -> None:
    """Seat 1 could win on the dealer's 6p and draws instead: 過水. Its discard of a tile
    that is not a winning tile clears it, so its 胡 on seat 3's 9p in the next go-round
    stands."""
    t = Script(quiet({1: READY_E}, extra="6p"))
    t.discard(0, "6p")
    t.draw(1, "3p")
    assert t.seat_state(1)["passed_win"]
    t.discard(1, "3p")
    assert not t.seat_state(1)["passed_win"]
    t.cycle(2)
    t.cycle(3, "9p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.seat, hand.payer) == ("win", 1, 3)


def test_d1_passing_a_self_draw() -> None:
    """Seat 1 draws its winning 9p and throws it out: 過水 on its own draw; the discard
    is a winning tile, so it is not cleared and 胡 on seat 2's 6p is barred."""
    t = Script(quiet({1: READY_E}, extra="2m"))
    t.discard(0, "2m")
    t.draw(1, "9p")
    t.discard(1, "9p")
    assert t.seat_state(1)["passed_win"]
    t.cycle(2, "6p")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "passed_win")]


PASS_WATER_SELF_DRAW = {"rules": {"pass_water_self_draw": True}}


def self_draw_under_pass(profile: str | dict[str, object] = "mjonline") -> Script:
    """Seat 1 passes the dealer's 6p (過水), then draws its other winning tile, 9p, and
    presses 胡 before any discard of its own has cleared the 過水."""
    t = Script(quiet({1: READY_E}, extra="6p"), profile=profile)
    t.discard(0, "6p")
    t.button(1, "pass")
    assert t.seat_state(1)["passed_win"]
    t.draw(1, "9p")
    t.win(1)
    return t


def test_d1_under_a_pass_a_self_draw_is_barred_too() -> None:
    """D1: 其後迄本身打出一張非和之牌前不得和牌: no win at all, a self-draw included; the
    win is a 詐胡 on its 牌面, flagged at its 胡 press."""
    t = self_draw_under_pass()
    assert [(seat, code) for _, seat, code in t.violations()] == [(1, "passed_win")]
    assert t.hand().result == "false_win"


def test_d1_self_draw_after_the_pass_is_cleared_wins() -> None:
    """The legal twin: seat 1's discard of a non-winning tile clears the 過水, and its
    self-drawn 9p in the next go-round wins."""
    t = Script(quiet({1: READY_E}, extra="6p"))
    t.discard(0, "6p")
    t.button(1, "pass")
    t.draw(1, "3p")
    t.discard(1, "3p")
    assert not t.seat_state(1)["passed_win"]
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat) == ("win", 1)


def test_d1_the_house_rule_lets_a_self_draw_under_a_pass_stand() -> None:
    """§7 `pass_water_self_draw = true`: the same stream is a self-drawn win."""
    t = self_draw_under_pass(PASS_WATER_SELF_DRAW)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat) == ("win", 1)
    assert "concealed_self_draw" in items(t)


def test_d1_added_kong_of_a_non_winning_tile_clears() -> None:
    t = Script(quiet({1: "7p 7p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7s 8s E E"}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "3p")
    t.cycle(2, "6s")
    t.button(1, "pass")
    assert t.seat_state(1)["passed_win"]
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    assert not t.seat_state(1)["passed_win"]
    assert t.violations() == []


@pytest.mark.parametrize(
    "profile", ["mjonline", PASS_WATER_SELF_DRAW], ids=["default", "pass_water_self_draw"]
)
def test_d1_concealed_kong_does_not_clear(profile: str | dict[str, object]) -> None:
    """Seat 1 passes the dealer's 6p, then draws the fourth 3p, makes an 暗槓 with it and
    wins on the replacement: an 暗槓 does not clear 過水, its replacement cannot win, even
    where the house rule lets a self-draw under 過水 stand."""
    t = Script(quiet({1: KONG_E}, extra="6p"), profile=profile)
    t.discard(0, "6p")
    t.button(1, "pass")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "9p")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "passed_win")]
    assert t.hand().codes == ["passed_win"]


def test_d1_concealed_kong_twin() -> None:
    """Without 過水 the same 暗槓 replacement wins (槓上開花)."""
    t = Script(quiet({1: KONG_E}, extra="7p"))
    t.discard(0, "7p")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert {"kong_bloom", "concealed_self_draw"} <= items(t)


SHANPON_2M_6P = "2m 2m 6p 6p 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p"  # seat 2: waits 2m or 6p


def test_d1_ponging_a_winning_tile_is_a_pass() -> None:
    """Seat 2 could win on the dealer's 2m and pongs it instead (得和牌而未和牌): 過水.
    Its discard after the pong leaves a winning tile (a complete hand less one), so 過水
    holds and its 胡 on seat 3's 4p is barred (seed 10124, hand 11)."""
    t = Script(quiet({2: SHANPON_2M_6P}, extra="2m"))
    t.discard(0, "2m")
    t.pong(2, 0)
    assert t.seat_state(2)["passed_win"]
    t.discard(2, "4p")  # leaves 2p 3p: waits 1p 4p, so 4p was a winning tile
    assert t.seat_state(2)["passed_win"]
    t.cycle(3, "4p")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "passed_win")]
    assert t.hand().result == "false_win"


def test_d1_ponging_a_shown_winning_tile_is_a_pass() -> None:
    """The same with the 2m shown by seat 2's own fault (禁制 8 bars the win, and the pong
    is flagged): the win it could not take is still a pass (seed 10124, hand 11)."""
    t = Script(quiet({2: SHANPON_2M_6P}, extra="2m"))
    t.shown(2, "2m")
    t.discard(0, "2m")
    t.pong(2, 0)
    pong = t.seq
    t.discard(2, "4p")
    t.cycle(3, "4p")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(pong, 2, "restriction_8"), (seq, 2, "passed_win")]
    assert t.hand().result == "false_win"


def test_d1_ponging_a_winning_tile_twin() -> None:
    """Ponging a tile that does not complete the hand is no pass: the later 胡 stands."""
    t = Script(quiet({2: "2m 2m 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p 6p 7p"}, extra="2m"))
    t.discard(0, "2m")  # seat 2 waits 5p 8p: the 2m is only a pong
    t.pong(2, 0)
    assert not t.seat_state(2)["passed_win"]
    t.discard(2, "6p")  # waits 7p alone
    t.cycle(3, "7p")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 2, 3)


def test_d1_chowing_a_winning_tile_is_a_pass_its_discard_clears() -> None:
    """Seat 1 (waits 2m 3m 4m) could win on the dealer's 4m and chows it (2m 3m) instead:
    過水 from the chow. Its discard, 2m, is not a winning tile (it then waits 3m 4m), so
    過水 is cleared and its 胡 on seat 3's 3m stands."""
    t = Script(quiet({1: "2m 2m 3m 3m 3m 4m 4m 2s 3s 4s 6s 7s 8s 2p 3p 4p"}, extra="4m"))
    t.discard(0, "4m")
    t.chow(1, 0, "2m 3m")
    assert t.seat_state(1)["passed_win"]
    t.discard(1, "2m")
    assert not t.seat_state(1)["passed_win"]
    t.cycle(2)
    t.cycle(3, "3m")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 1, 3)


# --- D2: 過碰 -------------------------------------------------------------------------

PAIR_3M = {2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 3m"}


def test_d2_passed_pong_in_the_same_go_round() -> None:
    t = Script(quiet(PAIR_3M, extra="3m"))
    t.discard(0, "3m")
    t.cycle(1, "3m")
    t.pong(2, 1)
    assert t.violations() == [(t.seq, 2, "passed_pong")]


def test_d2_own_discard_ends_the_go_round() -> None:
    """After seat 2's own discard a new go-round begins: the next 3m may be ponged."""
    t = Script(quiet(PAIR_3M, extra="3m"))
    t.discard(0, "3m")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    assert t.violations() == []


# --- D3: claims ordered by the events ------------------------------------------------


def test_d3_pong_is_late_once_the_next_draw_is_recorded() -> None:
    t = Script(quiet(PAIR_3M, extra="3m"))
    t.discard(0, "3m")
    t.draw(1, "4m")
    t.pong(2, 0)
    assert t.violations() == [(t.seq, 2, "late_claim")]


def test_d3_win_is_on_time_after_the_next_draw() -> None:
    """Seat 1 has drawn but not discarded: seat 2's 胡 on the dealer's 6s stands."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    t.draw(1, "4m")
    t.win(2)
    assert t.violations() == []
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.seat, hand.payer) == ("win", 2, 0)


def test_d3_win_is_late_once_the_next_player_discarded() -> None:
    """Seat 1 drew and discarded: seat 2's 胡 on the dealer's 6s (revealed with it) is
    late; a late claim, and 詐胡 on the hand's 牌面. The press also carries passed_win:
    letting the window close was a pass (D1), and the button is judged when pressed."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    six = t.offered
    t.cycle(1, "4m")
    seq = t.seq + 1
    t.button(2, "win")
    t.reveal(2, [*t.concealed[2], six])  # type: ignore[list-item]
    assert t.violations() == [(seq, 2, "passed_win"), (seq, 2, "late_claim")]
    assert t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.codes) == ("false_win", ["passed_win", "late_claim"])
    assert hand.tai > 0


def test_d3_pong_outranks_a_chow_not_yet_followed_by_its_discard() -> None:
    t = Script(
        quiet(
            {
                1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m",
                2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m",
            }
        )
    )
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.pong(2, 0)
    assert t.violations() == []
    assert t.seat_state(1)["melds"] == []


# --- D4: a kong needs a drawable tile; a flower as the last one ends the hand ----------


def test_d4_no_kong_without_a_drawable_tile() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    t.draw(3)
    t.kong(3, "C", "concealed")
    assert t.violations() == [(t.seq, 3, "kong_without_replacement")]


def test_d4_flower_as_the_last_drawable_tile_is_drawn() -> None:
    """Seat 3 draws the 海底 and it is a flower: no replacement exists, 荒局."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    t.draw(3, "h5")
    assert t.drawable == 0
    t.flower(3, "h5")
    hand = t.hand()
    assert (hand.seq, hand.result, hand.kind) == (t.seq, "drawn", None)
    assert hand.next is not None and (hand.next.dealer, hand.next.streak) == (0, 1)
    assert t.violations() == []


def test_d4_flower_with_drawable_left_is_replaced() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(2)
    t.draw(2, "h5")
    t.flower(2, "h5")
    t.replacement(2)
    assert t.hands() == []
    t.discard(2, t.hand_codes(2).split()[-1])
    assert t.hand().result == "drawn"
    assert t.violations() == []


# --- D5: declining the 海底 --------------------------------------------------------------


def test_d5_declining_the_last_tile_is_drawn() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    seat = t.next_seat
    t.button(seat, "pass")
    hand = t.hand()
    assert (hand.seq, hand.result) == (t.seq, "drawn")
    assert t.violations() == []


def test_d5_twin_drawing_the_last_tile_then_discarding() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(1)
    seat = t.next_seat
    t.cycle(seat)
    assert (t.hand().seq, t.hand().result) == (t.seq, "drawn")
    assert t.violations() == []


# --- D6: 地胡 and 人胡 -------------------------------------------------------------------


def test_d6_earthly_win_on_the_first_discard() -> None:
    """Seat 2 has not discarded and wins on the dealer's first discard: 地胡."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    assert "earthly_win" in items(t)
    assert "concealed" not in items(t)
    assert t.hand().net == settled(t.hand())


def test_d6_no_earthly_win_after_the_winner_discarded() -> None:
    t = Script(quiet({1: READY_E}, extra="2m"))
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.discard(1, "3p")
    t.cycle(2, "6p")
    t.win(1)
    assert t.violations() == []
    assert "earthly_win" not in items(t)


def test_d6_earthly_win_on_a_first_discard_made_after_another_seats_pong() -> None:
    """地胡 stands 「不論他人吃碰與否」 (seeds 000–002; §4: "a player's first discard"):
    seat 2 pongs the dealer's first discard and throws its own first tile, which seat 3,
    not having discarded, wins on."""
    t = Script(
        quiet({2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m",
               3: "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 7s 8s C C"}, extra="2m")
    )  # fmt: skip
    t.discard(0, "2m")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.win(3)
    assert t.violations() == []
    assert "earthly_win" in items(t) and "concealed" not in items(t)


def test_d6_a_self_drawn_earthly_win_after_another_seats_pong() -> None:
    """The §7 house rule's self-drawn 地胡 (no 天聽 needed), on seat 1's first draw after
    seat 2 ponged the dealer's first discard: others' claims do not break it."""
    t = Script(
        quiet({1: READY_E, 2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3p 3p"}, extra="3p"),
        profile=NO_DECLARATION,
    )
    t.discard(0, "3p")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert {"earthly_win", "concealed_self_draw"} <= items(t)


def test_d6_human_win_after_an_earthly_ready() -> None:
    """Seat 1 declares 地聽 with its first discard and wins on seat 2's first discard: 人胡."""
    t = Script(quiet({1: READY_E}, extra="2m"))
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.button(1, "ready")
    t.discard(1, "3p")
    t.cycle(2, "9p")
    t.win(1)
    assert t.violations() == []
    assert "human_win" in items(t)
    assert not {"earthly_win", "earthly_ready", "concealed"} & items(t)


def test_d6_an_exposed_kongs_replacement_after_an_earthly_ready_is_no_human_win() -> None:
    """Seat 1 declares 地聽 with its first discard (ready on 3p or 8s), makes a 碰槓 of
    seat 2's 6p and draws its 3p as the replacement. 禁制 2: a 碰槓's replacement cannot win
    by self-draw, so its 胡 is a 詐胡 on the 牌面 the hand would score (§3). A 明槓 leaves
    the hand not concealed, and 地聽 is a concealed hand's declaration (§4), so the 牌面
    is 自摸 1 + 槓上開花 1 (I4), with no 地聽 or 人胡: seat 1 pays each other seat
    底 100 + 2 × 20, and the dealer its dealer 台 1 on top."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 8s 8s"}))
    t.discard(0, "2m")
    t.draw(1, "E")
    t.button(1, "ready")
    t.discard(1, "E")
    assert t.seat_state(1)["declared"] == "earthly_ready"
    t.cycle(2, "6p")
    t.kong(1, "6p", "exposed", from_seat=2)
    t.replacement(1, "3p")
    seq = t.seq + 1  # the 胡 button
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_2")]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 1, ["restriction_2"])
    assert (hand.tai, items(t)) == (2, {"self_draw", "kong_bloom"})
    assert hand.net == [160, -440, 140, 140]


# --- D7: declarations ----------------------------------------------------------------


def test_d7_void_declaration_is_flagged() -> None:
    t = Script(quiet())
    t.button(2, "ready")
    assert t.violations() == [(t.seq, 2, "void_declaration")]


def test_d7_changing_tiles_lapses_the_declaration() -> None:
    """Seat 2 declared 天聽, then keeps a drawn tile and discards another (換牌)."""
    t = Script(quiet({2: READY_W}, extra="2m"))
    t.button(2, "ready")
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "W")
    assert t.seat_state(2)["declared"] == "heavenly_ready"
    t.discard(2, "2m")
    assert t.seat_state(2)["declared"] is None
    assert t.violations() == []


def test_d7_throwing_the_drawn_tile_keeps_it() -> None:
    t = Script(quiet({2: READY_W}, extra="2m"))
    t.button(2, "ready")
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2, "3p")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1, "9s")
    t.win(2)
    assert t.violations() == []
    assert "heavenly_ready" in items(t)


def test_d7_a_passed_win_drops_the_declaration_tai() -> None:
    """Seat 2 declared 天聽 and passed the dealer's 6s: its later win stands, without
    the declaration's 台."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.button(2, "ready")
    t.discard(0, "6s")
    t.button(2, "pass")
    t.cycle(1)
    t.cycle(2, "3p")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1, "9s")
    t.win(2)
    assert t.violations() == []
    assert t.hand().result == "win"
    assert "heavenly_ready" not in items(t)


# --- D8: flower wins -------------------------------------------------------------------

SEVEN = "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"


def test_d8_flower_win_declared_before_its_replacement() -> None:
    """胡 pressed before the replacement is drawn: invalid, not a 詐胡, play goes on; once
    the replacement is drawn the 胡 is a flower win."""
    t = Script(quiet({1: SEVEN}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.button(1, "win")
    assert t.hands() == []
    assert t.violations() == []
    t.replacement(1)
    t.button(1, "win")
    assert (t.hand().result, t.hand().kind) == ("flower_win", "eight_immortals")
    assert t.violations() == []


def test_d8_dealt_eight_flowers() -> None:
    """配牌花胡: the dealer is dealt all eight, replaces them and declares before its first
    discard: 八仙過海, all three pay."""
    dealer = "h1 h2 h3 h4 h5 h6 h7 h8 P P P P 5m 5m 5m 5m 2m"
    t = Script(quiet({0: dealer}))
    for k in range(1, 9):
        t.flower(0, f"h{k}")
    for _ in range(8):
        t.replacement(0)
    t.button(0, "win")
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("flower_win", "eight_immortals", 0)
    assert hand.net == [840, -280, -280, -280]
    assert t.violations() == []


def test_d8_dealt_seven_flowers_another_holds_the_eighth() -> None:
    """配牌花胡, seven-flower form: paid like 七搶一 (2) by the seat holding the eighth."""
    dealer = "h1 h2 h3 h4 h5 h6 h7 P P P P 5m 5m 5m 5m 2m 2m"
    t = Script(quiet({0: dealer, 2: QUIET[2].replace("9s 9s 9s 9s", "9s 9s 9s h8")}))
    for k in range(1, 8):
        t.flower(0, f"h{k}")
    for _ in range(7):
        t.replacement(0)
    t.flower(2, "h8")
    t.replacement(2)
    t.button(0, "win")
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("flower_win", "seven_rob_one", 0, 2)
    assert hand.net == [280, 0, -280, 0]
    assert hand.net == settled(hand)
    assert t.violations() == []


# --- D9: 相公 and 包賠 -------------------------------------------------------------------


def test_d9_dead_hand_still_draws_and_discards() -> None:
    """Seat 2 is 相公 (a wrong chow) and plays on: drawing and discarding are no breach."""
    t = Script(quiet({2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m"}))
    t.discard(0, "2m")
    t.chow(2, 0, "3m 4m")
    first = t.seq
    t.discard(2, "9s")
    for seat in (3, 0, 1, 2, 3):
        t.cycle(seat)
    assert t.violations() == [(first, 2, "chow_not_from_left")]
    assert t.seat_state(2)["dead_hand"]


def test_d9_dead_hand_win_is_a_false_win_on_its_face_value() -> None:
    """Seat 2 became 相公 by chowing the dealer's tile, then declares 胡 with a complete
    hand: dead_hand_claim, and the 詐胡 is paid on what the hand would score."""
    dead = "3m 4m 6m 7m 8m 2s 3s 4s W W W 7s 8s 6p 6p 3p"  # after 吃 2m, 3p out: 6s 9s
    t = Script(quiet({2: dead}, extra="2m"))
    t.discard(0, "2m")
    t.chow(2, 0, "3m 4m")
    chow_seq = t.seq
    t.discard(2, "3p")
    t.cycle(3)
    t.cycle(0, "6s")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(chow_seq, 2, "chow_not_from_left"), (seq, 2, "dead_hand_claim")]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 2, ["dead_hand_claim"])
    assert hand.tai > 0
    per = 100 + hand.tai * 20
    assert hand.net == [per + 20, per, -(3 * per + 20), per]
    assert hand.net == settled(hand)


def test_d9_false_win_without_a_hand_pays_face_value_zero() -> None:
    """包賠 with no valid hand: 牌面 0, each pays 底, the dealer's payment adds dealer 台."""
    t = Script(quiet({2: READY_W}, extra="2m"))
    t.discard(0, "2m")
    t.win(2)
    hand = t.hand()
    assert (hand.result, hand.tai) == ("false_win", 0)
    assert hand.net == [120, 100, -320, 100]
    assert hand.net == settled(hand)


# --- D10: no 加槓 after a 碰槓 replacement in the same turn ------------------------------

D10 = {1: "3m 3m 3m 7p 7p 7p E E E E S S S S 1p 9p"}


def test_d10_added_kong_after_exposed_kong_replacement() -> None:
    t = Script(quiet(D10, extra="3m"))
    t.discard(0, "3m")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1)
    t.kong(1, "3m", "added")
    assert t.violations() == [(t.seq, 1, "restriction_3")]


def test_d10_twin_added_kong_on_a_later_draw() -> None:
    t = Script(quiet(D10, extra="3m"))
    t.discard(0, "3m")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1)
    t.discard(1, "1p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1)
    t.kong(1, "3m", "added")
    t.replacement(1)
    assert t.violations() == []


# --- D11: the service keeps the streak --------------------------------------------------


def test_d11_streak_is_kept_across_hands() -> None:
    """A 荒局 keeps the dealer at 連1; its next win is scored with dealer 台 1 + 2·1."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    first = t.hand()
    assert first.next is not None and (first.next.dealer, first.next.streak) == (0, 1)
    assert t.mirror.snapshot()["streak"] == 1
    t.new_hand(quiet({1: READY_E}, extra="9p"))
    t.discard(0, "9p")
    t.win(1)
    second = t.hands()[-1]
    assert (second.dealer, second.streak, second.dealer_tai) == (0, 1, 3)
    assert second.next is not None and (second.next.dealer, second.next.streak) == (1, 0)
    assert second.net == settled(second)


# --- D12: 禁制 7 counts at the discard ---------------------------------------------------


def test_d12_counted_when_the_discard_is_made() -> None:
    """The discard is made with 4 drawable; seat 1 then draws out of turn (3 left) and seat
    2 pongs: the count at the discard rules, so no 禁制 7 (only the out-of-turn draw)."""
    t = Script(quiet(PAIR_3M))
    t.discard(0, "2m")
    t.burn(5)
    assert t.next_seat == 3
    t.cycle(3, "3m")
    assert t.drawable == 4
    draw_seq = t.seq + 1
    t.draw(1)
    assert t.drawable == 3
    t.pong(2, 3)
    assert t.violations() == [(draw_seq, 1, "out_of_turn")]


def test_d12_three_left_at_the_discard() -> None:
    t = Script(quiet(PAIR_3M))
    t.discard(0, "2m")
    t.burn(4)
    t.cycle(0, "3m")
    assert t.drawable == 3
    t.pong(2, 0)
    assert t.violations() == [(t.seq, 2, "restriction_7")]


# --- §7 special_wins_need_declaration: the same stream under both values --------------

NO_DECLARATION = {"rules": {"special_wins_need_declaration": False}}


def human_win_undeclared(profile: str | dict[str, object]) -> Script:
    """Seat 1 discards once, declares nothing, and wins on seat 2's first discard."""
    t = Script(quiet({1: READY_E}, extra="2m"), profile=profile)
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.discard(1, "3p")
    t.cycle(2, "9p")
    t.win(1)
    return t


def test_human_win_needs_its_declaration_by_default() -> None:
    t = human_win_undeclared("mjonline")
    assert t.violations() == []
    assert "human_win" not in items(t) and "concealed" in items(t)


def test_human_win_without_a_declaration_when_the_profile_says_so() -> None:
    t = human_win_undeclared(NO_DECLARATION)
    assert t.violations() == []
    assert "human_win" in items(t)
    assert not {"earthly_win", "earthly_ready", "concealed"} & items(t)  # its exclusions stay


def earthly_self_draw_undeclared(profile: str | dict[str, object]) -> Script:
    """Seat 1 self-draws its winning tile on its first draw without 天聽."""
    t = Script(quiet({1: READY_E}, extra="2m"), profile=profile)
    t.discard(0, "2m")
    t.draw(1, "9p")
    t.win(1)
    return t


def test_a_self_drawn_earthly_win_needs_heavenly_ready_by_default() -> None:
    t = earthly_self_draw_undeclared("mjonline")
    assert t.violations() == []
    assert "earthly_win" not in items(t) and "concealed_self_draw" in items(t)


def test_a_self_drawn_earthly_win_without_heavenly_ready_when_the_profile_says_so() -> None:
    t = earthly_self_draw_undeclared(NO_DECLARATION)
    assert t.violations() == []
    assert {"earthly_win", "concealed_self_draw"} <= items(t)
    assert not {"heavenly_ready", "concealed"} & items(t)


def test_d1_a_win_let_go_before_an_added_kong_is_still_passed() -> None:
    """Seat 2 lets seat 0's 6s go; seat 1 draws and makes a 加槓 before discarding: the
    discard's window closes with seat 2's 過水 set, so its later self-draw is a 詐胡."""
    adder = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"
    t = Script(quiet({1: adder, 2: READY_W}, extra="7p"))
    t.discard(0, "7p")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "6s")
    t.discard(0, "6s")  # seat 2 could win on it and lets it go
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    t.replacement(1)
    t.discard(1, "9p")
    t.draw(2, "9s")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "passed_win")]
    assert t.hand().result == "false_win"


HEAVENLY_ON_A_FLOWER = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 7p 8p 2p 2p 2p 7s h1"  # 7s: the pair


@pytest.mark.parametrize("switch", [False, True])
def test_a_heavenly_win_on_a_flower_replacement_and_the_kong_bloom_switch(switch: bool) -> None:
    """§7 `kong_bloom_with_heavenly_win`: a dealer's 天胡 completed by its 補花 replacement
    adds 槓上開花 only when the switch is true (by default 天胡 excludes it)."""
    profile = {"rules": {"kong_bloom_with_heavenly_win": switch}}
    t = Script(quiet({0: HEAVENLY_ON_A_FLOWER}), profile=profile)
    t.flower(0, "h1")
    t.replacement(0, "7s")
    t.win(0)
    assert t.violations() == []
    hand = t.hand()
    ids = {item.id for item in hand.items}
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 0)
    assert "heavenly_win" in ids
    assert ("kong_bloom" in ids) is switch


def test_a_ready_pressed_again_is_the_same_declaration() -> None:
    """D7 voids a declaration on a hand that is not ready, not a button pressed twice: seat
    1's 天聽 on a ready hand stands, and its win on the 6p scores it."""
    t = Script(quiet({1: READY_E}, extra="2m"))
    t.button(1, "ready")
    t.button(1, "ready")
    assert t.violations() == []
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3, "6p")
    t.win(1)
    assert t.violations() == []
    assert "heavenly_ready" in {i.id for i in t.hand().items}
