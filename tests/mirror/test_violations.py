"""Every violation code (taiwan16.md §3, "Violation codes"): a breaking case and its legal twin.

Each breaking case asserts the whole list of violations as (seq, seat, code), the seq
being the event that broke the rule; its twin plays the same situation legally and
gets none. Seats not under test are quiet (four quads, see `script.QUIET`).
"""

from __future__ import annotations

import pytest

from table_service.mirror.records import VIOLATION_CODES
from tests.mirror.kit_script import QUIET, Script, quiet

# A seat-2 hand that waits on 8s alone (a single wait).
READY_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s"
# … one that waits on 6s or 9s (two-sided).
READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"


def started(hands: dict[int, str] | None = None, extra: str = "2m", **kw: object) -> Script:
    """A dealt table (dealer 0) after the dealer's first discard, `extra`."""
    t = Script(quiet(hands, extra=extra), **kw)  # type: ignore[arg-type]
    assert t.records == []
    t.discard(0, extra)
    return t


def test_every_code_is_covered() -> None:
    """This module has a test named for each code of records.VIOLATION_CODES."""
    names = set(globals())
    for code in VIOLATION_CODES:
        assert f"test_{code}" in names, code
        assert f"test_{code}_twin" in names, code


# --- out_of_turn ---------------------------------------------------------------------


def test_out_of_turn() -> None:
    """Seat 2 draws in seat 1's turn; the referee puts the tile back and seat 1 draws it:
    one violation, no fault, and the mirror follows the tiles on."""
    t = started()
    seq = t.seq + 1
    t.draw(2, "3m")
    assert t.violations() == [(seq, 2, "out_of_turn")]
    taken = t.concealed[2][-1]
    t.draw(1, tile=taken, returned=True)
    t.discard(1, "3m")
    assert t.violations() == [(seq, 2, "out_of_turn")]
    assert t.faults() == []
    assert t.seat_state(2)["concealed_count"] == 16
    assert t.seat_state(1)["discards"] == ["3m"]


def test_out_of_turn_twin() -> None:
    t = started()
    t.draw(1, "3m")
    t.discard(1, "3m")
    t.draw(2, "3m")
    assert t.violations() == []


# --- wrong_end -----------------------------------------------------------------------


def test_wrong_end() -> None:
    """A turn's draw from the 槓尾."""
    t = started()
    seq = t.seq + 1
    t.draw(1, "3m", end="back")
    assert t.violations() == [(seq, 1, "wrong_end")]


