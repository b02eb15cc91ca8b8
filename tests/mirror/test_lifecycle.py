"""The hand's lifecycle outside play: events out of place, and the referee's correction of
the deal (replay-format.md; the service's `deal` correction calls `correct_deal`)."""

from __future__ import annotations

from table_service.mirror.mirror import TableMirror
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import FULL_WALL, TABLE, Script, quiet


def test_shuffle_finished_with_no_shuffle_started_is_a_fault() -> None:
    t = Script(deal=False)
    t.emit({"kind": "shuffle_finished"})
    assert t.faults() == [(1, "impossible")]
    assert t.records[0].detail == "shuffle finished with no shuffle started"  # type: ignore[union-attr]
    t.emit({"kind": "shuffle_started"})
    t.emit({"kind": "shuffle_finished"})
    assert t.faults() == [(1, "impossible")]  # in its place, nothing


def test_controller_status_events_change_nothing() -> None:
    t = Script(quiet())
    before = t.mirror.snapshot(concealed=True)
    t.emit({"kind": "fault", "code": "jam", "unit": 2, "active": 1})
    t.emit({"kind": "state", "phase": "playing", "tiles_left": t.wall, "turn": 0, "dealer": 0})
    t.emit({"kind": "command_refused", "command_seq": 7, "command_type": 32, "reason": "not_now"})
    assert t.records[len(t.deal_records) :] == []
    assert t.mirror.snapshot(concealed=True) == before


def test_a_correction_with_no_hand_yet_sets_the_next_deal() -> None:
    mirror = TableMirror("t1")
    mirror.correct_deal(2, 3, 1)
    got = mirror.snapshot()
    assert (got["dealer"], got["streak"], got["round_wind"], got["hand"]) == (2, 3, "S", None)


def test_a_correction_before_the_roll_moves_the_deal_being_set_up() -> None:
    """Between the shuffle and the deal roll no tile has moved: the corrected dealer deals."""
    t = Script(deal=False)
    t.emit({"kind": "shuffle_started"})
    t.mirror.correct_deal(2, 1, 0)
    assert t.mirror.snapshot()["hand"]["dealer"] == 2
    t.emit({"kind": "wall_built", **FULL_WALL})
    t.mirror.correct_deal(3, 0, 0)
    assert t.mirror.snapshot()["hand"]["dealer"] == 3


def test_a_deal_ruling_during_play_applies_from_the_next_hand() -> None:
    """A ruling on the deal made while a hand is under way changes nothing of that hand
    (its dealer, streak and round stay on the board, its record is scored with them);
    its record's `next` is the ruled deal, and the next hand is dealt so."""
    t = Script(quiet())
    t.mirror.correct_deal(2, 1, 1)
    got = t.mirror.snapshot()
    assert (got["dealer"], got["streak"], got["round_wind"]) == (0, 0, "E")
    assert (got["hand"]["dealer"], got["hand"]["phase"]) == (0, "play")
    assert got["ruled_deal"] == {"dealer": 2, "streak": 1, "round_wind": "S"}
    t.discard(0, "2m")
    t.burn(0)
    t.finish()
    hand = t.hand()
    assert (hand.dealer, hand.streak, hand.round_wind) == (0, 0, "E")
    assert hand.next is not None
    assert (hand.next.dealer, hand.next.streak, hand.next.round_wind) == (2, 1, "S")
    t.emit({"kind": "shuffle_started"})
    got = t.mirror.snapshot()
    assert (got["dealer"], got["streak"], got["round_wind"], got["ruled_deal"]) == (2, 1, "S", None)
    assert got["hand"]["dealer"] == 2


def test_a_correction_after_the_last_hand_of_a_jiang_carries_on() -> None:
    """The 將 was over (the next shuffle would start a new one at the first dealer); the
    referee says play goes on from dealer 2: the next hand is dealt by seat 2, not reset."""
    t = Script(deal=False)
    t.mirror.jiang_over = True
    t.mirror.correct_deal(2, 1, 3)
    t.emit({"kind": "shuffle_started"})
    got = t.mirror.snapshot()
    assert (got["dealer"], got["streak"], got["round_wind"]) == (2, 1, "N")
    assert got["hand"]["dealer"] == 2


