"""Worked cases for drawing.py's survivors of bench/mutation.py (taiwan16.md §2, D4, D8;
replay-format.md faults). Every expected value comes from the rules text."""

from __future__ import annotations

import pytest

from table_service.mirror.records import Violation
from table_service.rules.tiles import FLOWER_BASE, tile_code
from tests.mirror.kit_script import QUIET, Script, quiet


def test_a_flower_revealed_that_another_seat_already_revealed_is_a_misread() -> None:
    """replay-format.md: one physical tile in two places is `tile_twice`; nobody is blamed
    and nothing moves: the flower stays the dealer's."""
    t = Script(quiet({0: QUIET[0] + " h1"}))
    t.flower(0, "h1")
    t.replacement(0, "2m")
    seq = t.seq + 1
    out = t.emit({"kind": "flower_revealed", "seat": 1, "tile": FLOWER_BASE})  # h1's id
    assert t.faults(out) == [(seq, "tile_twice")]
    assert out[0].detail == (  # type: ignore[union-attr]
        f"seat 1 revealed h1 (id {FLOWER_BASE}), which is among seat 0's flowers: a misread, "
        "the reveal is still due"
    )
    assert t.violations(out) == []
    assert t.seat_state(0)["flowers"] == ["h1"]
    assert t.seat_state(1)["flowers"] == []


# --- misreads with no re-read: followed as they came (replay-format.md) ------------------


def test_a_misread_replacement_not_re_read_is_followed_as_a_replacement() -> None:
    """Seat 1 reveals a flower drawn in play; its replacement from the 槓尾 is reported with
    the id of a tile in seat 2's hand (tile_twice); no re-read comes (seat 1 discards), so
    the reading is followed as it came: seat 1's replacement, drawn from the back."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    t.flower(1, "h1")
    stray = t.concealed[2][0]
    seq = t.seq + 1
    t.emit({"kind": "tile_drawn", "seat": 1, "tile": stray, "end": "back"})
    t.concealed[2].remove(stray)
    t.concealed[1].append(stray)
    t.discard(1, "9p")
    assert t.faults() == [(seq, "tile_twice")]
    assert t.violations() == []
    assert t.seat_state(1)["owed_replacements"] == 0
    assert t.seat_state(1)["concealed_count"] == 16


def test_a_misread_pong_not_re_read_is_followed_with_its_tiles() -> None:
    """Seat 1 pongs the dealer's 2m, but the meld names one 2m the mirror had in seat 2's
    hand (tile_twice); no re-read comes, so the pong is followed as it came, that tile
    taken from seat 2."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 3m", 2: PAIR}))
    t.discard(0, "2m")
    own = t.ids(1, "2m")[0]
    stray = t.ids(2, "2m")[0]
    seq = t.seq + 1
    tiles = [t.offered, own, stray]
    t.emit({"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": tiles})
    t.concealed[1].remove(own)
    t.concealed[2].remove(stray)
    t.discard(1, "3m")
    assert t.faults() == [(seq, "tile_twice")]
    melds = t.seat_state(1)["melds"]
    assert [(m["kind"], m["tiles"]) for m in melds] == [("pong", ["2m", "2m", "2m"])]
    assert t.seat_state(2)["concealed_count"] == 15
    assert t.seat_state(1)["concealed_count"] == 14  # 16, one own 2m melded, the 3m thrown
    assert t.seat_state(0)["discards"] == []


def test_a_misread_flower_not_re_read_is_followed_as_revealed() -> None:
    """Seat 1 reveals the dealer's h1 (tile_twice); no re-read comes (the dealer discards),
    so the reveal is followed as it came: the h1 is seat 1's."""
    t = Script(quiet({0: QUIET[0] + " h1"}))
    t.flower(0, "h1")
    t.replacement(0, "2m")
    seq = t.seq + 1
    t.emit({"kind": "flower_revealed", "seat": 1, "tile": FLOWER_BASE})
    t.discard(0, "2m")
    assert (seq, "tile_twice") in t.faults()
    assert t.seat_state(1)["flowers"] == ["h1"]
    assert t.seat_state(0)["flowers"] == []


PAIR = "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"


