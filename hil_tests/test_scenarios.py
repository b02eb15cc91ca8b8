"""Scenarios through the whole loop: table → serial → bridge → MQTT → far end.

The far end is the game mirror (table_service/mirror): it judges every hand from the
events alone, so a real table is judged too. Each scenario runs against the simulator
by default and against a real table with --port; those that compare with ground truth
or inject faults are simulator only.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from hil_tests.plugin import Loop, open_loop
from table_service.rules.table import RESERVE_TILES, seat_position
from table_service.rules.tiles import tile_flower
from table_sim.faults import Faults, LinkFaults, TableFaults
from table_sim.service_end import ServiceEnd, scratch_schema
from table_sim.soak import breaches
from table_sim.truth import Judged, hand_mismatches
from table_sim.violations import Violations

GROUND_TRUTH = "compares the far end with the simulator's ground truth"


def clean(hand: Judged) -> list[str]:
    """What the mirror found wrong in a hand (empty for a hand played by the rules)."""
    found = [f"{v.code} by seat {v.seat} at seq {v.seq}" for v in hand.violations]
    return found + [f"fault {f.code}: {f.detail}" for f in hand.faults]


async def test_a_full_hand_arrives_whole_and_is_judged(loop: Loop) -> None:
    result = await loop.play_hand()
    judged = loop.judged()
    assert judged, "no hand was judged at the far end"
    assert clean(judged[0]) == []
    assert sum(judged[0].record.net) == 0
    if result is not None:
        assert loop.exactly_once()
        assert hand_mismatches(judged[0].record, judged[0].seen, result) == []


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(21)
async def test_dice_point_at_the_opening_seat_and_seat_positions_follow(loop: Loop) -> None:
    """What the mirror derives from the stream alone matches where the tiles really were."""
    wins = 0
    for _ in range(4):
        result = await loop.play_hand()
        assert result is not None
        hand = loop.judged()[-1]
        seen = hand.seen
        assert seen.dice is not None and seen.opening_seat is not None
        assert (seen.dealer, sum(seen.dice)) == (result.deal.dealer, sum(result.dice))
        assert seen.opening_seat == result.opening_seat
        # The first tile dealt sat in the 開門位's wall, the stack after the dice total.
        first = next(b["tile"] for b in loop.hands()[-1] if b["kind"] == "tile_drawn")
        place = result.places[first]
        assert (place.side, place.stack, place.level) == (seen.opening_seat, sum(seen.dice), 0)
        winner = hand.record.seat
        if winner is None or result.declaration is None or "concealed" not in result.declaration:
            continue
        wins += 1
        # Seat position (開門序) counted from the mirror's opening seat is the scored one,
        # and the winner's flowers as the mirror saw them are the flowers scored.
        position = seat_position(winner, seen.opening_seat, seen.dealer)
        assert result.declaration["seat_wind"] == "ESWN"[position - 1]
        shown = sorted(f"h{tile_flower(f)}" for f in seen.seats[winner].flowers)
        assert shown == result.declaration["flowers"]
        assert hand_mismatches(hand.record, seen, result) == []
    assert wins >= 2


async def test_drawing_order_and_the_reserve(loop: Loop) -> None:
    await loop.play_hand()
    hand = loop.hands()[0]
    lefts = [b["count"] for b in hand if b["kind"] == "tiles_left"]
    assert min(lefts) >= RESERVE_TILES
    assert clean(loop.judged()[0]) == []


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(5)
async def test_flowers_and_kongs_are_replaced_from_the_back(loop: Loop) -> None:
    flowers = kongs = 0
    for _ in range(6):
        await loop.play_hand()
    for judged in loop.judged():
        assert clean(judged) == []  # no wrong_end, no replacement_order
        flowers += sum(len(s.flowers) for s in judged.seen.seats)
        kongs += sum(m.kind.startswith("kong") for s in judged.seen.seats for m in s.melds)
    assert flowers > 0 and kongs > 0  # the seed plays both, so the check had something to judge
    assert loop.exactly_once()


@pytest.mark.simulator_only("needs a hand that ends drawn, which the simulator's seed gives")
@pytest.mark.seed(2)
async def test_a_drawn_hand_ends_at_the_reserve(loop: Loop) -> None:
    for _ in range(12):
        result = await loop.play_hand()
        assert result is not None
        if result.end == "draw":
            break
    else:
        pytest.fail("no 荒局 in 12 hands of seed 2")
    hand = loop.judged()[-1]
    assert hand.record.result == "drawn" and hand.record.net == [0, 0, 0, 0]
    assert hand.seen.wall <= RESERVE_TILES + 1
    assert len(result.wall_left) == hand.seen.wall
    assert clean(hand) == []
    assert hand.record.next is not None and hand.record.next.dealer == result.deal.dealer


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(3)
async def test_a_whole_jiang_rotates_the_deal_with_streaks(loop: Loop) -> None:
    assert loop.sim is not None
    while len(loop.sim.game.jiangs) < 2 or not loop.sim.game.jiangs[1].hands:
        await loop.play_hand()
    jiang = loop.sim.game.jiangs[0]
    judged = loop.judged()[: len(jiang.hands)]
    assert [j.record.dealer for j in judged] == [h.deal.dealer for h in jiang.hands]
    assert [j.record.streak for j in judged] == [h.deal.streak for h in jiang.hands]
    assert jiang.hands[-1].deal.round_wind == 3  # 北 round reached: four rounds
    assert judged[-1].record.next is None  # the mirror knows the 將 is over
    assert max(h.deal.streak for h in jiang.hands) >= 1  # 連莊 happened and was carried
    for j, truth in zip(judged, jiang.hands, strict=True):
        assert hand_mismatches(j.record, j.seen, truth) == []
    assert loop.exactly_once()


@pytest.mark.simulator_only("injects faults")
async def test_faults_lose_nothing_and_every_breach_is_flagged(
    hil_broker: str, tmp_path: Path
) -> None:
    """1 % byte corruption, drops, duplicates, unplugs, a reboot, misreads and players
    breaking rules, at once: nothing is lost, and the mirror flags exactly the breaches."""
    faults = Faults(
        TableFaults(misread=0.01),
        LinkFaults(corruption=0.01, drop=0.01, duplicate=0.01, unplug_every=2, reboot_every=3),
    )
    with tempfile.TemporaryDirectory() as tmp:
        async with open_loop(
            hil_broker, Path(tmp), seed=13, faults=faults, name="hilfaults",
            violations=Violations(0.03),
        ) as lp:  # fmt: skip
            for _ in range(4):
                await lp.play_hand()
            assert lp.exactly_once()
            assert lp.sim is not None
            injected = lp.sim.controller.injected
            assert injected["reboot"] == 1 and injected["unplug"] == 2
            assert injected["corrupt_byte"] > 0 and lp.bridge.counters.frames_bad > 0
            assert len(lp.received.by_boot) == 2  # the reboot is a new boot, not duplicates
            lp.judged()
            tally = lp.far.tally({lp.name: (lp.results, breaches(lp.sim))})
            assert tally.violations_injected > 0, "the seed committed no breach"
            assert (tally.mirror_mismatches, tally.violations_missed) == (0, 0), tally.notes
            assert tally.violations_false == 0, tally.notes


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_the_table_service_stores_every_hand_as_played(
    hil_broker: str, tmp_path: Path, backend: str
) -> None:
    """The real service at the far end: its stored hands, ledger and violations are the
    truth's, on SQLite and on PostgreSQL."""
    pg = os.environ.get("MJTABLE_TEST_DATABASE_URL")
    if backend == "postgresql" and not pg:
        pytest.skip("MJTABLE_TEST_DATABASE_URL is not set")
    url = pg if backend == "postgresql" and pg else f"sqlite:///{tmp_path / 'service.db'}"
    with tempfile.TemporaryDirectory() as tmp:
        async with open_loop(
            hil_broker, Path(tmp), seed=9, name="hilsvc", violations=Violations(0.03)
        ) as lp:
            with scratch_schema(url, lp.base.replace("-", "_")) as db_url:
                async with ServiceEnd(hil_broker, lp.base, db_url) as svc:
                    for _ in range(4):
                        await lp.play_hand()
                    assert lp.sim is not None
                    last = list(lp.sim.sent.by_boot.items())[-1]
                    assert await svc.drained({lp.name: (last[0], len(last[1]))}, 60)
                    lp.judged()
                    assert lp.sim is not None
                    stored = svc.compare({lp.name: (lp.results, breaches(lp.sim))})
                    assert stored.events_stored == lp.sim.sent.count
                    assert (stored.service_mismatches, stored.ledger_mismatches) == (0, 0), (
                        stored.notes
                    )
                    assert stored.tally.violations_missed == 0, stored.notes
                    assert stored.tally.violations_false == 0, stored.notes