def test_the_next_hand_after_a_jiang_starts_a_new_jiang_however_it_opens() -> None:
    """Whichever event opens the next hand (a shuffle, or a wall built with no shuffle seen),
    the new 將 begins at its first dealer (start_seat), streak 0, round 東."""
    for opening in ({"kind": "shuffle_started"}, {"kind": "wall_built", **FULL_WALL}):
        t = Script(deal=False, dealer=3, streak=2, round_wind="N", start_seat=1)
        t.mirror.jiang_over = True
        t.emit(opening)
        got = t.mirror.snapshot()
        assert (got["dealer"], got["streak"], got["round_wind"]) == (1, 0, "E")
        assert got["hand"]["dealer"] == 1


def roll(t: Script, kind: str, dice: tuple[int, int, int]) -> None:
    d1, d2, d3 = dice
    t.emit({"kind": "dice_rolled", "roll": kind, "die_1": d1, "die_2": d2, "die_3": d3})


def test_a_wall_built_with_no_shuffle_is_a_fault_and_play_follows_the_table() -> None:
    t = Script(deal=False)
    t.emit({"kind": "wall_built", **FULL_WALL})
    assert t.faults() == [(1, "impossible")]
    assert t.records[-1].detail == "a wall built with no shuffle before it"  # type: ignore[union-attr]
    hand = t.mirror.snapshot()["hand"]
    assert (hand["phase"], hand["tiles_left"]) == ("built", 144)


def test_a_wall_of_the_wrong_size_is_a_count_mismatch() -> None:
    t = Script(deal=False)
    t.emit({"kind": "shuffle_started"})
    t.emit({"kind": "wall_built", **FULL_WALL, "stacks_2": 17})
    assert t.faults() == [(2, "count_mismatch")]
    assert t.records[-1].detail == "the wall has 71 stacks, not 72"  # type: ignore[union-attr]
    assert t.mirror.snapshot()["hand"]["tiles_left"] == 142  # the table's count is followed


def test_the_dealer_roll_between_hands_sets_the_first_dealer() -> None:
    """定莊 (§2): rolled at seat 0; the total counts seats from it (1 = seat 0)."""
    for dice, first in (((1, 2, 2), 0), ((1, 2, 3), 1), ((1, 2, 4), 2), ((2, 3, 3), 3)):
        t = Script(deal=False, dealer=3, streak=2, round_wind="S", start_seat=3)
        roll(t, "dealer", dice)
        got = t.mirror.snapshot()
        assert (got["dealer"], got["start_seat"], got["streak"], got["round_wind"]) == (
            first, first, 0, "E",
        )  # fmt: skip
        assert t.faults() == []


def test_a_seating_roll_between_hands_changes_nothing() -> None:
    t = Script(deal=False, dealer=2, streak=1)
    roll(t, "seating", (6, 6, 6))
    got = t.mirror.snapshot()
    assert (got["dealer"], got["streak"], got["hand"], t.faults()) == (2, 1, None, [])


def test_seating_and_dealer_rolls_in_the_middle_of_a_hand_are_faults() -> None:
    t = Script(quiet())
    seq = t.seq
    roll(t, "seating", (1, 2, 3))
    roll(t, "dealer", (1, 2, 3))
    assert t.faults() == [(seq + 1, "impossible"), (seq + 2, "impossible")]
    details = [r.detail for r in t.records[-2:]]  # type: ignore[union-attr]
    assert details == [
        "a seating roll in the middle of a hand",
        "a dealer roll in the middle of a hand",
    ]
    assert t.mirror.snapshot()["dealer"] == 0  # the deal stands


def test_a_deal_roll_with_no_wall_is_a_fault() -> None:
    t = Script(deal=False)
    roll(t, "deal", (1, 2, 2))
    assert t.faults() == [(1, "impossible")]
    assert t.records[-1].detail == "a deal roll with no wall built"  # type: ignore[union-attr]
    assert t.mirror.snapshot()["hand"]["opening_seat"] == 0