def test_a_misread_in_the_deals_four_in_a_row_told_by_the_table_count() -> None:
    """In the deal the dealer takes four tiles in a row. Its fifth dealt tile is reported
    with the id of a tile in seat 1's hand (tile_twice); the next report is the dealer's
    next tile, and the table's count, one fewer than a re-read would leave, says so: the
    misread was a draw of its own and is followed. The counts agree all along: one fault,
    no count_mismatch, nobody blamed."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    rounds = {s: QUIET[s].split() for s in range(4)}
    for s in range(4):
        for code in rounds[s][:4]:
            t.draw(s, code)
    stray = t.concealed[1][0]
    seq = t.seq + 1
    t.draw(0, tile=stray)  # the table took a wall tile; its id was misread
    t.draw(0, "2m")
    t.draw(0, "3m")
    t.draw(0, "4m")
    for s in range(1, 4):
        for code in rounds[s][4:8]:
            t.draw(s, code)
    for r in (2, 3):
        for s in range(4):
            for code in rounds[s][4 * r : 4 * r + 4]:
                t.draw(s, code)
    t.draw(0, "6m")
    assert t.faults() == [(seq, "tile_twice")]
    assert t.violations() == []


READY_W = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
READY_17 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"  # a dealt winning hand


def test_after_a_hand_not_seen_the_seat_dealt_first_is_the_new_dealer() -> None:
    """Events of a hand were lost (gap): it is not judged. The next deal starts with seat 1
    taking the first tiles: by §2 the dealer takes first, so seat 1 deals, a new dealer
    at 連0 (N resets when the deal passes), and sits 東 with the dice's total of 5."""
    t = Script(quiet())
    t.skip()
    t.discard(0, "2m")
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]
    t.new_hand(quiet({1: READY_17}, dealer=1), dealer=1)
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    assert hand["seats"][1]["wind"] == "E"
    t.win(1)
    record = t.hand()
    assert (record.dealer, record.streak, record.seat, record.result) == (1, 0, 1, "win")


def test_a_kongs_replacement_from_the_front_still_replaces_it() -> None:
    """The dealer's 暗槓 replacement taken from the front (wrong_end) is still its
    replacement: its discard is no short hand; a flower it draws later and discards past
    is replacement_order, a flower's breach (§2), not a kong's short hand."""
    t = Script(quiet())
    t.kong(0, "P", "concealed")
    seq = t.seq + 1
    t.replacement(0, "3m", end="front")
    t.discard(0, "3m")
    assert t.violations() == [(seq, 0, "wrong_end")]
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "h1")
    t.flower(0, "h1")
    later = t.seq + 1
    t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "wrong_end"), (later, 0, "replacement_order")]


def test_a_draw_from_the_reserve_while_the_last_discard_is_open() -> None:
    """§2: 16 tiles are never drawn. The last drawable tile is drawn and discarded, a seat
    could win on it (the hand is not over yet), and the next seat draws: from the reserve."""
    t = Script(quiet({2: READY_W}))
    t.discard(0, "2m")
    t.burn(1)
    seat = t.next_seat
    if seat == 2:
        t.cycle(2)
        t.burn(1)
        seat = t.next_seat
    assert seat != 2 and t.drawable == 1
    t.cycle(seat, "6s")
    assert t.hands() == []
    nxt = (seat + 1) % 4
    seq = t.seq + 1
    out = t.draw(nxt)
    assert (seq, nxt, "reserve_draw") in t.violations()
    (reserve,) = [v for v in out if isinstance(v, Violation) and v.code == "reserve_draw"]
    assert reserve.detail == f"seat {nxt} drew from the 8-墩 reserve"


def test_a_draw_after_a_flower_discard_is_a_plain_draw() -> None:
    """A flower discarded (flower_discarded) opens nothing to claim; the next seat's draw
    and discard are an ordinary turn."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    seq = t.seq + 1
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": t.ids(1, "h1")[0]})
    t.concealed[1].remove(t.ids(1, "h1")[0])
    t.cycle(2)
    assert t.violations() == [(seq, 1, "flower_discarded")]
    assert t.faults() == []


def test_after_a_drawn_hand_a_draw_of_a_tile_elsewhere_is_a_misread() -> None:
    """After 荒局 a draw from the front is a reserve draw; one that names a tile the mirror
    knows is in a hand is a misread (tile_twice): nobody is blamed."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    assert t.hand().result == "drawn"
    seat = t.next_seat
    stray = t.concealed[(seat + 1) % 4][0]
    seq = t.seq + 1
    out = t.emit({"kind": "tile_drawn", "seat": seat, "tile": stray, "end": "front"})
    assert t.faults(out) == [(seq, "tile_twice")]
    assert out[0].detail == (  # type: ignore[union-attr]
        f"{tile_code(stray)} (id {stray}) is in seat {(seat + 1) % 4}'s hand"
    )
    assert t.violations(out) == []