def test_wrong_end_replacement_from_front() -> None:
    """A kong's replacement taken from the front."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    seq = t.seq + 1
    t.replacement(0, "3m", end="front")
    assert t.violations() == [(seq, 0, "wrong_end")]


def test_wrong_end_twin() -> None:
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    t.replacement(0, "3m")
    t.discard(0, "2m")
    t.draw(1, "3m")
    t.discard(1, "3m")
    assert t.violations() == []
    assert t.faults() == []


# --- replacement_order ---------------------------------------------------------------

FLOWER_DEAL = {
    0: QUIET[0] + " h1",
    1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h2",
}


def test_replacement_order() -> None:
    """補花 goes in turn: seat 1 reveals before the dealer drew its replacement."""
    t = Script(FLOWER_DEAL | {2: QUIET[2], 3: QUIET[3]})
    t.flower(0, "h1")
    seq = t.seq + 1
    t.flower(1, "h2")
    assert t.violations() == [(seq, 1, "replacement_order")]


def test_replacement_order_a_replacement_flower_replaced_before_the_next_pass() -> None:
    """§2: the dealer's replacement is a flower; it belongs to the second pass, so drawing
    its replacement before seat 1 has had its first pass takes a tile out of order."""
    t = Script(FLOWER_DEAL | {2: QUIET[2], 3: QUIET[3]})
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.flower(0, "h5")
    seq = t.seq + 1
    t.replacement(0, "2p")
    assert t.violations() == [(seq, 0, "replacement_order")]


def test_replacement_order_a_replacement_flower_replaced_in_the_next_pass_twin() -> None:
    t = Script(FLOWER_DEAL | {2: QUIET[2], 3: QUIET[3]})
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.flower(1, "h2")
    t.replacement(1, "3m")
    t.flower(0, "h5")  # the second pass, after seat 1's first
    t.replacement(0, "2p")
    t.discard(0, "2p")
    assert t.violations() == []


def test_replacement_order_discard_before_replacement() -> None:
    """A flower drawn in play, revealed, and a discard before its replacement."""
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    seq = t.seq + 1
    t.discard(1, "9p")
    assert t.violations() == [(seq, 1, "replacement_order")]
    assert t.seat_state(1)["dead_hand"]


def test_replacement_order_twin() -> None:
    t = Script(FLOWER_DEAL | {2: QUIET[2], 3: QUIET[3]})
    t.flower(0, "h1")
    t.replacement(0, "2m")
    t.flower(1, "h2")
    t.replacement(1, "3m")
    t.discard(0, "2m")
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.replacement(1, "4m")
    t.discard(1, "4m")
    assert t.violations() == []
    assert t.seat_state(1)["flowers"] == ["h2", "h3"]


# --- reserve_draw --------------------------------------------------------------------


def test_reserve_draw() -> None:
    """After 荒局 (the last drawable tile discarded) a seat draws into the reserve."""
    t = started()
    t.burn(0)
    assert t.hand().result == "drawn"
    seat = t.next_seat
    seq = t.seq + 1
    t.draw(seat, count=False)
    assert t.violations() == [(seq, seat, "reserve_draw")]


def test_reserve_draw_twin() -> None:
    t = started()
    t.burn(0)
    assert t.hand().result == "drawn"
    t.new_hand(quiet())
    assert t.violations() == []
    assert t.faults() == []


# --- chow_not_from_left --------------------------------------------------------------

CHOWERS = {
    1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m",
    2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m",
}


def test_chow_not_from_left() -> None:
    t = started(CHOWERS)
    t.chow(2, 0, "3m 4m")
    assert t.violations() == [(t.seq, 2, "chow_not_from_left")]
    assert t.seat_state(2)["dead_hand"]


def test_chow_not_from_left_twin() -> None:
    t = started(CHOWERS)
    t.chow(1, 0, "3m 4m")
    t.discard(1, "9p")
    assert t.violations() == []


# --- restriction_1: no kong right after a 吃 or 碰 -----------------------------------

PONGER = {1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"}


def test_restriction_1() -> None:
    t = started(PONGER)
    t.pong(1, 0)
    t.kong(1, "E", "concealed")
    assert t.violations() == [(t.seq, 1, "restriction_1")]


def test_restriction_1_added_kong() -> None:
    """A 加槓 right after the pong it extends breaks it too."""
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 2m 2m 2m"})
    t.pong(1, 0)
    t.kong(1, "2m", "added")
    assert t.violations() == [(t.seq, 1, "restriction_1")]


def test_restriction_1_twin() -> None:
    t = started(PONGER)
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1)
    t.kong(1, "E", "concealed")
    t.replacement(1)
    t.discard(1, "9p")
    assert t.violations() == []


# --- restriction_2: no self-drawn win on a 碰槓 replacement -------------------------


KONG_8S = {1: "7p 7p 7p 2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 8s"}  # waits 8s


def test_restriction_2() -> None:
    t = started(KONG_8S, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_2")]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 1, ["restriction_2"])


def test_restriction_2_twin() -> None:
    """The same hand makes its kong from its own draw (暗槓): 槓上開花 stands."""
    t = started(KONG_8S)
    t.draw(1, "7p")
    t.kong(1, "7p", "concealed")
    t.replacement(1, "8s")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 1)
    assert "kong_bloom" in {i.id for i in hand.items}


# --- restriction_3 (and D10): no further kong after a 碰槓 replacement ---------------

KONGER = {1: "7p 7p 7p 3m 3m 3m 3m 6m 7m 8m 2s 3s 4s 6p 6p 6p"}


def test_restriction_3() -> None:
    t = started(KONGER, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    t.kong(1, "3m", "concealed")
    assert t.violations() == [(t.seq, 1, "restriction_3")]


def test_restriction_3_twin() -> None:
    t = started(KONGER, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    t.discard(1, "8s")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0)
    t.draw(1)
    t.kong(1, "3m", "concealed")
    t.replacement(1)
    t.discard(1, t.hand_codes(1).split()[-1])
    assert t.violations() == []


# --- restriction_4: a self-draw must begin with a draw in turn -----------------------


def test_restriction_4() -> None:
    """Seat 2 draws its winning tile in seat 1's turn and declares 胡."""
    t = started({2: READY_8S})
    draw_seq = t.seq + 1
    t.draw(2, "8s")
    win_seq = t.seq + 1
    t.win(2)
    assert t.violations() == [
        (draw_seq, 2, "out_of_turn"),  # 搶摸: 相公 (D9)
        (win_seq, 2, "dead_hand_claim"),
        (win_seq, 2, "restriction_4"),
    ]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == (
        "false_win",
        2,
        ["dead_hand_claim", "restriction_4"],
    )


