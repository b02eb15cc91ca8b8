"""Properties of the mirror over simulated games: it reproduces the ground truth exactly,
duplicates change nothing, and no stream (random or mutated) makes it raise."""

from __future__ import annotations

import random
from functools import cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, HandRecord, Record, Summary, Violation
from table_service.mirror.replay import replay_lines
from table_sim.faults import TableFaults
from table_sim.recording import RecordedHand, record_game
from table_sim.truth import FarEnd
from table_sim.violations import Violations


@cache
def game(seed: int, hands: int, rate: float = 0.0, misread: float = 0.0) -> list[RecordedHand]:
    return record_game(seed, hands, violations=Violations(rate), faults=TableFaults(misread))


def judge(hands: list[RecordedHand]) -> FarEnd:
    far = FarEnd(lambda _, n: hands[n].truth if 0 <= n < len(hands) else None)
    for hand in hands:
        for event in hand.events:
            far.apply(event)
    far.finish()
    return far


def dump(records: list[Record]) -> list[str]:
    return [r.model_dump_json() for r in records]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_a_replayed_game_gives_exactly_the_ground_truth(seed: int) -> None:
    hands = game(seed, 8)
    far = judge(hands)
    tally = far.tally({"sim": ([h.truth for h in hands], [])})
    assert tally.hands_judged == 8
    assert tally.mirror_mismatches == 0, tally.notes
    assert tally.violations_flagged == 0, tally.notes  # bots that keep the rules are not flagged
    assert not any(j.faults for j in far.judged["sim"])
    mirror = far.mirrors["sim"]
    assert sum(mirror.totals) == 0
    assert mirror.totals == [sum(h.truth.net[s] for h in hands) for s in range(4)]


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_every_breach_the_bots_commit_is_flagged_and_nothing_else(seed: int) -> None:
    hands = game(seed, 12, rate=0.05)
    far = judge(hands)
    breaches = [b for h in hands for b in h.breaches]
    tally = far.tally({"sim": ([h.truth for h in hands], breaches)})
    assert tally.mirror_mismatches == 0, tally.notes
    assert (tally.violations_missed, tally.violations_false) == (0, 0), tally.notes
    assert tally.violations_injected == len(breaches)


def test_a_misread_is_a_fault_not_a_players_breach() -> None:
    """Sensor misreads (a wrong tile id) are faults; after the referee corrects the deal the
    other hands are judged exactly, and no player is blamed for the sensor."""
    hands = game(3, 60, misread=0.004)
    misread = [h for h in hands if h.truth.injected]
    assert misread, "the seed misread no tile"
    far = judge(hands)
    tally = far.tally({"sim": ([h.truth for h in hands], [])})
    assert tally.mirror_mismatches == 0, tally.notes
    faulted = {j.record.hand for j in far.judged["sim"] if j.faults}
    assert faulted  # the misreads were seen as faults
    assert far.corrected >= 1


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1))
def test_every_event_delivered_twice_gives_the_same_records(seed: int) -> None:
    events = [e for h in game(seed, 3, rate=0.05) for e in h.events]
    once, twice = TableMirror("sim"), TableMirror("sim")
    want = [r for e in events for r in once.apply(e)] + once.finish()
    got = [r for e in events for _ in range(2) for r in twice.apply(e)] + twice.finish()
    assert dump(got) == dump(want)
    assert twice.duplicates == len(events) and twice.events == once.events


def _mutate(events: list[Event], rng: random.Random) -> list[Event]:
    """Drop, repeat, swap and corrupt events the way broken sensors and links would."""
    out: list[Event] = []
    for event in events:
        roll = rng.random()
        if roll < 0.03:
            continue  # lost (a gap follows)
        body = event.body.model_dump(mode="json")
        if roll < 0.08 and "tile" in body:
            body["tile"] = rng.randrange(144) if body["kind"] != "flower_revealed" else 136
        elif roll < 0.12 and "seat" in body:
            body["seat"] = rng.randrange(4)
        elif roll < 0.14 and "tiles" in body:
            body["tiles"] = [rng.randrange(136) for _ in body["tiles"]]
        out.append(event.model_copy(update={"body": EVENT_BODY.validate_python(body)}))
        if roll > 0.98 and len(out) > 2:
            out[-1], out[-2] = out[-2], out[-1]
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), mutation=st.integers(0, 2**31 - 1))
def test_mutated_streams_never_raise_they_yield_faults(seed: int, mutation: int) -> None:
    events = _mutate([e for h in game(seed % 7, 3) for e in h.events], random.Random(mutation))
    mirror = TableMirror("sim")
    records = [r for e in events for r in mirror.apply(e)] + mirror.finish()
    assert all(isinstance(r, Violation | Fault | HandRecord) for r in records)
    for record in records:
        if isinstance(record, HandRecord):
            assert sum(record.net) == 0
    mirror.snapshot(concealed=True)


_bodies = st.one_of(
    st.fixed_dictionaries(
        {
            "kind": st.just("tile_drawn"),
            "seat": st.integers(0, 3),
            "tile": st.integers(0, 143),
            "end": st.sampled_from(["front", "back"]),
        }
    ),
    st.fixed_dictionaries(
        {"kind": st.just("tile_discarded"), "seat": st.integers(0, 3), "tile": st.integers(0, 143)}
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("meld_exposed"),
            "seat": st.integers(0, 3),
            "meld": st.sampled_from(
                ["chow", "pong", "kong_exposed", "kong_added", "kong_concealed"]
            ),
            "from_seat": st.sampled_from([0, 1, 2, 3, 255]),
            "tiles": st.lists(st.integers(0, 143), min_size=3, max_size=4),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("seat_button"),
            "seat": st.integers(0, 3),
            "button": st.sampled_from(["win", "ready", "pong", "chow", "kong", "pass"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("flower_revealed"),
            "seat": st.integers(0, 3),
            "tile": st.integers(136, 143),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("hand_revealed"),
            "seat": st.integers(0, 3),
            "tiles": st.lists(st.integers(0, 143), min_size=1, max_size=20),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.sampled_from(["shuffle_started", "shuffle_finished"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "kind": st.just("dice_rolled"),
            "roll": st.sampled_from(["seating", "dealer", "deal"]),
            "die_1": st.integers(1, 6),
            "die_2": st.integers(1, 6),
            "die_3": st.integers(1, 6),
        }
    ),
    st.fixed_dictionaries({"kind": st.just("tiles_left"), "count": st.integers(0, 144)}),
)


@settings(max_examples=200, deadline=None)
@given(bodies=st.lists(_bodies, max_size=80), seqs=st.lists(st.integers(1, 5), max_size=80))
def test_random_streams_never_raise(bodies: list[dict[str, object]], seqs: list[int]) -> None:
    mirror = TableMirror("r")
    seq = 0
    for i, body in enumerate(bodies):
        seq += seqs[i] if i < len(seqs) else 1
        event = Event(table="r", boot_id=1, seq=seq, ts=0.0, body=EVENT_BODY.validate_python(body))
        for record in mirror.apply(event):
            assert record.table == "r"
    mirror.finish()
    mirror.snapshot(concealed=True)


def test_replay_of_a_simulated_game_sums_to_zero_and_counts_every_event() -> None:
    hands = game(11, 5)
    lines = [e.model_dump_json() for h in hands for e in h.events]
    out = list(replay_lines(lines))
    summary = Summary.model_validate_json(out[-1])
    assert summary.events == len(lines) and summary.hands == 5
    assert sum(summary.totals) == 0 and (summary.violations, summary.faults) == (0, 0)
