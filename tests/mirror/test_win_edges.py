"""Worked cases for wins.py's survivors of bench/mutation.py (taiwan16.md §3, D1, D6–D8;
replay-format.md). Every expected value comes from the rules text."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import HandRecord, Violation
from table_service.mirror.rulings import in_force, parse_ruling
from tests.mirror.kit_script import QUIET, Script, add_the_fourth_7p, quiet, refold

READY_E = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p
READY_W = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
ALSO_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 5s 7s C C"  # seat 3: waits 6s alone
PONG_6P = "6p 6p 6p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 4p E E"  # seat 1: three 6p
READY_C = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p C C"  # seat 3: waits 6p 9p
DEALER_5S = QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p")  # a 5s left for ALSO_6S


def items(t: Script) -> set[str]:
    return {i.id for i in t.hand().items}


# --- the 胡 button out of play ----------------------------------------------------------


def test_win_pressed_during_the_deal_is_impossible() -> None:
    """replay-format.md: an event that cannot happen in this phase is an `impossible`
    fault; nobody is blamed."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    t.draw(0, "2m")
    seq = t.seq + 1
    t.button(1, "win")
    assert t.faults() == [(seq, "impossible")]
    assert t.records[-1].detail == "seat 1 pressed 胡 with no hand in play"  # type: ignore[union-attr]
    assert t.violations() == []
    assert t.hands() == []


def test_a_second_false_win_after_the_first_ended_the_hand_is_nobodys_violation() -> None:
    """Seat 1 presses 胡 on nothing (詐胡, §3): one hand, one result, so the 詐胡 ends the
    hand there. Seat 2's 胡 pressed after it is a press with no hand in play, a fault
    that blames nobody (replay-format.md), not a second 詐胡 (two false presses on no
    tile are not rival claims on one discard, 攔胡)."""
    t = Script(quiet())
    t.button(1, "win")
    seq = t.seq + 1
    t.button(2, "win")
    t.finish()
    (hand,) = t.hands()
    assert (hand.result, hand.seat) == ("false_win", 1)
    assert [(seat, code) for _, seat, code in t.violations()] == [(1, "false_win")]
    assert t.faults() == [(seq, "impossible")]


def test_pass_pressed_with_no_hand_blames_nobody() -> None:
    t = Script()
    t.button(1, "pass")
    assert t.violations() == []
    assert t.hands() == []


# --- 過 ---------------------------------------------------------------------------------


def test_pass_by_a_seat_that_cannot_win_on_the_tile_is_no_pass_water() -> None:
    """Seat 2 presses 過 on the dealer's discard (it had nothing to win on it): no 過水
    (D1 needs a win it could have made), so its self-draw in the same go-round stands."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.button(2, "pass")
    assert not t.seat_state(2)["passed_win"]
    t.cycle(1)
    t.draw(2, "9s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat) == ("win", 2)


# --- 地聽 (D7, §4) ---------------------------------------------------------------------


def test_earthly_ready_right_after_the_first_discard_then_human_win_self_drawn() -> None:
    """Seat 1 presses ready right after its first discard (地聽) and self-draws on its next
    own draw: 人胡 (D6), which excludes 地聽 and 門清; the self-draw adds 不求 (§4)."""
    t = Script(quiet({1: READY_E}))
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.discard(1, "3p")
    t.button(1, "ready")
    assert t.violations() == []
    assert t.seat_state(1)["declared"] == "earthly_ready"
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert t.hand().result == "win"
    assert {"human_win", "concealed_self_draw"} <= items(t)
    assert not {"earthly_ready", "concealed", "earthly_win"} & items(t)


def test_ready_after_the_second_discard_is_void() -> None:
    """地聽 is declared with the first discard; after the second it is neither 天聽 nor
    地聽: void (D7), flagged at the button."""
    t = Script(quiet({1: READY_E}))
    t.discard(0, "2m")
    t.cycle(1, "3p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.cycle(1, "4p")
    seq = t.seq + 1
    t.button(1, "ready")
    assert t.violations() == [(seq, 1, "void_declaration")]
    assert t.seat_state(1)["declared"] is None


def test_ready_in_another_seats_turn_before_the_first_discard_is_void() -> None:
    """Seat 2 (ready, not yet discarded) presses ready in seat 1's turn after the dealer
    discarded: not right after the deal (天聽), not with its own first discard (地聽)."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.draw(1, "3p")
    seq = t.seq + 1
    t.button(2, "ready")
    t.discard(1, "3p")
    t.cycle(2, "4p")
    assert t.violations() == [(seq, 2, "void_declaration")]
    (void,) = [r for r in t.records if isinstance(r, Violation)]
    assert void.detail == (
        "seat 2 declared ready when no declaration is open "
        "(天聽 before any discard, 地聽 with one's first)"
    )


def test_ready_on_a_dead_hand_is_void_and_says_why() -> None:
    """Seat 2 drew out of turn (相公): a dead hand cannot win, so its 地聽 pressed with its
    first discard is void (D7), and the referee reads why: not that the tiles are not
    ready (they are: 6s 9s), but that the hand is dead."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.draw(2, "7p")
    assert [code for _, _, code in t.violations()] == ["out_of_turn"]
    t.discard(2, "7p")
    seq = t.seq + 1
    t.button(2, "ready")
    void = [r for r in t.records if isinstance(r, Violation) and r.code == "void_declaration"]
    assert [(v.seq, v.detail) for v in void] == [
        (seq, "seat 2 declared ready on a dead hand (相公), which cannot win")
    ]


def test_ready_right_before_the_first_discard_on_a_hand_not_ready_is_void_at_its_button() -> None:
    """Pressed right before the discard, the declaration is judged by the hand left after
    it; not ready: void (D7), flagged at the button pressed."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "3p")
    seq = t.seq + 1
    t.button(1, "ready")
    t.discard(1, "3p")
    assert t.violations() == [(seq, 1, "void_declaration")]


def test_ready_right_after_a_first_discard_not_ready_is_void() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.cycle(1, "3p")
    seq = t.seq + 1
    t.button(1, "ready")
    assert t.violations() == [(seq, 1, "void_declaration")]


# --- 花胡 declared before its replacement (D8) -------------------------------------------