def test_restriction_4_twin() -> None:
    t = started({2: READY_8S})
    t.cycle(1)
    t.draw(2, "8s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind, t.hand().seat) == ("win", "self_draw", 2)


# --- restriction_5: 暗槓 keeping the draw, then a replacement win on a wait discarded
# in this go-round ------------------------------------------------------------------

KEEPER = {1: "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3s 4s 8p"}  # draws 8p: waits 2s 5s


def test_restriction_5() -> None:
    """The dealer discarded 2s, one of seat 1's waits; seat 1 draws 8p (kept), 暗槓 3p and
    wins on the replacement 2s."""
    t = started(KEEPER, extra="2s")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "2s")
    seq = t.seq + 1
    t.win(1)
    assert t.violations() == [(seq, 1, "restriction_5")]
    assert t.hand().codes == ["restriction_5"]


def test_restriction_5_twin() -> None:
    """Nobody discarded a wait of seat 1 in this go-round: the replacement win stands."""
    t = started(KEEPER, extra="7p")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "2s")
    t.win(1)
    assert t.violations() == []
    assert t.hand().result == "win"


# --- restriction_6: 吃 then its tile or 絡; a discard then chowing it or its 絡 ------

LUO_DEALER = "P P P P 2p 2p 2p 2p 6p 6p 6p 6p 2s 2s 2s 2s 2m"
LUO_SEAT = "E E E E S S S S 1p 1p 1p 1p 2m 3m 4m 5m"


@pytest.mark.parametrize("thrown", ["2m", "5m"])
def test_restriction_6(thrown: str) -> None:
    """Chow 2m with 3m-4m, then discard 2m (the same tile) or 5m (its 絡)."""
    t = started({0: LUO_DEALER, 1: LUO_SEAT})
    t.chow(1, 0, "3m 4m")
    t.discard(1, thrown)
    assert t.violations() == [(t.seq, 1, "restriction_6")]
    assert t.seat_state(1)["dead_hand"]


def test_restriction_6_chow_after_discard() -> None:
    """Seat 1 discards 5m, then chows 2m (with 3m-4m, the 絡) in the same go-round."""
    t = started({0: LUO_DEALER, 1: "E E E E S S S S 1p 1p 1p 1p 9p 3m 4m 5m"})
    t.draw(1, "6m")
    t.discard(1, "5m")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "2m")
    t.chow(1, 0, "3m 4m")
    assert t.violations() == [(t.seq, 1, "restriction_6")]


def test_restriction_6_twin() -> None:
    t = started({0: LUO_DEALER, 1: LUO_SEAT})
    t.chow(1, 0, "3m 4m")
    t.discard(1, "E")
    assert t.violations() == []


def test_restriction_6_twin_chow_after_discard() -> None:
    """Seat 1 discarded 9p, neither 2m nor its 絡: the chow of 2m is free."""
    t = started({0: LUO_DEALER, 1: "E E E E S S S S 1p 1p 1p 1p 9p 3m 4m 5m"})
    t.draw(1, "6m")
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.discard(1, "E")
    assert t.violations() == []


# --- restriction_7: no claim with three or fewer drawable --------------------------

PAIR_3M = {2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 3m"}


def test_restriction_7() -> None:
    """Seat 0 draws the tile that leaves 3 drawable and discards 3m; seat 2 pongs it."""
    t = started(PAIR_3M)
    t.burn(4)
    assert t.next_seat == 0
    t.cycle(0, "3m")
    assert t.drawable == 3
    t.pong(2, 0)
    assert t.violations() == [(t.seq, 2, "restriction_7")]


def test_restriction_7_twin() -> None:
    t = started(PAIR_3M)
    t.burn(5)
    assert t.next_seat == 3
    t.cycle(3, "3m")
    assert t.drawable == 4
    t.pong(2, 3)
    t.discard(2, "9s")
    assert t.violations() == []


# --- restriction_8: a tile shown by one's own fault ----------------------------------

SHOWER = {2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"}
SHANPON = {2: "2m 2m 6p 6p 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p"}  # waits 2m or 6p


def test_restriction_8() -> None:
    t = Script(quiet(SHOWER))
    t.shown(2, "2m")
    t.discard(0, "2m")
    t.pong(2, 0)
    assert t.violations() == [(t.seq, 2, "restriction_8")]


def test_restriction_8_win_on_discard() -> None:
    t = Script(quiet(SHANPON, extra="2m"))
    t.shown(2, "2m")
    t.discard(0, "2m")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "restriction_8")]
    assert t.hand().result == "false_win"


