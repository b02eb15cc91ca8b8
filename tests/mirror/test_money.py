"""Money: each hand's `net` sums to zero and is what `mjtable settle` gives (taiwan16.md §6)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table_service.mirror.records import HandRecord
from tests.mirror.kit_script import QUIET, Script, quiet, settled

READY_1 = "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"  # seat 1 waits 6p 9p
READY_2 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2 waits 6s 9s


def discard_win() -> Script:
    t = Script(quiet({1: READY_1}, extra="9p"), streak=2)
    t.discard(0, "9p")
    t.win(1)
    return t


def self_draw_win() -> Script:
    t = Script(quiet({2: READY_2}), streak=1)
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "9s")
    t.win(2)
    return t


def false_win_dealer() -> Script:
    t = Script(quiet({0: QUIET[0] + " 2m"}), streak=1)
    t.win(0)
    return t


def false_win_other() -> Script:
    t = Script(quiet({2: READY_2}), streak=1)
    t.discard(0, "2m")
    t.win(2)
    return t


def small_stakes() -> Script:
    t = Script(quiet({1: READY_1}, extra="9p"), base=50, per_tai=10)
    t.discard(0, "9p")
    t.win(1)
    return t


SCENARIOS: dict[str, Callable[[], Script]] = {
    "discard_win": discard_win,
    "self_draw_win": self_draw_win,
    "false_win_dealer": false_win_dealer,
    "false_win_other": false_win_other,
    "small_stakes": small_stakes,
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_net_sums_to_zero_and_matches_settle(name: str) -> None:
    t = SCENARIOS[name]()
    hand = t.hand()
    session = t.session
    assert sum(hand.net) == 0
    assert hand.net == settled(hand, session.base, session.per_tai)
    assert sum(p.amount for p in hand.payments if p.payee == hand.seat) >= 0
    assert t.mirror.totals == hand.net


def test_discard_win_amounts() -> None:
    """Seat 1 wins on the dealer's discard, dealer on 連2: the dealer pays 底 + (台 + 5) 台錢."""
    hand = discard_win().hand()
    assert (hand.kind, hand.payer, hand.dealer_tai) == ("discard", 0, 5)
    pay = 100 + (hand.tai + 5) * 20
    assert hand.net == [-pay, pay, 0, 0]


def test_self_draw_amounts() -> None:
    """Seat 2 self-draws, dealer on 連1: each pays 底 + 台, the dealer 3 dealer 台 more."""
    hand = self_draw_win().hand()
    assert hand.kind == "self_draw"
    each = 100 + hand.tai * 20
    assert hand.net == [-(each + 60), -each, 3 * each + 60, -each]


def test_dealer_false_win_pays_dealer_tai_to_each() -> None:
    hand = false_win_dealer().hand()
    assert (hand.result, hand.seat, hand.tai) == ("false_win", 0, 0)
    assert hand.net == [-3 * 160, 160, 160, 160]


def test_totals_over_hands_sum_to_zero() -> None:
    t = discard_win()
    first: HandRecord = t.hand()
    t.new_hand(quiet({2: READY_2}, dealer=1, extra="6s"))
    t.discard(1, "6s")
    t.win(2)
    second = t.hands()[-1]
    assert (second.dealer, second.payer, second.seat) == (1, 1, 2)
    assert t.mirror.totals == [a + b for a, b in zip(first.net, second.net, strict=True)]
    assert sum(t.mirror.totals) == 0
