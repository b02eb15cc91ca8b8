"""Worked cases for mirror.py's survivors of bench/mutation.py (replay-format.md: sessions,
faults, hand records)."""

from __future__ import annotations

import pytest

from table_service.mirror.mirror import TableMirror
from table_service.mirror.session import SessionStart
from tests.mirror.script import Script, quiet

READY_17 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"  # a dealt winning hand


def test_a_session_started_after_a_hand_ended_finds_no_hand_unseen() -> None:
    """replay-format.md: a later session line ends the running session and starts another;
    the hand before it was over, so no hand is cut in its middle: no fault."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    assert t.hand().result == "win"
    out = t.mirror.start_session(SessionStart(table=t.table, dealer=1))
    assert out == []


def test_a_gap_between_hands_then_a_shuffle_seen_judges_the_new_hand() -> None:
    """replay-format.md: hand_unseen is for a hand not seen from its start. Events are lost
    after a hand ended (a gap), and the next hand is seen from its shuffle: it is judged,
    one gap fault and no hand_unseen."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.skip(3)
    t.new_hand(quiet({0: READY_17}))
    t.win(0)
    assert [code for _, code in t.faults()] == ["gap"]
    assert [h.result for h in t.hands()] == ["win", "win"]


def test_a_boot_that_begins_past_seq_1_still_counts_a_resent_event_as_a_duplicate() -> None:
    """replay-format.md: an event already seen changes nothing and is counted; the first
    events of this boot are missing (a gap), the one resent is not one of them."""
    t = Script(quiet(), deal=False)
    t.skip(4)
    t.open_hand()
    assert t.faults() == [(5, "gap")]
    assert t.resend(0) == []
    assert t.mirror.duplicates == 1


WAITS_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s 5m 5m"  # seat 0: waits 6s 9s


def test_after_a_new_jiang_the_deal_goes_on_as_usual() -> None:
    """§2: the 北 round's last dealer loses: the 將 is over and the next starts at the 起莊位
    (seat 0) at 連0, 東; seat 0 then wins as dealer and keeps the deal: 連1."""
    hands = quiet({0: WAITS_6S, 3: "C C C C F F F F 1m 1m 1m 1m 9m 9m 9m 9m 6s"}, dealer=3)
    t = Script(hands, dealer=3, start_seat=0, round_wind="N")
    t.discard(3, "6s")
    t.win(0)
    t.new_hand(quiet({0: READY_17}), dealer=0)
    t.win(0)
    t.new_hand(quiet({0: READY_17}), dealer=0)
    t.win(0)
    deals = [(h.dealer, h.streak, h.round_wind, h.seat) for h in t.hands()]
    assert deals == [(3, 0, "N", 0), (0, 0, "E", 0), (0, 1, "E", 0)]
    assert [h.hand for h in t.hands()] == [1, 2, 3]
    assert t.mirror.hands == 3


