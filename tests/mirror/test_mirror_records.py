"""Worked cases for mirror.py's survivors of bench/mutation.py (replay-format.md: sessions,
faults, hand records)."""

from __future__ import annotations

import pickle
from collections.abc import Iterable

import pytest

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault
from table_service.mirror.seqs import BootSeqs
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import FULL_WALL, QUIET, Script, quiet

READY_17 = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 8s"  # a dealt winning hand
READY_69S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # seat 2: waits 6s 9s
ALSO_6S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 5s 7s C C"  # seat 3: waits 6s alone


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


# --- sessions, gaps and hands not seen from their start (replay-format.md) -------------


def built_wall(t: Script) -> None:
    """A shuffle and a wall: the hand is set up, no tile has moved, no deal roll yet."""
    t.emit({"kind": "shuffle_started"})
    t.emit({"kind": "shuffle_finished"})
    t.emit({"kind": "wall_built", **FULL_WALL})


def test_a_session_started_once_the_wall_is_built_owns_the_hand() -> None:
    """The wall is built but no tile has moved: the hand is the session's, dealt by its
    dealer (the state shows it before the roll), and judged: no hand_unseen."""
    t = Script(deal=False)
    built_wall(t)
    assert t.mirror.start_session(SessionStart(table=t.table, dealer=2)) == []
    hand = t.mirror.snapshot()["hand"]
    assert (hand["phase"], hand["dealer"], hand["judged"]) == ("built", 2, True)
    t.emit({"kind": "dice_rolled", "roll": "deal", "die_1": 1, "die_2": 2, "die_3": 2})
    for code in ["E", "E", "E", "E"]:
        t.draw(2, code)  # the session's dealer takes the first four
    assert t.records == []


def unseen_detail(t: Script) -> str:
    (fault,) = [r for r in t.records if isinstance(r, Fault) and r.code == "hand_unseen"]
    return fault.detail


def test_a_gap_in_the_middle_of_a_hand_names_the_first_seq_after_it() -> None:
    """Events are lost during play: the hand in progress is no longer seen whole."""
    t = Script(quiet())
    t.skip(2)
    seq = t.seq + 1
    t.discard(0, "2m")
    assert t.faults() == [(seq, "gap"), (seq, "hand_unseen")]
    assert unseen_detail(t) == (
        f"events before seq {seq} are missing: the hand is followed without judging "
        "until the next shuffle"
    )


def test_a_gap_between_hands_that_swallowed_the_next_start_says_so() -> None:
    """A hand ended, events are lost, and the next event is a draw in a hand whose
    shuffle and deal were never seen: its start is in the hole."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.skip(3)
    seq = t.seq + 1
    t.draw(1)
    assert t.faults() == [(seq, "gap"), (seq, "hand_unseen")]
    assert unseen_detail(t) == (
        f"events before seq {seq} are missing, the hand's start with them: the hand is "
        "followed without judging until the next shuffle"
    )


def test_a_hand_joined_in_its_middle_follows_the_tables_count() -> None:
    """A hand whose start was lost is followed as the tiles come: the table's tiles_left
    is its count of the wall (no fault blamed on a hand not judged), as the state shows."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.skip(40)
    t.draw(1, count=False)
    t.emit({"kind": "tiles_left", "count": 60})
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen"]
    hand = t.mirror.snapshot(concealed=True)["hand"]
    assert (hand["phase"], hand["judged"], hand["tiles_left"]) == ("play", False, 60)
    assert hand["seats"][1]["concealed_ids"] == [t.concealed[1][-1]]  # a new hand: one tile


def test_a_hand_not_seen_from_its_start_ends_like_any_other() -> None:
    """Its win is not judged (no record, no money) but the hand is over, as the state
    shows, until the next shuffle."""
    t = Script(quiet({1: "2m 3m 4m 6m 7m 8m 2p 2p 2p 2s 3s 4s 7p 8p E E"}, extra="9p"))
    t.skip()
    t.discard(0, "9p")
    t.win(1)
    assert t.hands() == []
    hand = t.mirror.snapshot()["hand"]
    assert (hand["phase"], hand["judged"]) == ("over", False)
    assert t.mirror.totals == [0, 0, 0, 0]