SIX = "E E E E S S S S 1p 1p h1 h2 h3 h4 h5 h6"  # seat 1: six dealt flowers
ONE = "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s h7"  # seat 2: the seventh


def six_and_one() -> Script:
    """補花: seat 1 replaces six flowers, seat 2 its one; the dealer discards."""
    t = Script(quiet({1: SIX, 2: ONE}))
    for k in range(1, 7):
        t.flower(1, f"h{k}")
    for _ in range(6):
        t.replacement(1)
    t.flower(2, "h7")
    t.replacement(2)
    t.discard(0, "2m")
    assert t.violations() == []
    return t


def test_seven_rob_one_case_2_declared_before_the_replacement() -> None:
    """七搶一 (2): seat 1 (six) draws the eighth while seat 2 holds one. 胡 pressed before
    the replacement is invalid, not a 詐胡, and play goes on (D8); pressed after it, the
    flower win stands and the robbed seat 2 pays."""
    t = six_and_one()
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.button(1, "win")
    t.replacement(1)
    assert t.hands() == []
    assert t.violations() == []
    t.button(1, "win")
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("flower_win", "seven_rob_one", 1, 2)
    assert t.violations() == []


def test_seven_flowers_with_the_eighth_in_the_wall_is_no_flower_win() -> None:
    """Seat 1 reveals its seventh flower (the eighth is still in the wall, nobody holds one
    alone) and presses 胡: no flower win exists, so it is a 詐胡 on a hand that does not win."""
    t = Script(quiet({1: SIX}))
    for k in range(1, 7):
        t.flower(1, f"h{k}")
    for _ in range(6):
        t.replacement(1)
    t.discard(0, "2m")
    t.draw(1, "h7")
    t.flower(1, "h7")
    t.button(1, "win")
    t.replacement(1)
    assert (t.hand().result, t.hand().seat, t.hand().codes) == ("false_win", 1, ["false_win"])


def test_one_flower_and_a_win_pressed_before_its_replacement_is_a_false_win() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    t.flower(1, "h1")
    t.button(1, "win")
    t.replacement(1)
    assert (t.hand().result, t.hand().seat, t.hand().codes) == ("false_win", 1, ["false_win"])


# --- 攔胡 and presses after the win was decided ---------------------------------------


def test_intercepted_win_a_nearer_press_on_a_hand_that_does_not_win_does_not_hold_it() -> None:
    """Seat 2 (nearer after the discarder) presses 胡 on a 6s its hand cannot take; seat 3
    may win on it: only one winner, and it is seat 3's valid win (§3 攔胡)."""
    t = Script(quiet({0: DEALER_5S + " 6s", 3: ALSO_6S}))
    t.discard(0, "6s")
    t.button(2, "win")
    t.win(3)
    t.button(1, "pass")
    wins = [h for h in t.hands() if h.result == "win"]
    assert [(h.seat, h.payer, h.kind) for h in wins] == [(3, 0, "discard")]


def test_a_dead_seat_pressing_after_the_win_is_a_dead_hand_claim() -> None:
    """Seat 1 is 相公 (it discarded a flower); after seat 3 won the dealer's 6s, seat 1
    presses 胡 on it: a win claimed by a 相公 seat (dead_hand_claim), settling nothing."""
    t = Script(quiet({0: DEALER_5S + " 2m", 3: ALSO_6S}))
    t.discard(0, "2m")
    t.draw(1, "h1")
    discarded = t.seq + 1
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": t.ids(1, "h1")[0]})
    t.concealed[1].remove(t.ids(1, "h1")[0])
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "6s")
    t.win(3)
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 3, 0)
    press = t.seq + 1
    t.button(1, "win")
    assert t.violations() == [
        (discarded, 1, "flower_discarded"),
        (press, 1, "dead_hand_claim"),
        (press, 1, "false_win"),  # its hand does not take the 6s either
    ]
    assert [r.detail for r in t.records if isinstance(r, Violation) and r.seq == press] == [
        "seat 1 is 相公 and declared 胡",
        "seat 1 declared 胡 on a hand that does not win",
    ]
    assert t.hand().net[1] == 0


def test_a_seat_under_pass_water_pressing_after_the_win_is_a_passed_win() -> None:
    """Seat 2 drew its winning 9s and threw it (過水, not cleared: a winning tile); seat 3
    wins the dealer's 6s and seat 2 presses 胡 on it after: a win declared under 過水."""
    t = Script(quiet({0: DEALER_5S + " 2m", 2: READY_W, 3: ALSO_6S}))
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2, "9s")
    assert t.seat_state(2)["passed_win"]
    t.cycle(3)
    t.cycle(0, "6s")
    t.win(3)
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 3, 0)
    press = t.seq + 1
    out = t.button(2, "win")
    assert t.violations() == [(press, 2, "passed_win")]
    assert out[0].detail == "seat 2 declared 胡 while 過水 (D1)"  # type: ignore[union-attr]
    assert t.hand().net[2] == 0


def rival_winners() -> Script:
    """The dealer's 6s: seat 2 (nearer) and seat 3 may both win on it."""
    t = Script(quiet({0: DEALER_5S + " 6s", 2: READY_W, 3: ALSO_6S}))
    t.discard(0, "6s")
    return t


def test_intercepted_win_the_nearest_legal_claim_is_decided_at_its_reveal() -> None:
    """Seat 2 is the nearest seat that may win: its revealed 胡 is decided at once (no
    nearer claim can come); seat 3's press after it lost on priority, the button alone."""
    t = rival_winners()
    t.win(2)
    assert [(h.result, h.seat, h.payer) for h in t.hands()] == [("win", 2, 0)]
    t.button(3, "win")
    t.reveal(3)
    assert t.violations() == []
    assert t.faults() == []
    assert len(t.hands()) == 1


