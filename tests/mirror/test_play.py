"""What only the sensors see of a hand's play (HandPlay on each hand record), against the
simulator's truth: each seat's go-round of first readiness, the time of each turn (from
the draw or claim to the discard, at the events' own times), the winner's wait and the
go-round it was dealt in at. Games with and without players' breaches."""

from __future__ import annotations

import pytest

from table_service.mirror import HandRecord, SessionStart, TableMirror
from table_service.rules.tiles import kind_code
from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations


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