def test_a_heavenly_win_on_the_opening_replacement_in_a_later_hand() -> None:
    """Hand 2's dealer reveals its dealt flower and wins on the replacement: 天胡 (the
    opening 補花 is part of the deal), whatever the hand before it left behind."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.new_hand(quiet({0: READY_17.replace("8s 8s", "8s h1")}), dealer=0)
    t.flower(0, "h1")
    t.replacement(0, "8s")
    t.win(0)
    assert t.violations() == []
    assert [h.result for h in t.hands()] == ["win", "win"]
    assert "heavenly_win" in {i.id for i in t.hands()[1].items}


PAIR_2M = "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"  # seat 2: a pair of 2m


def drawn_on_a_2m() -> Script:
    """The last drawable tile: seat 3 draws and throws a 2m nobody wins on: 荒局."""
    t = Script(quiet({2: PAIR_2M}))
    t.discard(0, "2m")
    t.burn(1)
    assert t.next_seat == 3
    t.cycle(3, "2m")
    assert [h.result for h in t.hands()] == ["drawn"]
    return t


def test_a_pong_of_the_last_discard_after_the_drawn_hand_breaks_restriction_7() -> None:
    """D12: the 2m was discarded with no drawable tile left, so no 碰 of it (禁制 7); the
    next seat had not drawn, so the pong is not late."""
    t = drawn_on_a_2m()
    seq = t.seq + 2  # the button, then the meld
    t.pong(2, 3)
    assert t.violations() == [(seq, 2, "restriction_7")]


def test_a_drawn_hand_ends_once() -> None:
    """After 荒局 a seat draws from the reserve and discards: a breach, but the hand is not
    ended a second time."""
    t = drawn_on_a_2m()
    t.draw(0)
    t.discard(0, t.hand_codes(0).split()[-1])
    assert [h.result for h in t.hands()] == ["drawn"]
    assert t.mirror.hands == 1


MID_HAND = {
    "tile_drawn": {"kind": "tile_drawn", "seat": 1, "tile": 40, "end": "front"},
    "meld_exposed": {
        "kind": "meld_exposed",
        "seat": 1,
        "meld": "pong",
        "from_seat": 0,
        "tiles": [40, 41, 42],
    },
    "flower_revealed": {"kind": "flower_revealed", "seat": 1, "tile": 137},
    "seat_button": {"kind": "seat_button", "seat": 1, "button": "pass"},
    "hand_revealed": {"kind": "hand_revealed", "seat": 1, "tiles": [40, 41, 42]},
    "tiles_shown": {"kind": "tiles_shown", "seat": 1, "tiles": [40, 41]},
}


@pytest.mark.parametrize("kind", sorted(MID_HAND))
def test_past_a_gap_a_mid_hand_event_means_the_hands_start_was_lost(kind: str) -> None:
    """replay-format.md: a hand not seen from its start (its beginning in a gap) is one
    hand_unseen. After a hand ended, events are lost and the next one is a mid-hand event
    (no shuffle seen): that hand began in the hole."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.skip(5)
    t.emit(MID_HAND[kind])
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]


def test_a_mirror_with_no_session_yet_shows_the_defaults() -> None:
    """replay-format.md: every session key has a default (seat 0 deals, N 0, 東); nothing
    has been played or paid yet."""
    snap = TableMirror("t9").snapshot()
    assert (snap["dealer"], snap["streak"], snap["round_wind"], snap["start_seat"]) == (
        0,
        0,
        "E",
        0,
    )
    assert (snap["hands"], snap["totals"], snap["hand"]) == (0, [0, 0, 0, 0], None)


def test_the_mirror_counts_each_violation_once() -> None:
    """replay-format.md's summary counts the violations: one breach, one counted."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1, "3m", end="back")
    assert len(t.violations()) == 1
    assert t.mirror.violations == 1
    t.discard(1, "3m")
    t.draw(3, "4m")
    assert len(t.violations()) == 2
    assert t.mirror.violations == 2


def test_the_mirror_counts_each_fault() -> None:
    t = Script(quiet())
    t.skip()
    t.discard(0, "2m")
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]
    assert t.mirror.faults == 2


def test_a_discard_after_a_win_is_impossible() -> None:
    """replay-format.md: after the hand ended in a win no tile moves in it: a discard
    then is an event that cannot happen in this phase."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    seq = t.seq + 1
    t.emit({"kind": "tile_discarded", "seat": 1, "tile": t.concealed[1][0]})
    assert t.faults() == [(seq, "impossible")]
    assert t.violations() == []


def test_a_dealers_false_win_passes_the_deal() -> None:
    """§2: a dealer's 詐胡 passes the deal (下莊, N back to 0)."""
    t = Script(quiet())
    t.win(0)
    record = t.hand()
    assert (record.result, record.seat) == ("false_win", 0)
    assert record.next is not None
    assert (record.next.dealer, record.next.streak) == (1, 0)