def test_a_press_after_a_late_win_was_decided_lost_to_it() -> None:
    """Seat 2 presses 胡 after seat 1 discarded and reveals it with the dealer's 6s: late
    (D3), a 詐胡 on that 6s, judged. Seat 3 presses 胡 after that decision: a press on the
    tile just decided, the button alone (replay-format.md), no fault; its hand cannot take
    the 6s, so it still declared a false win."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    six = t.offered
    t.cycle(1, "4m")
    t.button(2, "win")
    t.reveal(2, [*t.concealed[2], six])  # type: ignore[list-item]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.winning_tile) == ("false_win", 2, "6s")
    press = t.seq + 1
    out = t.button(3, "win")
    assert t.faults() == []
    assert t.violations(out) == [(press, 3, "false_win")]
    assert len(t.hands()) == 1
    late = [r for r in t.records if isinstance(r, Violation) and r.code == "late_claim"]
    assert [v.detail for v in late] == ["seat 2 declared 胡 on a discard after its window closed"]


def test_a_late_win_on_another_tile_is_judged_at_its_reveal_while_a_kong_may_be_robbed() -> None:
    """Seat 1 pongs the dealer's 6p (seat 3 lets it go: 過水, cleared by its next discard)
    and later adds its fourth 6p out of turn (out_of_turn, 相公): seat 3 (waits 6p 9p) could
    rob that 6p (搶槓). Seat 1 then presses 胡 and reveals its hand with the dealer's earlier
    discard: a claim on another tile, which no 胡 on the 6p outranks (攔胡 orders the claims
    on one tile), so it is decided at its reveal, the hand record carrying that event's seq
    (replay-format.md): a 詐胡, 相公 and late, on a hand that does not win."""
    t = Script(quiet({1: PONG_6P, 3: READY_C}, extra="6p"))
    t.discard(0, "6p")
    t.pong(1, 0)
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    assert not t.seat_state(3)["passed_win"]
    earlier = t.offered
    t.kong(1, "6p", "added", press=False)
    t.button(1, "win")
    t.reveal(1, [*t.concealed[1], earlier])
    hand = t.hand()
    assert (hand.seq, hand.result, hand.seat) == (t.seq, "false_win", 1)
    assert hand.codes == ["dead_hand_claim", "late_claim", "false_win"]
    assert [code for _, _, code in t.violations()] == [
        "out_of_turn",
        "dead_hand_claim",
        "late_claim",
        "false_win",
    ]


def test_a_late_win_revealed_with_a_yet_earlier_discard_is_flagged_late_once() -> None:
    """As above, but seat 1's 胡 (pressed on the dealer's discard, already late: the 加槓
    closed its window) is revealed with seat 3's discard before it: judged on that tile,
    paid by nobody (a 詐胡), and late once: one late_claim for one press."""
    t = Script(quiet({1: PONG_6P, 3: READY_C}, extra="6p"))
    t.discard(0, "6p")
    t.pong(1, 0)
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3)
    older = t.offered
    t.cycle(0)
    t.kong(1, "6p", "added", press=False)
    press = t.seq + 1
    out = t.button(1, "win")
    assert [r.detail for r in out if isinstance(r, Violation)] == [
        "seat 1 is 相公 and declared 胡",
        "seat 1 declared 胡 on a discard after its window closed",
    ]
    t.reveal(1, [*t.concealed[1], older])
    hand = t.hand()
    assert (hand.result, hand.seat) == ("false_win", 1)
    assert hand.codes == ["dead_hand_claim", "late_claim", "false_win"]
    assert [v for v in t.violations() if v[0] == press] == [
        (press, 1, "dead_hand_claim"),
        (press, 1, "late_claim"),
        (press, 1, "false_win"),
    ]


def test_an_overturned_late_claim_and_pass_leave_the_win_on_the_earlier_discard() -> None:
    """Seat 2's 胡 revealed with the dealer's 6s after seat 1 discarded: late (D3) and under
    過水 (D1). The referee overturns both (the press was in time, the sensor slow): the
    claim is the win it was, on the 6s, paid by the dealer."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    six = t.offered
    t.cycle(1, "4m")
    t.button(2, "win")
    press = t.events[-1]
    t.reveal(2, [*t.concealed[2], six])  # type: ignore[list-item]
    assert t.hand().result == "false_win"
    verdicts = [
        {"kind": "verdict", "boot_id": 1, "seq": press.seq, "seat": 2, "code": code,
         "decision": "overturn", "reason": "the sensor was slow"}
        for code in ("passed_win", "late_claim")
    ]  # fmt: skip
    (hand,) = [r for r in refold(t, *verdicts) if isinstance(r, HandRecord)]
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)
    assert (hand.winning_tile, hand.codes) == ("6s", [])


def test_a_late_win_leaves_a_pong_of_the_later_discard_standing() -> None:
    """Seat 3 pongs seat 1's 4m; seat 2 then presses 胡 and reveals with the dealer's 6s
    before it: a late claim (D3) on the 6s, not a 胡 on the 4m, so it takes nothing from
    seat 3's pong, which stands."""
    t = Script(quiet({2: READY_W, 3: QUIET[3].replace("9m 9m", "4m 4m", 1)}, extra="6s"))
    t.discard(0, "6s")
    six = t.offered
    t.cycle(1, "4m")
    t.pong(3, 1)
    t.button(2, "win")
    t.reveal(2, [*t.concealed[2], six])  # type: ignore[list-item]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.winning_tile) == ("false_win", 2, "6s")
    melds = t.mirror.snapshot()["hand"]["seats"][3]["melds"]
    assert [(m["kind"], m["tiles"], m["from_seat"]) for m in melds] == [
        ("pong", ["4m", "4m", "4m"], 1)
    ]


TWO_PONGS = "7s 7s 4s 4s E E E S S S 1p 1p 1p 9p 9p 9p"  # seat 1: pongs 7s and 4s
READY_14S = "2m 3m 4m 6m 7m 8m 2p 3p 4p 6p 7p 8p 2s 3s C C"  # seat 3: waits 1s 4s


def test_robbing_the_second_of_two_added_kongs_leaves_the_first() -> None:
    """Seat 1 pongs a 7s and a 4s, adds the fourth 7s (加槓), then the fourth 4s, which seat
    3 robs (搶槓, §3: the adder pays as a discarder). Only the robbed kong falls back to its
    pong; the 7s kong stays a kong."""
    t = Script(quiet({1: TWO_PONGS, 3: READY_14S}, extra="7s"))
    t.discard(0, "7s")
    t.pong(1, 0)
    t.discard(1, "E")
    t.cycle(2, "4s")
    t.pong(1, 2)
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3)  # its discard clears the 過水 of the 4s it let go (D1)
    t.cycle(0)
    t.draw(1, "7s")
    t.kong(1, "7s", "added")
    t.replacement(1)
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "4s")
    t.kong(1, "4s", "added")
    t.win(3)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "robbing_kong", 3, 1)
    melds = t.mirror.snapshot()["hand"]["seats"][1]["melds"]
    assert [(m["kind"], m["tiles"]) for m in melds] == [
        ("kong_added", ["7s", "7s", "7s", "7s"]),
        ("pong", ["4s", "4s", "4s"]),
    ]