def test_after_a_gap_between_hands_another_seat_dealing_takes_the_deal() -> None:
    """A gap between judged hands may hold whole hands: the next hand is dealt by seat 1,
    not by the last hand's dealer. The deal is learnt from who takes the first tiles
    (seat 1 at 連0); nobody is blamed for dealing out of turn."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    assert t.hand().next is not None and t.hand().next.dealer == 0
    t.skip(3)
    t.new_hand(quiet(dealer=1), dealer=1)
    t.discard(1, "2m")
    t.burn(0)
    assert t.violations() == []
    assert [code for _, code in t.faults()] == ["gap"]
    drawn = t.hands()[1]
    assert (drawn.result, drawn.dealer, drawn.streak) == ("drawn", 1, 0)


def test_a_count_while_a_win_waits_for_its_reveal_leaves_the_claim_open() -> None:
    """replay-format.md: tiles_left may follow any draw; a count is no play (D3). Seat 3
    presses 胡 on the 6s, the table counts, then seat 2 (nearer after the discarder)
    presses too: 攔胡, seat 2 wins, nobody is blamed."""
    t = Script(
        quiet(
            {0: QUIET[0].replace("5s 5s 5s 5s", "5s 5s 5s 8p 6s"), 2: READY_69S, 3: ALSO_6S},
            extra="6s",
        )
    )
    t.discard(0, "6s")
    t.button(3, "win")
    t.emit({"kind": "tiles_left", "count": t.wall})
    t.button(2, "win")
    t.reveal(2)
    assert t.violations() == [] and t.faults() == []
    hand = t.hand()
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 2, 0)


def test_a_deal_roll_after_a_hand_ended_with_no_wall_begins_a_new_hand() -> None:
    """The shuffle and wall of hand 2 are not seen (no gap: they were never sent): the
    deal roll is a fault, and the tiles dealt after it are a new hand's, judged from
    empty seats, not piled onto hand 1's."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    roll_seq = t.seq + 1
    t.emit({"kind": "dice_rolled", "roll": "deal", "die_1": 1, "die_2": 2, "die_3": 2})
    assert t.faults() == [(roll_seq, "impossible")]
    t._reset()
    dealt = {s: [t.alloc(c) for c in quiet({0: READY_17})[s].split()] for s in range(4)}
    for r in range(4):
        for seat in range(4):
            for tile in dealt[seat][4 * r : 4 * r + 4]:
                t.draw(seat, tile=tile, count=False)
    t.draw(0, tile=dealt[0][16], count=False)
    t.win(0)
    assert t.violations() == []
    assert t.faults() == [(roll_seq, "impossible")]
    assert [(h.result, h.seat) for h in t.hands()] == [("win", 0), ("win", 0)]


def test_the_last_hand_is_the_one_the_latest_record_closed() -> None:
    """table_sim/truth.py reads `last_hand` to compare the table's tiles: the hand the
    latest hand record closed, kept after the next shuffle begins a new one."""
    t = Script(quiet({0: READY_17}))
    assert t.mirror.last_hand is None
    t.win(0)
    closed = t.mirror.hand
    assert closed is not None and t.mirror.last_hand is closed
    t.emit({"kind": "shuffle_started"})
    assert t.mirror.hand is not closed
    assert t.mirror.last_hand is closed and closed.result == "win"


SEVEN_DEALT = "C C C F F F 1m 1m 3m h1 h2 h3 h4 h5 h6 h7"  # seat 3: seven dealt flowers
ONE_DEALT = "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s h8"  # seat 2: the eighth