SEVEN = "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"  # seat 1: seven dealt flowers


def seven_flowers() -> Script:
    t = Script(quiet({1: SEVEN}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    assert t.violations() == []
    return t


def test_seven_rob_one_case_1_the_robbed_seat_owes_no_replacement() -> None:
    """D8: in 七搶一 case (1) the robber draws the replacement for the robbed flower and
    the seat that drew the eighth draws none."""
    t = seven_flowers()
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.replacement(1)
    assert t.seat_state(2)["owed_replacements"] == 0
    assert t.seat_state(2)["flowers"] == []
    assert len(t.seat_state(1)["flowers"]) == 8


def test_a_robbed_flower_revealed_again_is_a_misread() -> None:
    """七搶一 case (1): seat 1 robbed seat 2's h8. The table then reports seat 2 revealing
    h8 again: that flower lies among seat 1's flowers, so the report is a misread
    (tile_twice, replay-format.md), nobody is blamed, and the flower stays seat 1's."""
    t = seven_flowers()
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.replacement(1)
    seq = t.seq + 1
    h8 = FLOWER_BASE + 7
    out = t.emit({"kind": "flower_revealed", "seat": 2, "tile": h8})
    assert t.faults(out) == [(seq, "tile_twice")]
    assert out[0].detail == (  # type: ignore[union-attr]
        f"seat 2 revealed h8 (id {h8}), which is among seat 1's flowers: a misread, the "
        "reveal is still due"
    )
    assert t.violations() == []
    assert t.seat_state(1)["flowers"][-1] == "h8"
    assert t.seat_state(2)["flowers"] == []


def test_only_a_seat_with_seven_flowers_robs_a_flower_just_revealed() -> None:
    """Seat 2 reveals a flower drawn in play; seat 3, holding none, draws from the 槓尾:
    no 七搶一, a draw when it was not its move (out_of_turn); seat 2 keeps its flower."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h1")
    t.flower(2, "h1")
    seq = t.seq + 1
    t.replacement(3, "3m")
    assert t.violations() == [(seq, 3, "out_of_turn")]
    assert t.seat_state(2)["flowers"] == ["h1"]
    assert t.seat_state(2)["owed_replacements"] == 1


def test_a_misread_draw_of_a_melded_tile_not_re_read_is_followed_out_of_the_meld() -> None:
    """Seat 2's draw names a 2m lying in seat 1's pong (tile_twice); no re-read comes (seat 2
    discards), so the draw is followed as it came: the tile leaves the meld."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"}))
    t.discard(0, "2m")
    t.pong(1, 0)
    t.discard(1, "9p")
    melded = t.melds[1][0][1][0]
    seq = t.seq + 1
    out = t.emit({"kind": "tile_drawn", "seat": 2, "tile": melded, "end": "front"})
    assert out[0].detail == (  # type: ignore[union-attr]
        f"seat 2 drew 2m (id {melded}), which is in a meld of seat 1: a misread, the draw is "
        "still due"
    )
    t.concealed[2].append(melded)
    t.discard(2, "2m")
    assert (seq, "tile_twice") in t.faults()
    melds = t.seat_state(1)["melds"]
    assert [len(m["tiles"]) for m in melds] == [2]


