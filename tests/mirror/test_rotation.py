"""The deal's rotation (taiwan16.md §2): 連莊, 下莊, 荒局, the round wind and the end of a 將.

Sessions start mid-將 with SessionStart's dealer, streak, round_wind and start_seat.
"""

from __future__ import annotations

from table_service.mirror.records import HandRecord
from tests.mirror.kit_script import Script, quiet, settled

READY_1 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1 waits 6p 9p
READY_DEALER = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p P P 3p"  # seat 0: 3p out, waits 6p 9p


def nxt(hand: HandRecord) -> tuple[int, int, str] | None:
    return None if hand.next is None else (hand.next.dealer, hand.next.streak, hand.next.round_wind)


def seat_1_wins(dealer: int = 0, **session: object) -> Script:
    """Seat 1 wins on the dealer's first discard (9p)."""
    t = Script(quiet({1: READY_1}, dealer=dealer, extra="9p"), dealer=dealer, **session)  # type: ignore[arg-type]
    if dealer == 1:
        raise ValueError("seat 1 is the winner")
    t.discard(dealer, "9p")
    t.win(1)
    assert t.violations() == []
    return t


def test_dealer_win_keeps_the_deal() -> None:
    t = Script(quiet({0: READY_DEALER}))
    t.discard(0, "3p")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "6p")
    t.win(0)
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 0)
    assert nxt(hand) == (0, 1, "E")
    assert hand.net == settled(hand)


def test_drawn_hand_at_the_reserve_keeps_the_deal() -> None:
    """荒局: the last drawable tile is discarded and nobody wins; 16 tiles stay in the wall."""
    t = Script(quiet(), streak=2)
    t.discard(0, "2m")
    t.burn(0)
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer, hand.net) == (
        "drawn",
        None,
        None,
        None,
        [0, 0, 0, 0],
    )
    assert t.wall == 16 and t.mirror.snapshot()["hand"]["tiles_left"] == 16
    assert (hand.streak, nxt(hand)) == (2, (0, 3, "E"))
    assert (hand.tai, hand.dealer_tai, hand.items, hand.payments) == (0, 0, [], [])
    assert t.faults() == [] and t.violations() == []


def test_non_dealer_win_passes_the_deal() -> None:
    t = seat_1_wins(streak=3)
    hand = t.hand()
    assert (hand.dealer, hand.streak, hand.dealer_tai) == (0, 3, 7)
    assert nxt(hand) == (1, 0, "E")


def test_non_dealer_false_win_keeps_the_dealer_without_adding() -> None:
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}), streak=2)
    t.discard(0, "2m")
    t.win(2)
    hand = t.hand()
    assert (hand.result, hand.seat) == ("false_win", 2)
    assert nxt(hand) == (0, 2, "E")


def test_dealer_false_win_passes_the_deal() -> None:
    t = Script(quiet({0: READY_DEALER}), streak=2)
    t.discard(0, "3p")
    t.cycle(1, "4m")
    seq = t.seq + 1
    t.win(0)
    assert t.violations() == [(seq, 0, "false_win")]
    hand = t.hand()
    assert (hand.result, hand.seat) == ("false_win", 0)
    assert nxt(hand) == (1, 0, "E")
    # the dealer pays each of the three 底 + its dealer 台 (1 + 2·2)
    assert hand.net == [-3 * (100 + 5 * 20), 200, 200, 200]


def test_round_wind_advances_when_the_deal_returns_to_the_start_seat() -> None:
    t = seat_1_wins(dealer=3, start_seat=0, round_wind="E")
    assert nxt(t.hand()) == (0, 0, "S")


def test_round_wind_with_another_start_seat() -> None:
    """The 起莊位 is seat 2: seat 1's deal passing on starts the 南 round at seat 2."""
    ready_3 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p C C"  # waits 6p 9p
    t = Script(quiet({3: ready_3}, dealer=1, extra="6p"), dealer=1, start_seat=2, streak=1)
    t.discard(1, "6p")
    t.win(3)
    hand = t.hand()
    assert (hand.result, hand.seat, hand.payer, hand.dealer_tai) == ("win", 3, 1, 3)
    assert nxt(hand) == (2, 0, "S")
    assert hand.net == settled(hand)


def test_dealer_win_does_not_advance_the_wind() -> None:
    """連莊 at the seat before the 起莊位: the wind stays."""
    t = Script(quiet(dealer=3), dealer=3, round_wind="S")
    t.discard(3, "2m")
    t.burn(0)
    assert nxt(t.hand()) == (3, 1, "S")


def test_the_jiang_ends_after_the_north_round() -> None:
    """北 round, the last dealer before the 起莊位 passes the deal: the 將 is over (`next`
    null); the next hand starts a new 將 at the 起莊位, 東 round, 連0."""
    t = seat_1_wins(dealer=3, start_seat=0, round_wind="N", streak=1)
    hand = t.hand()
    assert (hand.round_wind, hand.dealer, hand.streak) == ("N", 3, 1)
    assert hand.next is None
    t.new_hand(quiet(), dealer=0)
    t.discard(0, "2m")
    t.burn(0)
    new = t.hands()[-1]
    assert (new.round_wind, new.dealer, new.streak) == ("E", 0, 0)
    assert t.faults() == []


def test_north_round_dealer_win_continues() -> None:
    t = Script(quiet(dealer=3), dealer=3, start_seat=0, round_wind="N")
    t.discard(3, "2m")
    t.burn(0)
    assert nxt(t.hand()) == (3, 1, "N")


# --- 海底 ---------------------------------------------------------------------------------

READY_3 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p C C"  # seat 3 waits 6p 9p


def test_last_tile_self_draw() -> None:
    """海底撈月: seat 3 wins on the last drawable tile."""
    t = Script(quiet({3: READY_3}))
    t.discard(0, "2m")
    t.burn(1)
    assert t.next_seat == 3
    t.draw(3, "6p")
    assert t.drawable == 0
    t.win(3)
    assert t.violations() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 3)
    assert "last_tile" in {i.id for i in hand.items}
    assert hand.net == settled(hand)


def test_win_on_the_last_discard() -> None:
    """The 海底 drawer's discard completes seat 1's hand: a win, not 荒局."""
    t = Script(quiet({1: READY_1}))
    t.discard(0, "2m")
    t.burn(1)
    t.cycle(3, "9p")
    assert t.drawable == 0 and t.hands() == []
    t.win(1)
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 1, 3)
    assert "last_tile" not in {i.id for i in hand.items}
    assert t.violations() == []


def test_last_discard_let_go_is_drawn() -> None:
    """Nobody takes the last discard: 荒局 once the stream ends."""
    t = Script(quiet({1: READY_1}))
    t.discard(0, "2m")
    t.burn(1)
    t.cycle(3, "9p")
    t.button(1, "pass")
    t.finish()
    assert t.hand().result == "drawn"
    assert t.violations() == []