def test_a_win_pressed_and_never_revealed_is_judged_when_play_moves_on() -> None:
    """The next event that is not the reveal (nor a rival 胡) closes the claim: judged on
    the mirror's own picture of the hand."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"}, extra="9p"))
    t.discard(0, "9p")
    t.button(1, "win")
    assert t.hands() == []
    t.emit({"kind": "shuffle_started"})
    (hand,) = t.hands()
    assert (hand.result, hand.seat, hand.payer) == ("win", 1, 0)


def test_the_tables_count_of_tiles_left_is_followed_after_a_mismatch() -> None:
    t = Script(quiet())
    left = t.mirror.snapshot()["hand"]["tiles_left"]
    seq = t.seq + 1
    t.emit({"kind": "tiles_left", "count": left - 3})
    assert t.faults() == [(seq, "count_mismatch")]
    assert t.records[-1].detail == (  # type: ignore[union-attr]
        f"the table counts {left - 3} tiles left, the mirror {left}"
    )
    assert t.mirror.snapshot()["hand"]["tiles_left"] == left - 3
    t.emit({"kind": "tiles_left", "count": left - 3})
    assert len(t.faults()) == 1


def test_the_deal_roll_is_kept_with_the_hand() -> None:
    t = Script(quiet(), dice=(2, 3, 6))
    hand = t.mirror.snapshot()["hand"]
    assert (hand["dice"], hand["opening_seat"]) == ([2, 3, 6], 2)  # total 11 from the dealer


def test_a_dealer_roll_after_a_hand_is_over_sets_the_next_hands_dealer() -> None:
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(0)
    assert [h.result for h in t.hands()] == ["drawn"]
    roll(t, "dealer", (1, 2, 4))  # total 7: seat 2
    got = t.mirror.snapshot()
    assert (got["dealer"], got["streak"], got["hand"]["dealer"]) == (2, 0, 2)


def test_a_session_asked_for_during_a_claim_lets_the_hand_finish_first() -> None:
    """start_session during a hand: the hand in progress is finished in its own session
    (the 胡 pressed is judged, no fault); the session begins at the next shuffle."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"}, extra="9p"))
    t.discard(0, "9p")
    t.button(1, "win")
    assert t.mirror.start_session(SessionStart(table=TABLE, dealer=2)) == []
    t.reveal(1)
    (hand,) = t.hands()
    assert (hand.result, hand.seat, hand.payer, hand.winning_tile) == ("win", 1, 0, "9p")
    assert t.violations() == [] and t.faults() == []
    t.new_hand(quiet(dealer=2), dealer=2)
    state = t.mirror.snapshot()
    assert (state["hand"]["dealer"], state["streak"], state["hands"]) == (2, 0, 0)
    assert t.violations() == [] and t.faults() == []


def test_a_session_started_before_the_deal_owns_the_hand() -> None:
    """No tile has moved yet (the table is shuffling): the hand is the session's, judged."""
    t = Script()
    t.emit({"kind": "shuffle_started"})
    assert t.mirror.start_session(SessionStart(table=TABLE, dealer=1, streak=2)) == []
    t.emit({"kind": "shuffle_finished"})
    t.emit({"kind": "wall_built", **FULL_WALL})
    t.emit({"kind": "dice_rolled", "roll": "deal", "die_1": 1, "die_2": 2, "die_3": 2})
    for code in ["E", "E", "E", "E"]:
        t.draw(1, code)  # the session's dealer takes the first four
    assert t.records == []
    assert t.mirror.hand is not None and t.mirror.hand.dealer == 1
    assert t.mirror.snapshot()["hand"]["judged"] is True
    assert (t.mirror.deal.dealer, t.mirror.deal.streak) == (1, 2)


def test_a_ruling_before_the_first_event_stands_under_the_default_session() -> None:
    """A stream with no session line plays by the defaults; a deal ruled and money moved
    before its first event are not undone by that default (the session starts nothing)."""
    t = Script(deal=False)
    mirror = TableMirror(t.table)
    t.mirror = mirror
    mirror.correct_deal(2, 3, 1)
    mirror.pay([(0, -100), (1, 100)])
    t.emit({"kind": "shuffle_started"})
    got = mirror.snapshot()
    assert (got["dealer"], got["streak"], got["round_wind"]) == (2, 3, "S")
    assert got["totals"] == [-100, 100, 0, 0]
    assert got["players"] == ["0", "1", "2", "3"] and got["hand"]["dealer"] == 2
