"""What only the sensors see of a hand's play (HandPlay on each hand record), against the
simulator's truth: each seat's go-round of first readiness, the time of each turn (from
the draw or claim to the discard, at the events' own times), the winner's wait and the
go-round it was dealt in at. Games with and without players' breaches."""

from __future__ import annotations

import pickle

import pytest

from table_service.mirror import HandRecord, SessionStart, TableMirror
from table_service.rules.tiles import kind_code
from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations
from tests.mirror.kit_script import Script, quiet, refold


def at(seq: int) -> float:
    """An event's time: uneven steps (0.5-2 s), always forward."""
    return 1.7e9 + 2.0 * seq + (seq % 7) * 0.25


def hands_of(game: list[RecordedHand]) -> list[HandRecord]:
    mirror = TableMirror("sim", SessionStart(table="sim"))
    out = [r for h in game for e in h.events
           for r in mirror.apply(e.model_copy(update={"ts": at(e.seq)}))]  # fmt: skip
    out += mirror.finish()
    return [r for r in out if isinstance(r, HandRecord)]


@pytest.mark.parametrize("breaches", [0.0, 0.03], ids=["clean", "breaches"])
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_each_hands_play_is_the_simulators_truth(seed: int, breaches: float) -> None:
    game = record_game(seed, 12, violations=Violations(breaches) if breaches else None)
    records = hands_of(game)
    assert len(records) == len(game)
    for hand, record in zip(game, records, strict=True):
        truth, play = hand.truth, record.play
        assert play is not None
        assert [s.ready_round for s in play.seats] == truth.ready_rounds
        turns = [[0, 0] for _ in range(4)]
        for seat, began, discard in hand.turns:
            turns[seat][0] += 1
            turns[seat][1] += round((at(discard) - at(began)) * 1000)
        assert [[s.turns, s.turn_ms] for s in play.seats] == turns
        assert play.go_rounds == max(truth.discards_made)
        shuffle = next(e.seq for e in hand.events if e.body.kind == "shuffle_started")
        assert play.seconds == round(at(record.seq) - at(shuffle), 3)
        if truth.end == "win" and record.winning_tile is not None:
            waits = [kind_code(k) for k in truth.win_waits]
            assert (play.wait, play.waits) == (truth.win_wait, waits)
            assert play.deal_in_round == truth.deal_in_round
        else:
            assert (play.wait, play.waits, play.deal_in_round) == (None, [], None)


def test_a_clock_stepping_back_counts_as_no_time() -> None:
    game = record_game(1, 1)
    mirror = TableMirror("sim", SessionStart(table="sim"))
    records = [r for e in game[0].events
               for r in mirror.apply(e.model_copy(update={"ts": 1e9 - e.seq}))]  # fmt: skip
    (hand,) = [r for r in records if isinstance(r, HandRecord)]
    assert hand.play is not None
    assert hand.play.seconds == 0 and all(s.turn_ms == 0 for s in hand.play.seats)
    assert sum(s.turns for s in hand.play.seats) == len(game[0].turns)


def test_a_ruled_win_on_a_tile_the_mirror_never_saw_tells_no_made_up_wait() -> None:
    """The sensors missed seat 2's draw of 6s; the referee rules its self-draw on it, with
    its hand (ready on 6s or 9s, two-sided) and the 6s. The mirror never saw the seat hold
    the 6s, so its play figures cannot read the wait from its own tiles: it tells the wait
    the ruled hand had, or none; never one read from a hand missing its winning tile."""
    ready = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"  # waits 6s 9s
    t = Script(quiet({2: ready}))
    t.discard(0, "2m")
    t.cycle(1)
    at = t.events[-1]
    ruling = {"kind": "hand", "boot_id": at.boot_id, "seq": at.seq, "result": "win",
              "seat": 2, "how": "self_draw", "tile": "6s",
              "concealed": [*ready.split(), "6s"], "reason": "the draw was not read"}  # fmt: skip
    (hand,) = [r for r in refold(t, ruling) if isinstance(r, HandRecord)]
    assert (hand.result, hand.kind, hand.seat) == ("win", "self_draw", 2)
    assert hand.play is not None
    assert (hand.play.wait, hand.play.waits) in ((None, []), ("two_sided", ["6s", "9s"]))


def test_a_seven_rob_one_is_no_deal_in() -> None:
    """七搶一 (1) (§5): seat 2 draws the eighth flower and seat 1, holding seven, robs it;
    seat 2 pays, but as the loser of a flower, not with a discard or a kong won on: the
    hand has no go-round dealt in at."""
    t = Script(quiet({1: "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"}))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for _ in range(7):
        t.replacement(1)
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "h8")
    t.flower(2, "h8")
    t.replacement(1)
    t.button(1, "win")
    hand = t.hand()
    assert (hand.result, hand.kind, hand.payer) == ("flower_win", "seven_rob_one", 2)
    assert hand.play is not None and hand.play.deal_in_round is None


def test_a_hand_restored_from_a_snapshot_older_than_hand_times_lasts_0_s() -> None:
    """A snapshot stored before hands kept their start time (the mirror's format did not
    change for it) restores a hand with no `began`: the hand's length is then 0 s, not a
    made-up one, and the hand ends as any other."""
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}))
    t.discard(0, "2m")
    old = pickle.loads(pickle.dumps(t.mirror))
    del old.hand.__dict__["began"]  # as unpickled from the older snapshot
    del old.__dict__["_ts"]
    t.mirror = old
    t.cycle(1)
    t.draw(2, "6s")
    t.win(2)
    hand = t.hand()
    assert (hand.result, hand.kind) == ("win", "self_draw")
    assert hand.play is not None and hand.play.seconds == 0.0


def test_a_hands_length_is_told_to_the_millisecond() -> None:
    """A hand's length runs from its shuffle to its end at the events' own times, told to
    the millisecond like the turns' times (turn_ms), whatever finer fractions the bridge's
    clock gives."""
    t = Script(quiet({2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 7s 8s W W"}))
    t.discard(0, "2m")
    t.cycle(1)
    t.draw(2, "6s")
    t.win(2)
    mirror = TableMirror(t.table, t.session)
    ts = {e.seq: 1.7e9 + e.seq * 0.123456 for e in t.events}
    records = [r for e in t.events for r in mirror.apply(e.model_copy(update={"ts": ts[e.seq]}))]
    (hand,) = [r for r in records if isinstance(r, HandRecord)]
    assert hand.play is not None
    length = ts[t.events[-1].seq] - ts[t.events[0].seq]
    assert hand.play.seconds == round(hand.play.seconds, 3)
    assert abs(hand.play.seconds - length) <= 0.0005