@pytest.mark.parametrize(
    ("early", "ahead", "early_hand", "ahead_hand"),
    [
        (
            3,
            1,
            "C C C C F F F F 1m 1m 1m 1m 9m 9m 9m h3",
            "E E E E S S S S 1p 1p 1p 1p 9p 9p h1 2m h2",
        ),
        (
            0,
            2,
            "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 5s 5s 5s h4",
            "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s h2",
        ),
    ],
)
def test_the_opening_replacements_go_in_turn_from_the_dealer(
    early: int, ahead: int, early_hand: str, ahead_hand: str
) -> None:
    """§2 補花: starting with the dealer (seat 1 here) and in turn order. A seat that draws
    its replacement while a seat before it (from the dealer) still holds its dealt flower
    takes a tile out of its order: replacement_order."""
    hands = quiet({early: early_hand, ahead: ahead_hand}, dealer=1, extra="2p")
    t = Script(hands, dealer=1)
    t.flower(early, early_hand.split()[-1])
    seq = t.seq + 1
    out = t.replacement(early, "2s")
    assert t.violations() == [(seq, early, "replacement_order")]
    assert out[0].detail == (  # type: ignore[union-attr]
        f"seat {early} drew a 補花 replacement of pass 1 before seat {ahead} had its turn"
    )