def test_restriction_8_twin() -> None:
    t = Script(quiet(SHOWER))
    t.discard(0, "2m")
    t.pong(2, 0)
    t.discard(2, "9s")
    assert t.violations() == []


def test_restriction_8_twin_self_draw() -> None:
    """A self-draw of the shown kind stays allowed."""
    t = Script(quiet(SHANPON, extra="7p"))
    t.shown(2, "2m")
    t.discard(0, "7p")
    t.cycle(1)
    t.draw(2, "2m")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind) == ("win", "self_draw")


# 禁制 8 binds the tiles shown, not just their kind: a 搭子 shown (3m 4m) may not make a
# chow, nor win on the discard that completes it (2m or 5m); a self-draw stays allowed.
OPEN_34M = {2: "3m 4m 6p 6p 6p 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 2p"}  # waits 2m or 5m


def test_restriction_8_win_completing_a_shown_partial_set() -> None:
    t = Script(quiet(OPEN_34M, extra="2m"))
    t.shown(2, "3m 4m")
    t.discard(0, "2m")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "restriction_8")]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 2, ["restriction_8"])
    assert hand.tai > 0  # its 牌面: the hand would have won
    assert hand.net[2] < 0 and all(hand.net[s] > 0 for s in (0, 1, 3))


def test_restriction_8_win_completing_a_shown_partial_set_twin() -> None:
    t = Script(quiet(OPEN_34M, extra="2m"))
    t.shown(2, "6p")  # a tile the winning discard does not complete
    t.discard(0, "2m")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().seat, t.hand().payer) == ("win", 2, 0)


def test_restriction_8_chow_with_shown_tiles() -> None:
    t = started(OPEN_34M)
    t.draw(1, "2m")
    t.discard(1, "2m")
    t.shown(2, "3m 4m")
    t.chow(2, 1, "3m 4m")
    assert t.violations() == [(t.seq, 2, "restriction_8")]


def test_restriction_8_chow_with_shown_tiles_twin() -> None:
    t = started(OPEN_34M)
    t.draw(1, "2m")
    t.discard(1, "2m")
    t.shown(2, "2p")
    t.chow(2, 1, "3m 4m")
    t.discard(2, "2p")
    assert t.violations() == []


def test_restriction_8_self_draw_completing_a_shown_partial_set_stands() -> None:
    t = started(OPEN_34M, extra="7p")
    t.shown(2, "3m 4m")
    t.cycle(1)
    t.draw(2, "2m")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().kind) == ("win", "self_draw")


# --- passed_win ----------------------------------------------------------------------


def test_passed_win() -> None:
    """Seat 2 passes the dealer's 6s, then declares 胡 on seat 1's 9s in the same go-round."""
    t = started({2: READY_69S}, extra="6s")
    t.button(2, "pass")
    t.cycle(1, "9s")
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "passed_win")]
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 2, ["passed_win"])
    assert hand.tai > 0  # the 牌面 of a complete hand barred by a rule


def test_passed_win_twin() -> None:
    t = started({2: READY_69S}, extra="6s")
    t.win(2)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)


# --- passed_pong ---------------------------------------------------------------------


def test_passed_pong() -> None:
    """Seat 2 lets the dealer's 3m go, then pongs seat 1's 3m in the same go-round (過碰)."""
    t = started(PAIR_3M, extra="3m")
    t.cycle(1, "3m")
    t.pong(2, 1)
    assert t.violations() == [(t.seq, 2, "passed_pong")]