def test_seven_flowers_win_on_another_seats_discard_as_a_discard_win() -> None:
    """D8: 配牌花胡 (seven dealt, another seat holding the eighth) is declared at the
    holder's own turn, paid by the eighth's holder. In hand 2 (hand 1 was judged) seat 3
    holds seven and seat 2 the eighth; seat 3 wins on seat 0's discard (seat 1's turn
    next): a win on a discard, the discarder pays, seat 2 pays nothing."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    t.new_hand(quiet({3: SEVEN_DEALT, 2: ONE_DEALT}), dealer=0)
    t.flower(2, "h8")
    t.replacement(2)
    for k in range(1, 8):
        t.flower(3, f"h{k}")
    for code in ["4m", "6p", "7p", "8p", "6s", "7s", "8s"]:
        t.replacement(3, code)  # C C C F F F 6p 7p 8p 6s 7s 8s 1m 1m 3m 4m: waits 2m 5m
    t.discard(0, "2m")
    t.win(3)
    assert t.violations() == []
    hand = t.hands()[1]
    assert (hand.result, hand.kind, hand.seat, hand.payer) == ("win", "discard", 3, 0)
    assert hand.net[1] == hand.net[2] == 0


# --- seqs: each boot's holes (seqs.py; replay-format.md: a gap is a fault, a duplicate
# changes nothing, a late event still counts) ---------------------------------------

STATUS = {"kind": "state", "phase": 0, "tiles_left": 0, "turn": 255, "dealer": 255}


def status(seq: int) -> Event:
    """A controller status event: it changes nothing in the game, only its seq counts."""
    return Event(table="t1", boot_id=1, seq=seq, ts=0.0, body=EVENT_BODY.validate_python(STATUS))


def admitted(mirror: TableMirror, seqs: Iterable[int]) -> list[int]:
    """The seqs of `seqs` the mirror took as new events (the others were duplicates)."""
    out = []
    for seq in seqs:
        events = mirror.events
        mirror.apply(status(seq))
        if mirror.events > events:
            out.append(seq)
    return out


def test_a_late_event_fills_a_wide_hole_from_its_first_seq() -> None:
    """Seq 1, then 300: 2–299 are missing. Each of them, the first included, still counts
    once when it comes late; sent again it is a duplicate."""
    mirror = TableMirror("t1")
    assert admitted(mirror, [1, 300, 2, 299, 150, 2, 150, 300]) == [1, 300, 2, 299, 150]
    assert (mirror.gaps, mirror.duplicates) == (1, 3)


def test_one_missing_seq_is_a_hole_a_late_event_fills() -> None:
    """Seq 1 then 3: seq 2 is missing (one gap); it comes late and counts; seq 3 resent
    is a duplicate, however the hole below it was kept."""
    mirror = TableMirror("t1")
    assert admitted(mirror, [1, 3, 3, 2, 2]) == [1, 3, 2]
    assert (mirror.events, mirror.duplicates, mirror.gaps) == (3, 2, 1)


def test_filling_one_hole_keeps_the_next() -> None:
    """Seqs 2 and 4 are missing; 2 comes, then 4: both count, then both are duplicates."""
    mirror = TableMirror("t1")
    assert admitted(mirror, [1, 3, 5, 2, 4, 2, 4, 6]) == [1, 3, 5, 2, 4, 6]


def test_a_boot_keeps_its_latest_1024_holes() -> None:
    """seqs.py: the holes kept per boot are bounded (1024); a late event in a forgotten one
    is a duplicate. With 1024 holes every one is still open; the 1025th forgets the
    oldest alone."""
    mirror = TableMirror("t1")
    odd = range(1, 2 * 1024 + 2, 2)  # 1, 3, …, 2049: holes 2, 4, …, 2048
    assert len(admitted(mirror, odd)) == 1025 and mirror.gaps == 1024
    assert admitted(mirror, [2, 2048]) == [2, 2048]
    mirror = TableMirror("t1")
    admitted(mirror, range(1, 2 * 1025 + 2, 2))  # holes 2, 4, …, 2050
    assert admitted(mirror, [2, 4, 6, 2050]) == [4, 6, 2050]


def test_a_long_run_without_holes_forgets_none() -> None:
    """One hole (seq 2), then 1100 events in order: in-order events open no hole, so the
    late seq 2 still counts."""
    mirror = TableMirror("t1")
    admitted(mirror, [1, 3, *range(4, 1104)])
    assert mirror.gaps == 1
    assert admitted(mirror, [2, 2]) == [2]


def test_a_mirror_pickled_when_holes_were_sets_admits_exactly_its_missing_seqs() -> None:
    """A mirror stored by an earlier revision (each boot's holes a set of seqs) reads on:
    the seqs it was missing count when they come, the others are duplicates."""
    mirror = TableMirror("t1")
    mirror._seen[1] = (13, {2, 3, 4, 7, 9, 10, 11})
    restored = pickle.loads(pickle.dumps(mirror))
    assert admitted(restored, range(1, 15)) == [2, 3, 4, 7, 9, 10, 11, 14]
    assert admitted(restored, range(1, 15)) == []
    assert restored.gaps == 0


def test_a_pickled_set_of_2000_missing_seqs_is_one_hole_and_kept_whole() -> None:
    """Converted from a set, a run of missing seqs is one hole, not one per seq: the holes
    kept are bounded (1024), but this one is a single hole and none of it is forgotten."""
    mirror = TableMirror("t1")
    mirror._seen[1] = (2005, set(range(2, 2002)))
    restored = pickle.loads(pickle.dumps(mirror))
    assert admitted(restored, [2, 1000, 2001, 2002, 1]) == [2, 1000, 2001]


def test_a_fresh_boots_seqs_have_seen_nothing() -> None:
    """BootSeqs: all of 1..top seen but the holes; a new one has seen no seq."""
    seqs = BootSeqs()
    assert (seqs.top, seqs.holes, seqs.missing()) == (0, [], 0)
    assert seqs.admit(1) and not seqs.admit(1)
    other = BootSeqs()
    assert other.admit(3) and other.holes == [(1, 2)] and seqs.holes == []


def test_the_missing_count_adds_each_holes_width() -> None:
    """missing(): how many seqs below the top are still missing."""
    seqs = BootSeqs()
    for seq in (1, 5, 6, 10):
        seqs.admit(seq)
    assert seqs.missing() == 3 + 3  # 2–4 and 7–9
    seqs.admit(3)
    assert seqs.missing() == 2 + 3


# --- a referee's rulings on the deal and the money -----------------------------------


def test_a_deal_ruling_during_the_deal_applies_from_the_next_hand() -> None:
    """The dice are rolled and tiles are being dealt: the hand is under way, so a deal
    ruling changes nothing of it (its record keeps dealer 0 at 連0, 東) and is its
    record's `next` (seat 2 at 連1, 南)."""
    t = Script(deal=False)
    hands = quiet({0: READY_17})
    dealt = {s: [t.alloc(c) for c in hands[s].split()] for s in range(4)}
    t.open_hand()
    order = [
        (seat, tile)
        for r in range(4)
        for seat in range(4)
        for tile in dealt[seat][4 * r : 4 * r + 4]
    ] + [(0, dealt[0][16])]
    for seat, tile in order[:8]:
        t.draw(seat, tile=tile)
    assert t.mirror.snapshot()["hand"]["phase"] == "dealing"
    t.mirror.correct_deal(2, 1, 1)
    assert t.mirror.snapshot()["ruled_deal"] == {"dealer": 2, "streak": 1, "round_wind": "S"}
    for seat, tile in order[8:]:
        t.draw(seat, tile=tile)
    t.win(0)
    hand = t.hand()
    assert (hand.result, hand.dealer, hand.streak, hand.round_wind) == ("win", 0, 0, "E")
    assert hand.next is not None
    assert (hand.next.dealer, hand.next.streak, hand.next.round_wind) == (2, 1, "S")


def test_a_penalty_adds_to_the_sessions_totals() -> None:
    """A penalty ruling's money is in the session's totals like a hand's: added to what
    the hands already moved."""
    t = Script(quiet({0: READY_17}))
    t.win(0)
    before = t.mirror.snapshot()["totals"]
    assert before == t.hand().net and before[1] < 0
    t.mirror.pay([(1, -300), (2, 300)])
    assert t.mirror.snapshot()["totals"] == [before[0], before[1] - 300, before[2] + 300, before[3]]


def test_an_event_ruled_never_to_have_happened_takes_its_seq_and_nothing_else() -> None:
    """A drop ruling (rulings.py): the ghost event changes nothing, and its seq is taken,
    so the next event is no gap; a jump before it is still a gap at the ghost's seq."""
    t = Script(quiet())
    ghost = EVENT_BODY.validate_python(
        {"kind": "tile_discarded", "seat": 2, "tile": t.concealed[2][0]}
    )
    t.seq += 1
    assert t.mirror.pass_over(Event(table=t.table, boot_id=1, seq=t.seq, ts=0.0, body=ghost)) == []
    t.discard(0, "2m")
    assert t.violations() == [] and t.faults() == []
    assert t.seat_state(2)["discards"] == []
    t.seq += 2
    out = t.mirror.pass_over(Event(table=t.table, boot_id=1, seq=t.seq, ts=0.0, body=ghost))
    assert [(r.seq, r.code) for r in out] == [(t.seq, "gap")]  # type: ignore[union-attr]


def test_a_mirror_whose_first_event_is_a_replacement_draw_joins_the_hand() -> None:
    """A stream that begins in the middle of a hand with a draw from the 槓尾 (nothing
    revealed before it, so nothing robbed): one hand_unseen, the tile followed."""
    mirror = TableMirror("t1")
    body = EVENT_BODY.validate_python({"kind": "tile_drawn", "seat": 1, "tile": 40, "end": "back"})
    out = mirror.apply(Event(table="t1", boot_id=1, seq=1, ts=0.0, body=body))
    assert [(r.code, r.detail) for r in out] == [  # type: ignore[union-attr]
        (
            "hand_unseen",
            "a tile drawn with no hand seen before it: the hand is followed without judging "
            "until the next shuffle",
        )
    ]
    hand = mirror.snapshot(concealed=True)["hand"]
    assert hand["seats"][1]["concealed_ids"] == [40]


def test_a_meld_naming_a_tile_in_another_seats_discards_is_tile_twice() -> None:
    """replay-format.md: one physical tile in two places is a fault (tile_twice). Seat 2
    pongs seat 1's 3m, but the meld names the 3m lying in seat 0's discards instead of
    the second 3m in its hand: nobody is blamed."""
    t = Script(quiet({2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 3m"}, extra="3m"))
    t.discard(0, "3m")
    in_river = t.offered
    for seat in (1, 2, 3, 0):
        t.cycle(seat)  # a whole go-round: seat 2 may pong a 3m again (D2)
    t.draw(1, "3m")
    t.discard(1, "3m")
    own = t.ids(2, "3m")[0]
    t.button(2, "pong")
    seq = t.seq + 1
    meld = {"kind": "meld_exposed", "seat": 2, "meld": "pong", "from_seat": 1}
    t.emit({**meld, "tiles": [t.offered, own, in_river]})
    assert t.faults() == [(seq, "tile_twice")]
    assert t.records[-1].detail == (  # type: ignore[union-attr]
        f"seat 2 melded 3m (id {in_river}), which is in seat 0's discards"
    )
    assert t.violations() == []


def test_a_gap_in_a_hand_not_judged_is_still_a_fault() -> None:
    """A hand not seen from its start blames nobody and checks no tile, but events lost
    in it are still missing from the stream: each gap is a fault."""
    t = Script(quiet())
    t.skip(2)
    t.discard(0, "2m")
    t.skip(3)
    seq = t.seq + 1
    t.draw(1)
    assert [code for _, code in t.faults()] == ["gap", "hand_unseen", "gap"]
    assert t.faults()[-1] == (seq, "gap")
    assert t.mirror.gaps == 2


def test_a_concealed_kong_of_four_kinds_names_its_tiles() -> None:
    """A 暗槓 whose tiles are not four of a kind changes nothing (a fault); the referee
    reads which tiles it named, in order."""
    t = Script(quiet({1: "2m 2m 2m 3m 1p 1p 1p 1p 9p 9p 9p 9p E E E E"}))
    t.discard(0, "2m")
    t.draw(1, "S")
    tiles = t.ids(1, "2m 2m 3m 2m")
    t.button(1, "kong")
    seq = t.seq + 1
    out = t.emit(
        {"kind": "meld_exposed", "seat": 1, "meld": "kong_concealed", "from_seat": 255,
         "tiles": tiles}
    )  # fmt: skip
    assert t.faults(out) == [(seq, "impossible")]
    assert out[0].detail == "2m 2m 2m 3m is not a kong"  # type: ignore[union-attr]