def test_a_draw_from_the_other_end_is_no_re_read_of_a_misread_draw() -> None:
    """Seat 2's draw from the front names a 2m lying in seat 1's pong (tile_twice). Its
    next event is a draw from the 槓尾: not the same act read again, so the misread draw
    is followed as it came (the tile leaves the meld) before the back draw is judged."""
    t = Script(quiet({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"}))
    t.discard(0, "2m")
    t.pong(1, 0)
    t.discard(1, "9p")
    melded = t.melds[1][0][1][0]
    t.emit({"kind": "tile_drawn", "seat": 2, "tile": melded, "end": "front"})
    t.concealed[2].append(melded)
    seq = t.seq + 1
    t.draw(2, "3m", end="back")
    assert [len(m["tiles"]) for m in t.seat_state(1)["melds"]] == [2]
    assert melded in t.seat_state(2)["concealed_ids"]
    assert t.violations() == [(seq, 2, "out_of_turn")]  # its turn's draw was the front one


# --- a flower's replacement taken from the front (§2 補花, wrong_end) ---------------------

READY_E = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p
KONG_E = "3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p, a 3p triplet


def test_a_flower_replacement_from_the_front_is_still_its_replacement() -> None:
    """Seat 1 draws a flower in play, lays it face up and takes its replacement from the
    front (wrong_end, told to the referee in words): the flower is replaced, so its discard
    after it is no flower left unreplaced (replacement_order)."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "h1")
    t.flower(1, "h1")
    seq = t.seq + 1
    out = t.replacement(1, "3m", end="front")
    assert out[0].detail == "seat 1 took a replacement from the front"  # type: ignore[union-attr]
    t.discard(1, "3m")
    assert t.violations() == [(seq, 1, "wrong_end")]
    assert t.seat_state(1)["owed_replacements"] == 0


def test_a_win_on_a_flower_replacement_from_the_front_has_no_kong_bloom() -> None:
    """Seat 1 (waits 6p 9p) takes its flower's replacement from the front (wrong_end, 相公)
    and it is the 9p: its 胡 is a 詐胡 (dead_hand_claim) on the 牌面 of the complete hand
    (§3), 門清 1 + 不求 2; no 槓上開花, the tile did not come from the 槓尾 (I4)."""
    t = Script(quiet({1: READY_E}))
    t.discard(0, "2m")
    t.draw(1, "h1")
    t.flower(1, "h1")
    t.replacement(1, "9p", end="front")
    t.win(1)
    hand = t.hand()
    assert (hand.result, hand.seat, hand.codes) == ("false_win", 1, ["dead_hand_claim"])
    assert hand.tai == 3
    assert {i.id for i in hand.items} == {"concealed", "concealed_self_draw"}


def test_house_rule_a_flower_replacement_win_after_an_earlier_concealed_kong_stands() -> None:
    """§7 pass_water_self_draw = true: seat 1 made an 暗槓 in an earlier turn, then lets seat
    2's 6p go (過水). In its next turn it draws a flower and wins on the flower's replacement:
    a self-draw, which the house rule lets stand; only the replacement of an 暗槓 (made this
    turn) stays barred. 槓上開花 (I4)."""
    profile = {"rules": {"pass_water_self_draw": True}}
    t = Script(quiet({1: KONG_E}), profile=profile)
    t.discard(0, "2m")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1)
    t.discard(1, tile_code(t.concealed[1][-1]))
    t.cycle(2, "6p")
    t.cycle(3)
    t.cycle(0)
    assert t.seat_state(1)["passed_win"]
    t.draw(1, "h1")
    t.flower(1, "h1")
    t.replacement(1, "9p")
    t.win(1)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 1)
    assert {i.id for i in hand.items} == {"concealed", "concealed_self_draw", "kong_bloom"}


def test_a_heavenly_win_on_the_dealt_tiles_has_no_kong_bloom_whatever_the_switch() -> None:
    """§7 kong_bloom_with_heavenly_win adds 槓上開花 to a 天胡 won on a replacement; the
    dealer's 門牌 is dealt from the front, so a 天胡 on the dealt 17 tiles has none."""
    t = Script(quiet({0: READY_17}), profile={"rules": {"kong_bloom_with_heavenly_win": True}})
    t.win(0)
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 0)
    assert {i.id for i in hand.items} == {"heavenly_win"}


# --- the deal after a gap or a hand not judged (§2 連莊; the deal learnt from the table) --


def test_after_a_gap_between_judged_hands_the_same_dealer_keeps_its_streak() -> None:
    """Seat 0 wins its deal (連莊: 連1 next). Events are lost between hands and seat 0
    deals again: nothing says a hand was lost, so the deal the last judged hand gave
    stands, as the next hand's record says (連1)."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    assert t.hand().next is not None and (t.hand().next.dealer, t.hand().next.streak) == (0, 1)
    t.skip(3)
    t.new_hand(quiet(), dealer=0)
    t.discard(0, "2m")
    t.burn(0)
    drawn = t.hands()[1]
    assert (drawn.result, drawn.dealer, drawn.streak, drawn.round_wind) == ("drawn", 0, 1, "E")
    assert t.violations() == []


def test_after_an_unseen_hand_the_deal_back_at_the_first_dealer_moves_the_round_on() -> None:
    """Seat 3 deals the 東 round's last deal (起莊位 seat 0); events of its hand are lost,
    so it is not judged. Seat 0 takes the next deal's first tiles: the deal passed (§2), and
    back at the 起莊位 the round wind moves on: 南, 連0."""
    t = Script(quiet(dealer=3), dealer=3)
    t.skip()
    t.discard(3, "2m")  # the gap: this hand is not judged
    t.new_hand(quiet(), dealer=0)
    assert t.violations() == []
    t.discard(0, "2m")
    t.burn(0)
    drawn = t.hand()
    assert (drawn.result, drawn.dealer, drawn.streak, drawn.round_wind) == ("drawn", 0, 0, "S")


def test_after_an_unseen_hand_a_seat_across_dealing_is_a_new_dealer() -> None:
    """Seat 0's hand is not judged (events lost); seat 2, neither the dealer nor the next
    seat, takes the next deal's first tiles: followed as the new dealer at 連0, the round
    wind as it was (東), and nobody is blamed."""
    t = Script(quiet())
    t.skip()
    t.discard(0, "2m")  # the gap: this hand is not judged
    t.new_hand(quiet(dealer=2), dealer=2)
    assert t.violations() == []
    t.discard(2, "2m")
    t.burn(0)
    drawn = t.hand()
    assert (drawn.result, drawn.dealer, drawn.streak, drawn.round_wind) == ("drawn", 2, 0, "E")


# --- 補花 in passes (§2) -------------------------------------------------------------------

DEALER_H1 = "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 5s 5s 5s h1 2m"
SEAT1_H2 = "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h2"


def test_a_flower_revealed_out_of_its_pass_is_flagged_once() -> None:
    """§2 補花 goes in turn from the dealer. Seat 1 lays its h2 face up while the dealer
    still owes the replacement of its h1: replacement_order, told in words. Seat 1's
    replacement is h3, a flower drawn as a replacement, replaced in the next pass; the
    dealer then draws its own, seat 1 replaces h3, and play goes on: flagged once."""
    t = Script(quiet({0: DEALER_H1, 1: SEAT1_H2}))
    t.flower(0, "h1")
    seq = t.seq + 1
    out = t.flower(1, "h2")
    assert out[0].detail == "seat 1 revealed a flower out of its 補花 pass"  # type: ignore[union-attr]
    t.replacement(1, "h3")
    t.replacement(0, "2s")
    t.flower(1, "h3")
    t.replacement(1, "3s")
    t.discard(0, "2m")
    assert t.violations() == [(seq, 1, "replacement_order")]
    assert t.faults() == []
    assert t.seat_state(1)["flowers"] == ["h2", "h3"]
    assert t.seat_state(1)["owed_replacements"] == 0


def test_a_flower_laid_face_up_during_the_deal_is_replaced_after_it() -> None:
    """The dealer's first dealt tile is h1 and it lays it face up before the deal is done;
    it draws its replacement from the 槓尾 once the deal is over, as the 補花 (§2) that
    starts with the dealer: nobody is blamed, nothing is impossible."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    rounds = {s: QUIET[s].split() for s in range(4)}
    rounds[0] = ["h1", *rounds[0][1:]]  # a flower dealt first, in place of a P
    for r in range(4):
        for s in range(4):
            for code in rounds[s][4 * r : 4 * r + 4]:
                t.draw(s, code)
        if r == 0:
            t.flower(0, "h1")
    t.draw(0, "2m")
    t.replacement(0, "3s")
    t.discard(0, "2m")
    assert t.violations() == [] and t.faults() == []
    assert t.seat_state(0)["flowers"] == ["h1"]
    assert t.seat_state(0)["owed_replacements"] == 0
    assert t.seat_state(0)["concealed_count"] == 16


def test_a_flower_revealed_from_the_wall_is_impossible() -> None:
    """Seat 1 is reported laying h1 face up, a flower still in the wall: an event that
    cannot happen (impossible), its detail naming the flower and where it is."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1)
    seq = t.seq + 1
    out = t.emit({"kind": "flower_revealed", "seat": 1, "tile": FLOWER_BASE})
    assert t.faults(out) == [(seq, "impossible")]
    assert out[0].detail == (  # type: ignore[union-attr]
        f"seat 1 revealed h1 (id {FLOWER_BASE}), which is still in the wall"
    )
    assert t.violations() == []


def test_after_a_flower_revealed_out_of_its_pass_the_dealer_replaces_first() -> None:
    """§2: the 補花 starts with the dealer. Seat 1 lays its h2 face up before the dealer
    has replaced its h1 (flagged); the dealer then draws its replacement, first as the
    rule says, and is not flagged for going before seat 1."""
    t = Script(quiet({0: DEALER_H1, 1: SEAT1_H2}))
    t.flower(0, "h1")
    seq = t.seq + 1
    t.flower(1, "h2")
    t.replacement(0, "2s")
    t.replacement(1, "3s")
    t.discard(0, "2m")
    assert t.violations() == [(seq, 1, "replacement_order")]


def test_a_replacement_drawn_early_is_flagged_once_and_its_flower_waits_one_pass() -> None:
    """§2: a flower drawn as a replacement is replaced in the next pass, after the other
    seats have had theirs. The dealer's replacement for h1 is h5, which it replaces at once
    (h6, while seat 1 still holds its dealt h2): one tile out of order, flagged. h6 was
    drawn while the first pass went round, so it is replaced in the second, where the
    dealer goes first: the dealer's h6 before seat 1's h7 is in order, and the one early
    draw is one violation, not one for each pass after it."""
    t = Script(quiet({0: DEALER_H1, 1: SEAT1_H2}))
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.flower(0, "h5")
    seq = t.seq + 1
    out = t.replacement(0, "h6")
    assert out[0].detail == (  # type: ignore[union-attr]
        "seat 0 drew a 補花 replacement of pass 2 before seat 1 had its turn"
    )
    t.flower(1, "h2")
    t.replacement(1, "h7")
    t.flower(0, "h6")
    t.replacement(0, "2s")
    t.flower(1, "h7")
    t.replacement(1, "3s")
    t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "replacement_order")]
    assert t.faults() == []


def test_flowers_laid_face_up_during_the_deal_are_not_judged_by_the_passes() -> None:
    """§2: 補花 comes *after dealing*, in passes from the dealer. Two seats that lay a
    flower face up while the tiles are still being dealt have not replaced out of a pass
    that has not begun: no replacement_order (the passes are judged from the deal's end)."""
    t = Script(quiet(), deal=False)
    t.open_hand()
    for seat, dealt in ((0, "1m 1m 1m 2m"), (1, "h2 3m 3m 3m"), (2, "h3 4m 4m 4m")):
        for code in dealt.split():
            t._take(seat, t.alloc(code), "front")
    assert t.mirror.hand is not None and t.mirror.hand.phase == "dealing"
    t.flower(1, "h2")
    t.flower(2, "h3")
    assert t.violations() == []
    assert t.faults() == []


def test_a_flower_drawn_in_the_first_pass_is_replaced_in_the_second_from_the_dealer() -> None:
    """§2: flowers drawn as replacements are replaced in the next pass, which goes round
    from the dealer again. Seat 1 replaces its dealt h2 before the dealer has had its turn
    (flagged) and draws h6; the dealer then replaces h1 and draws h5. Both flowers belong to
    the second pass, the dealer's first: seat 1 replacing h6 while the dealer still holds
    h5 takes a tile out of its order again."""
    t = Script(quiet({0: DEALER_H1, 1: SEAT1_H2}))
    t.flower(1, "h2")
    early = t.seq + 1
    t.replacement(1, "h6")
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.flower(1, "h6")
    again = t.seq + 1
    out = t.replacement(1, "3s")
    assert out[0].detail == (  # type: ignore[union-attr]
        "seat 1 drew a 補花 replacement of pass 2 before seat 0 had its turn"
    )
    t.flower(0, "h5")
    t.replacement(0, "2s")
    t.discard(0, "2m")
    assert t.violations() == [
        (early, 1, "replacement_order"),
        (again, 1, "replacement_order"),
    ]
    assert t.faults() == []


def test_a_flower_drawn_as_a_replacement_from_the_front_waits_for_the_next_pass() -> None:
    """§2: flowers drawn as replacements are replaced in the next pass; a replacement taken
    from the front is still the replacement (wrong_end). The dealer replaces h1 from the
    front and draws h5: h5 waits for the second pass, so seat 1 replacing its dealt h2 in
    the first is in its order, and so is the dealer replacing h5 after it."""
    t = Script(quiet({0: DEALER_H1, 1: SEAT1_H2}))
    t.flower(0, "h1")
    seq = t.seq + 1
    t.replacement(0, "h5", end="front")
    t.flower(1, "h2")
    t.replacement(1, "3s")
    t.flower(0, "h5")
    t.replacement(0, "2s")
    t.discard(0, "2m")
    assert t.violations() == [(seq, 0, "wrong_end")]
    assert t.faults() == []


def test_a_flower_the_dealer_draws_for_a_kong_before_the_first_discard_goes_first() -> None:
    """§2 補花 goes in turn from the dealer. The dealer lays down an 暗槓 before the first
    discard and its replacement is h1, which it still holds: the dealer has a flower of the
    first pass to replace, so seat 1 replacing its dealt h2 before it is out of its order."""
    t = Script(quiet({1: SEAT1_H2}))
    t.kong(0, "P", "concealed")
    t.replacement(0, "h1")
    t.flower(1, "h2")
    seq = t.seq + 1
    out = t.replacement(1, "3s")
    assert out[0].detail == (  # type: ignore[union-attr]
        "seat 1 drew a 補花 replacement of pass 1 before seat 0 had its turn"
    )
    t.flower(0, "h1")
    t.replacement(0, "2s")
    t.discard(0, "2m")
    assert t.violations() == [(seq, 1, "replacement_order")]


def test_the_dealer_replaces_its_dealt_flower_first_whatever_another_seat_drew() -> None:
    """§2 補花 starts with the dealer. Seat 1 lays down an 暗槓 out of turn before it
    (out_of_turn) and its replacement is h5, which it keeps; the dealer then replaces its
    dealt h1: in its order, nothing more flagged."""
    t = Script(quiet({0: DEALER_H1}))
    seq = t.seq + 2  # the button, then the meld
    t.kong(1, "E", "concealed")
    t.replacement(1, "h5")
    t.flower(0, "h1")
    t.replacement(0, "2s")
    assert t.violations() == [(seq, 1, "out_of_turn")]