# --- 禁制 4: the 牌面 of the barred self-draw (§3 詐胡) ------------------------------------

READY_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s"  # waits 8s alone


def test_restriction_4_false_win_pays_the_face_value_of_the_self_draw() -> None:
    """Seat 2 takes its winning 8s in seat 1's turn and declares: 詐胡 on the 牌面 of the
    complete hand as a self-draw: 門清 1 + 不求 2 + 獨聽 1 = 4 (§4)."""
    t = Script(quiet({2: READY_8S}))
    t.discard(0, "2m")
    t.draw(2, "8s")
    t.win(2)
    hand = t.hand()
    assert (hand.result, hand.seat) == ("false_win", 2)
    assert "restriction_4" in hand.codes  # taking the tile out of turn may add 相公's code
    assert hand.tai == 4
    assert items(t) == {"concealed", "concealed_self_draw", "single_wait"}


def test_a_self_draw_in_turn_from_the_front_has_no_kong_bloom() -> None:
    """The twin of the above, drawn in turn: a win (門清 1 + 不求 2 + 獨聽 1); no 槓上開花,
    the tile came from the front."""
    t = Script(quiet({2: READY_8S}))
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "8s")
    t.win(2)
    assert (t.hand().result, t.hand().kind, t.hand().tai) == ("win", "self_draw", 4)
    assert items(t) == {"concealed", "concealed_self_draw", "single_wait"}


def test_house_rule_a_flower_replacement_self_draw_under_pass_water_stands() -> None:
    """§7 pass_water_self_draw = true: seat 1 reaches to draw past the dealer's 6p (過水),
    draws a flower and wins on its replacement: a self-draw, which the house rule lets
    stand (only a win on a discard or an 暗槓's replacement stays barred); 槓上開花 (I4)."""
    t = Script(quiet({1: READY_E}, extra="6p"), profile={"rules": {"pass_water_self_draw": True}})
    t.discard(0, "6p")
    t.draw(1, "h1")
    assert t.seat_state(1)["passed_win"]
    t.flower(1, "h1")
    t.replacement(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 1)
    assert items(t) == {"concealed", "concealed_self_draw", "kong_bloom"}


def test_win_pressed_with_no_tile_to_win_on_names_no_winning_tile() -> None:
    """Before the dealer's first discard, seat 2 (nothing drawn in play, nothing on offer)
    presses 胡: a 詐胡 on a hand that does not win, and no tile completed a hand."""
    t = Script(quiet())
    t.button(2, "win")
    t.reveal(2)
    t.finish()
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes, hand.tai) == ("false_win", 2, ["false_win"], 0)
    assert hand.winning_tile is None
    assert t.faults() == []
    flagged = [r for r in t.records if isinstance(r, Violation)]
    assert [(v.seat, v.code, v.detail) for v in flagged] == [
        (2, "false_win", "seat 2 declared 胡 on a hand that does not win")
    ]


# --- 天胡, 天聽 and 八仙過海 timings (§4, §5) --------------------------------------------


def test_heavenly_ready_on_a_hand_not_ready_is_void_and_the_public_sees_the_button() -> None:
    """D7: seat 1 presses 天聽 on a hand that is not ready: void, flagged for the referee in
    words. The public still sees the button pressed while the hand is played (learning
    that it is void would tell that the hand is not ready); at the hand's end it sees no
    declaration."""
    t = Script(quiet())
    seq = t.seq + 1
    out = t.button(1, "ready")
    assert t.violations() == [(seq, 1, "void_declaration")]
    assert out[0].detail == "seat 1 declared ready on a hand that is not ready"  # type: ignore[union-attr]
    public = t.mirror.snapshot()["hand"]["seats"][1]
    assert public["declared"] == "heavenly_ready"
    t.discard(0, "2m")
    t.burn(0)
    assert t.hand().result == "drawn"
    assert t.mirror.snapshot()["hand"]["seats"][1]["declared"] is None


def test_heavenly_win_on_the_dealt_hand() -> None:
    """The dealer's dealt 17 tiles win: 天胡 16, which excludes 門清 and 不求 (and has no
    獨聽: a dealt hand has no wait)."""
    t = Script(quiet({0: READY_8S + " 8s"}))
    t.win(0)
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.tai) == ("win", "self_draw", 0, 16)
    assert items(t) == {"heavenly_win"}