def test_passed_pong_twin() -> None:
    t = started(PAIR_3M, extra="3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    assert t.violations() == []


# --- late_claim ----------------------------------------------------------------------


def test_late_claim() -> None:
    """The dealer's 3m is ponged after seat 1's draw was recorded (D3)."""
    t = started(PAIR_3M, extra="3m")
    t.draw(1, "4m")
    t.pong(2, 0)
    assert t.violations() == [(t.seq, 2, "late_claim")]
    assert t.seat_state(2)["dead_hand"]


def test_late_claim_twin() -> None:
    t = started(PAIR_3M, extra="3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.draw(3, "4m")
    t.discard(3, "4m")
    assert t.violations() == []


# --- dead_hand_claim -----------------------------------------------------------------

DEAD = {2: "W W W W N N N N 1s 1s 1s 1s 3m 4m 7p 7p"}


def test_dead_hand_claim() -> None:
    """Seat 2 became 相公 by chowing the dealer's tile; its later pong is refused."""
    t = started(DEAD)
    t.chow(2, 0, "3m 4m")
    first = t.seq
    t.discard(2, "W")
    t.cycle(3, "7p")
    t.pong(2, 3)
    assert t.violations() == [(first, 2, "chow_not_from_left"), (t.seq, 2, "dead_hand_claim")]


def test_dead_hand_claim_twin() -> None:
    t = started(DEAD)
    t.cycle(1)
    t.draw(2, "2m")
    t.discard(2, "W")
    t.cycle(3, "7p")
    t.pong(2, 3)
    t.discard(2, "W")
    assert t.violations() == []


# --- hand_size -----------------------------------------------------------------------


def test_hand_size() -> None:
    """Seat 1 discards without drawing: a short hand."""
    t = started()
    t.discard(1, "9p")
    assert t.violations() == [(t.seq, 1, "hand_size")]
    assert t.seat_state(1)["dead_hand"]


def test_hand_size_twin() -> None:
    t = started()
    t.draw(1, "3m")
    t.discard(1, "9p")
    assert t.violations() == []


# --- flower_discarded ----------------------------------------------------------------


def test_flower_discarded() -> None:
    t = started()
    t.draw(1, "h3")
    t.discard(1, "h3")
    assert t.violations() == [(t.seq, 1, "flower_discarded")]


def test_flower_discarded_with_another_flower_kept_is_that_code_alone() -> None:
    """The dealer, dealt h1 and h2, reveals neither and makes h1 its first discard: a
    flower discarded is `flower_discarded` (§3's table: this code, not replacement_order),
    whatever else the hand holds. The h2 it still keeps is a flower not replaced before a
    discard (replacement_order) at its next discard of a tile."""
    t = Script(quiet({0: "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 5s 5s h1 h2 2m"}))
    t.discard(0, "h1")
    first = t.seq
    assert t.violations() == [(first, 0, "flower_discarded")]
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0)
    t.discard(0, "2m")
    assert t.violations() == [(first, 0, "flower_discarded"), (t.seq, 0, "replacement_order")]


def test_flower_discarded_twin() -> None:
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.replacement(1, "3m")
    t.discard(1, "3m")
    assert t.violations() == []


# --- void_declaration ----------------------------------------------------------------


def test_void_declaration() -> None:
    """天聽 on a hand that is not ready."""
    t = Script(quiet())
    t.button(1, "ready")
    assert t.violations() == [(t.seq, 1, "void_declaration")]
    assert t.seat_state(1)["declared"] is None


def test_void_declaration_twin() -> None:
    t = Script(quiet({2: READY_8S}))
    t.button(2, "ready")
    assert t.violations() == []
    assert t.seat_state(2)["declared"] == "heavenly_ready"


# --- kong_without_replacement (D4) ---------------------------------------------------


def test_kong_without_replacement() -> None:
    """Seat 3 draws the 海底 and makes an 暗槓: no drawable tile is left for its replacement."""
    t = started()
    t.burn(1)
    assert t.next_seat == 3
    t.draw(3)
    assert t.drawable == 0
    t.kong(3, "C", "concealed")
    assert t.violations() == [(t.seq, 3, "kong_without_replacement")]


def test_kong_without_replacement_twin() -> None:
    """With one drawable tile left the kong stands; its replacement takes it (the reserve
    moves), and the discard after it ends the hand as 荒局."""
    t = started()
    t.burn(2)
    assert t.next_seat == 2
    t.draw(2)
    assert t.drawable == 1
    t.kong(2, "W", "concealed")
    t.replacement(2)
    assert t.drawable == 0
    t.discard(2, "N")
    assert t.violations() == []
    assert t.hand().result == "drawn"


# --- false_win -----------------------------------------------------------------------


def test_false_win() -> None:
    """胡 on the dealer's discard with a hand that does not win (詐胡)."""
    t = started({2: READY_8S})
    seq = t.seq + 1
    t.win(2)
    assert t.violations() == [(seq, 2, "false_win")]
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.tai, hand.codes) == (
        "false_win",
        "false_win",
        2,
        0,
        ["false_win"],
    )


def test_false_win_twin() -> None:
    t = started({2: READY_8S}, extra="8s")
    t.win(2)
    assert t.violations() == []
    assert (t.hand().result, t.hand().payer) == ("win", 0)