def test_heavenly_ready_then_a_later_self_draw_keeps_its_tai() -> None:
    """Seat 2 declares 天聽, throws its drawn tiles for two go-rounds and self-draws its
    9s: 天聽 8 (excludes 門清) + 不求 2 (§4)."""
    t = Script(quiet({2: READY_W}))
    t.button(2, "ready")
    t.discard(0, "2m")
    for _ in range(2):
        t.cycle(1)
        t.cycle(2, "3p" if _ == 0 else "4p")
        t.cycle(3)
        t.cycle(0)
    t.cycle(1)
    t.draw(2, "9s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind) == ("win", "self_draw")
    assert {"heavenly_ready", "concealed_self_draw"} <= items(t)
    assert "concealed" not in items(t)


SEVEN = "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"  # seat 1: seven dealt flowers


def test_eight_flowers_declared_later_out_of_turn_is_no_flower_win() -> None:
    """§5: 八仙過海 is declared at once, on the eighth flower's replacement. Seat 1 lets it
    go (discards), then presses 胡 in seat 2's turn: no flower win, a 詐胡."""
    t = Script(quiet({1: SEVEN}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.replacement(1, "3m")
    t.discard(1, "3m")
    t.draw(2)
    t.button(1, "win")
    t.discard(2, t.hand_codes(2).split()[-1])
    hand = t.hand()
    assert (hand.result, hand.seat) == ("false_win", 1)


def test_earthly_win_a_heavenly_ready_seat_self_draws_on_its_first_draw() -> None:
    """§4 地胡: a 天聽 non-dealer self-draws on its first draw: 16, excluding 天聽 and 門清;
    the self-draw adds 不求 2."""
    t = Script(quiet({2: READY_W}))
    t.button(2, "ready")
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "9s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 2)
    assert {"earthly_win", "concealed_self_draw"} <= items(t)
    assert not {"heavenly_ready", "concealed", "human_win"} & items(t)


def test_a_dealer_self_draw_after_the_first_go_round_is_no_heavenly_win() -> None:
    """天胡 is the dealer's win right after the deal; a later self-draw scores as drawn:
    門清 1 + 不求 2 + 獨聽 1."""
    t = Script(quiet({0: READY_8S + " 2m"}))
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "8s")
    t.win(0)
    assert (t.hand().result, t.hand().kind, t.hand().seat, t.hand().tai) == (
        "win",
        "self_draw",
        0,
        4,
    )
    assert items(t) == {"concealed", "concealed_self_draw", "single_wait"}


def test_a_dealer_win_on_its_first_turn_concealed_kong_replacement_is_no_heavenly_win() -> None:
    """天胡 is the dealer's win right after the deal and 補花 (§4); an 暗槓 is neither. The
    dealer makes an 暗槓 of its dealt 3p in its first turn and wins on the replacement: a
    self-draw, 門清 1 + 不求 2 + 獨聽 1 + 槓上開花 1 = 5, no 天胡."""
    t = Script(quiet({0: "3p " + READY_8S}))
    t.kong(0, "3p", "concealed")
    t.replacement(0, "8s")
    t.win(0)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.tai) == ("win", "self_draw", 0, 5)
    assert items(t) == {"concealed", "concealed_self_draw", "single_wait", "kong_bloom"}


def test_earthly_ready_and_a_self_draw_past_its_window_is_no_human_win() -> None:
    """Seat 1 declared 地聽 with its first discard, discarded again, then self-draws: past
    人胡's window (D6), the win keeps 地聽 4 (which excludes 門清) and 不求 2."""
    t = Script(quiet({1: READY_E}))
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.button(1, "ready")
    t.discard(1, "3p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.cycle(1, "4p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind) == ("win", "self_draw")
    assert {"earthly_ready", "concealed_self_draw"} <= items(t)
    assert not {"human_win", "concealed"} & items(t)


NO_DECLARATION = {"rules": {"special_wins_need_declaration": False}}


def test_heavenly_ready_win_on_a_first_discard_after_its_own_keeps_heavenly_ready() -> None:
    """Seat 2 declared 天聽, threw its first drawn tile, and wins on seat 3's first discard:
    天聽 8 stands (門清 excluded); 人胡 needs 地聽 (D6)."""
    t = Script(quiet({2: READY_W}))
    t.button(2, "ready")
    t.discard(0, "2m")
    t.cycle(1)
    t.cycle(2, "3p")
    t.cycle(3, "9s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().payer) == ("win", "discard", 3)
    assert "heavenly_ready" in items(t)
    assert not {"human_win", "concealed"} & items(t)


def test_no_declaration_profile_a_second_discard_gives_no_human_win() -> None:
    """§7 special_wins_need_declaration = false: 人胡 without 地聽 is a win on a player's
    first discard (D6); the dealer's second discard is not one: 門清 alone."""
    t = Script(quiet({1: READY_E}), profile=NO_DECLARATION)
    t.discard(0, "2m")
    t.cycle(1, "3p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "9p")
    t.win(1)
    assert (t.hand().result, t.hand().payer) == ("win", 0)
    assert items(t) == {"concealed"}


def test_no_declaration_profile_the_dealer_has_no_human_win() -> None:
    """§7: the profile's 人胡 without 地聽 is a non-dealer's; the dealer winning on seat 1's
    first discard has 門清 1 + 獨聽 1."""
    t = Script(quiet({0: READY_8S + " 2m"}), profile=NO_DECLARATION)
    t.discard(0, "2m")
    t.cycle(1, "8s")
    t.win(0)
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 0, 1)
    assert items(t) == {"concealed", "single_wait"}


def test_no_declaration_profile_a_self_draw_after_a_discard_is_no_earthly_win() -> None:
    """§7 special_wins_need_declaration = false accepts a self-drawn 地胡 without 天聽: a
    non-dealer's self-draw before its first discard. Seat 1 self-draws its 9p after a
    discard of its own: 門清 1 + 不求 2, no 地胡."""
    t = Script(quiet({1: READY_E}), profile=NO_DECLARATION)
    t.discard(0, "2m")
    t.cycle(1, "3p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1, "9p")
    t.win(1)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 1)
    assert items(t) == {"concealed", "concealed_self_draw"}


def test_no_declaration_profile_a_win_on_an_own_kongs_replacement_has_no_earthly_win() -> None:
    """§7's self-drawn 地胡 without 天聽 is a self-draw on the first draw (seed 002: 摸第1張牌
    自摸). Seat 1's first move is a 碰槓 of the dealer's first discard, and it wins on the
    replacement: 禁制 2 makes that a 詐胡, and its 牌面 (what the offender pays on) has no
    地胡: the replacement is no first draw, and the meld is the seat's own claim (D6's
    "不論他人吃碰" spares the others' claims only)."""
    seat1 = "2s 2s 2s 2m 3m 4m 6m 7m 8m 2p 3p 4p 7p 8p E E"  # after the kong: waits 6p 9p
    t = Script(quiet({1: seat1}, extra="2s"), profile=NO_DECLARATION)
    t.discard(0, "2s")
    t.kong(1, "2s", "exposed", from_seat=0)
    t.replacement(1, "9p")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_2")]
    assert (t.hand().result, t.hand().seat) == ("false_win", 1)
    assert "earthly_win" not in items(t)
    assert "kong_bloom" in items(t)


# --- hand_revealed that the stream cannot explain (replay-format.md faults) -------------


def test_a_hand_revealed_with_no_win_declared_is_impossible() -> None:
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    seq = t.seq + 1
    out = t.reveal(2)
    assert t.faults() == [(seq, "impossible")]
    assert out[0].detail == "seat 2 revealed a hand with no 胡 declared"  # type: ignore[union-attr]
    assert t.violations() == []
    assert t.hands() == []


def test_a_reveal_unlike_the_hand_seen_names_both() -> None:
    """Seat 2 self-draws its 9s and presses 胡; its reveal reads a 3m where the mirror saw
    its 2m: a misread (impossible, replay-format.md), the detail naming the tiles read and
    the tiles seen in tile order, so a referee can tell the sensor's error at a glance."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "9s")
    t.button(2, "win")
    tiles = list(t.concealed[2])
    tiles[tiles.index(t.ids(2, "2m")[0])] = t.alloc("3m")
    seq = t.seq + 1
    out = t.emit({"kind": "hand_revealed", "seat": 2, "tiles": tiles})
    assert t.faults(out) == [(seq, "impossible")]
    assert out[0].detail == (  # type: ignore[union-attr]
        "seat 2 revealed 3m 3m 4m 6m 7m 8m 6p 6p 6p 2s 3s 4s 7s 8s 9s W W; "
        "the mirror saw 2m 3m 4m 6m 7m 8m 6p 6p 6p 2s 3s 4s 7s 8s 9s W W"
    )


# --- the tiles after a win ---------------------------------------------------------------


def test_after_a_win_on_a_discard_the_tile_is_in_the_winners_hand() -> None:
    t = rival_winners()
    t.win(2)
    assert t.hand().result == "win"
    assert t.seat_state(0)["discards"] == []
    assert t.seat_state(2)["concealed_count"] == 17
    assert "6s" in t.seat_state(2)["concealed"]


def test_after_a_self_draw_the_hand_holds_its_17_tiles() -> None:
    t = Script(quiet({2: READY_8S}))
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "8s")
    t.win(2)
    assert t.hand().result == "win"
    assert t.seat_state(2)["concealed_count"] == 17
    assert t.seat_state(1)["discards"] != []


ROBBER = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 8p 9p C C"  # seat 3: waits 7p alone
ADDER = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"  # seat 1: a pair of 7p


def test_robbing_the_kong_leaves_the_adder_its_pong() -> None:
    """搶槓 (§3): seat 3 wins on the tile seat 1 added to its pong; the kong is not made,
    seat 1 keeps its pong and the tile is in the winner's hand."""
    t = Script(quiet({1: ADDER, 3: ROBBER}, extra="7p"))
    t.discard(0, "7p")
    add_the_fourth_7p(t)
    t.win(3)
    assert (t.hand().result, t.hand().kind, t.hand().payer) == ("win", "robbing_kong", 1)
    melds = t.seat_state(1)["melds"]
    assert [(m["kind"], len(m["tiles"])) for m in melds] == [("pong", 3)]
    assert t.seat_state(3)["concealed_count"] == 17


def test_a_win_on_a_discard_revealed_with_a_tile_never_seen_is_an_impossible_fault() -> None:
    """Seat 2 presses 胡 on the dealer's 6s and the reveal lists, instead of that 6s, a
    tile still in the wall: an `impossible` fault at the reveal (the verdict that
    follows is not pinned here)."""
    t = rival_winners()
    t.button(2, "win")
    seq = t.seq + 1
    t.reveal(2, [*t.concealed[2], t.alloc("9s")])
    t.finish()
    assert (seq, "impossible") in t.faults()


ALSO_7P = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 6s 6s 6p 8p W W"  # seat 2: waits 7p alone


def test_two_seats_rob_one_kong_the_nearer_after_the_adder_wins() -> None:
    """搶槓 by two seats (§3 攔胡): seat 3 presses first, seat 2 (nearer after the adder,
    seat 1) presses and reveals: seat 2 wins, the adder pays, seat 3 settles nothing."""
    t = Script(quiet({1: ADDER, 2: ALSO_7P, 3: ROBBER}, extra="7p"))
    t.discard(0, "7p")
    add_the_fourth_7p(t)
    t.button(3, "win")
    t.win(2)
    t.button(3, "pass")
    assert t.violations() == []
    wins = [(h.result, h.kind, h.seat, h.payer) for h in t.hands()]
    assert wins == [("win", "robbing_kong", 2, 1)]
    assert t.hand().net[3] == 0


def test_the_winning_tile_is_named_whatever_its_id() -> None:
    """The hand record names the tile that completed the hand; here the dealer's 1m, the
    first 1m id (0)."""
    t = Script(
        quiet(
            {
                2: "2m 3m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s 9s W W",  # waits 1m 4m
                3: "C C C C F F F F 6s 6s 6s 6s 9m 9m 9m 9m",
            },
            extra="1m",
        )
    )
    t.discard(0, "1m")
    assert t.offered == 0
    t.win(2)
    assert (t.hand().result, t.hand().winning_tile) == ("win", "1m")


# --- a referee's verdict on a 胡 press (rulings.py, through the fold) ------------------


def test_an_overturned_false_win_is_a_press_never_made() -> None:
    """Seat 3 presses 胡 on a hand that does not win (詐胡, §3). The referee overturns it
    (an elbow on the button): it is still listed beside its ruling, but the hand plays on
    to seat 2's win on the next discard, paid by its discarder alone."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.button(3, "win")
    press = t.events[-1]
    t.cycle(1, "6s")
    t.win(2)
    t.finish()
    assert [h.result for h in t.hands()] == ["false_win"]
    verdict = {"kind": "verdict", "boot_id": 1, "seq": press.seq, "seat": 3, "code": "false_win"}
    verdict.update(decision="overturn", reason="elbow on the button")
    out = refold(t, verdict)
    assert [(r.seq, r.seat, r.code) for r in out if isinstance(r, Violation)] == [
        (press.seq, 3, "false_win")
    ]
    hands = [r for r in out if isinstance(r, HandRecord)]
    assert [(h.result, h.kind, h.seat, h.payer) for h in hands] == [("win", "discard", 2, 1)]


WAITS_1M = "2m 3m 6p 7p 8p 2s 3s 4s 7s 8s 9s W W W 8p 8p"  # seat 2: waits 1m 4m
NO_1M = "C C C C F F F F 9m 9m 9m 9m 6m 6m 6m 6m"  # seat 3 holds no 1m


def win_on_the_first_1m() -> Script:
    """Seat 2 wins on seat 1's discard of the 1m with the lowest id (0)."""
    t = Script(quiet({2: WAITS_1M, 3: NO_1M}))
    t.discard(0, "2m")
    t.cycle(1, "1m")
    assert t.offered == 0
    t.win(2)
    return t


def heavenly_win() -> Script:
    t = Script(quiet({0: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"}))
    t.win(0)
    return t


def eight_immortals() -> Script:
    t = Script(quiet({1: "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"}))  # seat 1: seven dealt flowers
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.replacement(1)
    t.button(1, "win")
    return t


@pytest.mark.parametrize(
    ("play", "won"),
    [
        (win_on_the_first_1m, ("win", "discard", 2)),
        (heavenly_win, ("win", "self_draw", 0)),
        (eight_immortals, ("flower_win", "eight_immortals", 1)),
    ],
    ids=["discard-tile-0", "self-draw", "flower-win"],
)
def test_an_overturned_false_win_on_a_press_that_wins_changes_nothing(
    play: Any, won: tuple[str, str, int]
) -> None:
    """A verdict overturning a false win at a 胡 press whose hand does win (say one left in
    force after a tile ruling set the hand right): the win stands as the stream gave it."""
    t = play()
    t.finish()
    (hand,) = t.hands()
    assert (hand.result, hand.kind, hand.seat) == won
    press = next(
        e for e in t.events if e.body.kind == "seat_button" and e.body.button.name == "WIN"
    )
    verdict = {"kind": "verdict", "boot_id": 1, "seq": press.seq, "seat": won[2]}
    verdict.update(code="false_win", decision="overturn", reason="stale")
    out = refold(t, verdict)
    assert [r for r in out if isinstance(r, HandRecord)] == [hand]
    assert [r for r in out if isinstance(r, Violation)] == []


def test_seven_rob_one_at_a_turn_begun_by_a_pong_names_no_winning_tile() -> None:
    """D8, §5 七搶一 (2): seat 2 holds seven flowers, seat 3 the eighth; seat 2's turn
    begins with a 碰 (no tile drawn) and it declares the flower win: seat 3 pays, and the
    record names no winning tile (the hand is not revealed, nothing was won on)."""
    hands = quiet(
        {
            2: "W W W N N N 2m 2m 1s h1 h2 h3 h4 h5 h6 h7",
            3: "C C C C F F F F 1m 1m 1m 1m 9m 9m 9m h8",
        }
    )
    t = Script(hands)
    for k in range(1, 8):
        t.flower(2, f"h{k}")
    for _ in range(7):
        t.replacement(2)
    t.flower(3, "h8")
    t.replacement(3)
    t.discard(0, "2m")
    t.pong(2, 0)
    t.button(2, "win")
    t.finish()
    (hand,) = t.hands()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("flower_win", "seven_rob_one", 2, 3)
    assert hand.winning_tile is None
    assert t.violations() == [] and t.faults() == []


def test_a_dead_hands_ready_declaration_is_void() -> None:
    """§3 相公: a 相公 player may only draw and discard, no claim and no win, so its 天聽
    stands for nothing: void, flagged at its button (D7). Seat 2 takes its 補花 replacement
    before seat 1 (replacement_order, 相公), then presses ready on a ready hand."""
    hands = quiet(
        {
            1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h1",
            2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W h2",
        }
    )
    t = Script(hands)
    t.flower(2, "h2")
    t.replacement(2, "W")  # 2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W: waits 6s 9s
    t.flower(1, "h1")
    t.replacement(1)
    assert [(seat, code) for _, seat, code in t.violations()] == [(2, "replacement_order")]
    seq = t.seq + 1
    t.button(2, "ready")
    assert t.violations()[-1] == (seq, 2, "void_declaration")
    assert t.seat_state(2)["declared"] is None


# --- a referee's statement of a hand's result (a `hand` ruling, through the fold) -------


def test_a_hand_voided_during_the_deal_is_dealt_again_as_the_same_deal() -> None:
    """The dealer's first four tiles are dealt, and the referee voids the hand there (dealt
    wrong): no record, and the deal stays (rulings.py). The table shuffles and deals again:
    no fault (the voided hand is over), the same dealer at 連0, and the hand is the
    session's first."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    for code in ("P", "P", "P", "P"):
        t.draw(0, code)
    at = t.events[-1]
    t.new_hand(quiet())
    t.discard(0, "2m")
    t.burn(0)
    void = {"kind": "hand", "boot_id": 1, "seq": at.seq, "result": "void", "reason": "dealt wrong"}
    out = refold(t, void)
    assert [r for r in out if not isinstance(r, (HandRecord, Violation))] == []
    (hand,) = [r for r in out if isinstance(r, HandRecord)]
    assert (hand.hand, hand.result, hand.dealer, hand.streak) == (1, "drawn", 0, 0)


def test_a_hand_ruling_after_the_hand_ended_cannot_be_followed() -> None:
    """Seat 2 won the dealer's 6s; a ruling that the hand was drawn, named at the reveal
    after that win, names no hand under way: refused, with the reason in words."""
    t = Script(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    assert t.hand().result == "win"
    at = t.events[-1]
    drawn = {"kind": "hand", "boot_id": 1, "seq": at.seq, "result": "drawn", "reason": "x"}
    with pytest.raises(ValueError, match=r"^no hand is under way at that event to decide$"):
        refold(t, drawn)


def test_a_hand_ruling_with_the_winner_as_its_payer_is_refused_in_words() -> None:
    """A win on a discard is paid by its discarder: a ruling naming the winner as its own
    payer cannot be followed, and the referee is told why."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.cycle(1, "6s")
    at = t.events[-1]
    ruling = {"kind": "hand", "boot_id": 1, "seq": at.seq, "result": "win", "seat": 2,
              "how": "discard", "payer": 2, "tile": "6s",
              "concealed": [*READY_W.split(), "6s"], "reason": "x"}  # fmt: skip
    with pytest.raises(ValueError, match=r"^seat 2 cannot pay for its own win$"):
        refold(t, ruling)


def ruled_mirror(t: Script, *rulings: dict[str, Any]) -> tuple[TableMirror, HandRecord]:
    """The mirror after the script's stream is folded again through the rulings, and the
    one hand record it made."""
    mirror = TableMirror(t.table)
    ruled = in_force((i + 1, parse_ruling(r)) for i, r in enumerate(rulings))
    out = fold(mirror, "session", None, t.session.model_dump(mode="json"), ruled)
    for event in t.events:
        out += fold(mirror, "event", event, None, ruled)
    (hand,) = [r for r in out if isinstance(r, HandRecord)]
    return mirror, hand


def test_a_win_on_a_discard_ruled_by_code_takes_the_discarded_tile() -> None:
    """Seat 2 won seat 1's 6s but its 胡 and reveal were never read. The referee states the
    win, naming the tile by its code: the copy seat 1 discarded is the one won (not
    another copy from the wall), so it leaves seat 1's discards for seat 2's hand."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.cycle(1, "6s")
    six = t.offered
    ruling = {"kind": "hand", "boot_id": 1, "seq": t.seq, "result": "win", "seat": 2,
              "how": "discard", "payer": 1, "tile": "6s",
              "concealed": [*READY_W.split(), "6s"], "reason": "seen by all"}  # fmt: skip
    mirror, hand = ruled_mirror(t, ruling)
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 1)
    assert hand.winning_tile == "6s"
    seats = mirror.snapshot(concealed=True)["hand"]["seats"]
    assert seats[1]["discards"] == []
    assert six in seats[2]["concealed_ids"]


def test_a_robbed_kong_ruled_by_code_takes_the_added_tile() -> None:
    """Seat 1 adds its fourth 4s to its pong; seat 3 robbed it (搶槓) but its 胡 was never
    read. The referee states the win naming the tile by code: the tile robbed is the one
    added, so seat 1's kong falls back to the pong it was (its three tiles) and seat 3
    holds the added 4s."""
    seat1 = "4s 4s 4s E E E S S S 1p 1p 1p 9p 9p 9p 2p"
    t = Script(quiet({1: seat1, 3: READY_14S}, extra="4s"))
    t.discard(0, "4s")
    t.pong(1, 0)
    pong_ids = list(t.melds[1][0][1])
    t.discard(1, "E")
    t.cycle(2)
    t.cycle(3)  # clears the 過水 of the 4s it let go (D1)
    t.cycle(0)
    t.draw(1)
    t.kong(1, "4s", "added")
    added = t.offered
    ruling = {"kind": "hand", "boot_id": 1, "seq": t.seq, "result": "win", "seat": 3,
              "how": "robbing_kong", "payer": 1, "tile": "4s",
              "concealed": [*READY_14S.split(), "4s"], "reason": "seen by all"}  # fmt: skip
    mirror, hand = ruled_mirror(t, ruling)
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "robbing_kong", 3, 1)
    seats = mirror.snapshot(concealed=True)["hand"]["seats"]
    assert [(m["kind"], sorted(m["ids"])) for m in seats[1]["melds"]] == [
        ("pong", sorted(pong_ids))
    ]
    assert added in seats[3]["concealed_ids"]


# --- the details of a barred 胡 (what the referee reads beside each code) -------------


def _restriction_2() -> Script:
    """Seat 1's 碰槓 of the dealer's 7p, then a win on its replacement (禁制 2)."""
    t = Script(quiet({1: "7p 7p 7p 2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 8s"}, extra="7p"))
    t.discard(0, "7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    return t


def _restriction_4() -> Script:
    """Seat 2 takes its winning 8s in seat 1's turn (禁制 4)."""
    t = Script(quiet({2: READY_8S}))
    t.discard(0, "2m")
    t.draw(2, "8s")
    return t


def _restriction_5() -> Script:
    """Seat 1 keeps its drawn 8p, 暗槓 3p, wins on the replacement 5s; the dealer's 2s,
    one of its waits, was discarded this go-round (禁制 5)."""
    dealer = QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p") + " 2s"
    t = Script(quiet({0: dealer, 1: "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3s 4s 8p"}))
    t.discard(0, "2s")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "5s")
    return t


def _restriction_8() -> Script:
    """Seat 2 showed a 2m by its own fault; the dealer's 2m completes it (禁制 8)."""
    t = Script(quiet({2: "2m 2m 6p 6p 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p"}, extra="2m"))
    t.shown(2, "2m")
    t.discard(0, "2m")
    return t


@pytest.mark.parametrize(
    ("scene", "seat", "code", "detail"),
    [
        (_restriction_2, 1, "restriction_2", "seat 1 self-drew on a 碰槓 replacement (禁制 2)"),
        (
            _restriction_4,
            2,
            "restriction_4",
            "seat 2's self-draw did not begin with a draw in turn (禁制 4)",
        ),
        (
            _restriction_5,
            1,
            "restriction_5",
            "seat 1's 暗槓 replacement win waits on a tile discarded this go-round (禁制 5)",
        ),
        (
            _restriction_8,
            2,
            "restriction_8",
            "seat 2 won on a discard that completes tiles it had shown (禁制 8)",
        ),
    ],
)
def test_a_barred_win_is_told_in_words(scene: Any, seat: int, code: str, detail: str) -> None:
    """A 胡 a rule bars (§3 行牌禁制) is flagged at its press with the rule in words (a seat
    that took its tile out of turn is 相公 too, flagged beside it)."""
    t = scene()
    press = t.seq + 1
    t.win(seat)
    flagged = [r for r in t.records if isinstance(r, Violation) and r.seq == press]
    assert (seat, code, detail) in [(v.seat, v.code, v.detail) for v in flagged]
    assert t.hand().result == "false_win"


def test_after_a_hand_ruled_drawn_the_next_hand_is_judged_as_usual() -> None:
    """The referee rules the first hand a 荒局 (the wall collapsed) after seat 1's discard;
    the table deals the next hand, the dealer keeping the deal (§2 連莊: 連1), and seat 2
    wins the dealer's 6s with seat 1 nearer after it (攔胡 is checked): both hands are
    recorded, nothing is faulted."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.cycle(1)
    at = t.events[-1]
    t.new_hand(quiet({2: READY_W}, extra="6s"))
    t.discard(0, "6s")
    t.win(2)
    ruling = {"kind": "hand", "boot_id": 1, "seq": at.seq, "result": "drawn",
              "reason": "the wall collapsed"}  # fmt: skip
    out = refold(t, ruling)
    assert [r for r in out if not isinstance(r, (HandRecord, Violation))] == []
    hands = [r for r in out if isinstance(r, HandRecord)]
    assert [(h.result, h.dealer, h.streak, h.seat, h.payer) for h in hands] == [
        ("drawn", 0, 0, None, None),
        ("win", 0, 1, 2, 0),
    ]
