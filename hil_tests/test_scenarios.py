"""Scenarios through the whole loop: table → serial → bridge → MQTT → far end.

Each runs against the simulator by default and against a real table with --port;
those that compare with ground truth or inject faults are simulator only.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from hil_tests.plugin import Loop, open_loop
from hil_tests.simulator.faults import Faults, LinkFaults, TableFaults
from hil_tests.simulator.violations import Violations
from hil_tests.stream import problems, view
from table_service.rules.table import RESERVE_TILES, seat_position

GROUND_TRUTH = "compares the far end with the simulator's ground truth"


async def test_a_full_hand_arrives_whole_and_in_table_order(loop: Loop) -> None:
    await loop.play_hand()
    hands = loop.hands()
    assert hands, "no hand reached the far end"
    assert problems(hands[0]) == []
    if loop.sim is not None:
        assert loop.exactly_once()


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(21)
async def test_dice_point_at_the_opening_seat_and_seat_positions_follow(loop: Loop) -> None:
    """What the far end derives from the stream alone matches where the tiles really were."""
    wins = 0
    for _ in range(4):
        result = await loop.play_hand()
        assert result is not None
        hand = loop.hands()[-1]
        seen = view(hand)
        assert (seen.dealer, seen.dice_total) == (result.deal.dealer, sum(result.dice))
        assert seen.opening_seat == result.opening_seat
        # The first tile dealt sat in the 開門位's wall, the stack after the dice total.
        first = next(b["tile"] for b in hand if b["kind"] == "tile_drawn")
        place = result.places[first]
        assert (place.side, place.stack, place.level) == (seen.opening_seat, seen.dice_total, 0)
        if (
            seen.winner is None
            or result.declaration is None
            or "concealed" not in result.declaration
        ):
            continue
        wins += 1
        # Seat position (開門序) counted from the far end's opening seat is the scored one,
        # and the winner's flowers on the wire are the flowers scored.
        position = seat_position(seen.winner, seen.opening_seat, seen.dealer)
        assert result.declaration["seat_wind"] == "ESWN"[position - 1]
        shown = sorted(
            f"h{b['tile'] - 135}" for b in hand
            if b["kind"] == "flower_revealed" and b["seat"] == seen.winner
        )  # fmt: skip
        assert shown == result.declaration["flowers"]
    assert wins >= 2


async def test_drawing_order_and_the_reserve(loop: Loop) -> None:
    await loop.play_hand()
    hand = loop.hands()[0]
    lefts = [b["count"] for b in hand if b["kind"] == "tiles_left"]
    assert min(lefts) >= RESERVE_TILES
    assert not [p for p in problems(hand) if "drew after" in p or "reserve" in p]


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(5)
async def test_flowers_and_kongs_are_replaced_from_the_back(loop: Loop) -> None:
    flowers = kongs = 0
    for _ in range(6):
        await loop.play_hand()
    for hand in loop.hands():
        assert not [p for p in problems(hand) if "槓尾" in p]
        flowers += sum(b["kind"] == "flower_revealed" for b in hand)
        kongs += sum(b["kind"] == "meld_exposed" and b["meld"].startswith("kong") for b in hand)
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
    hand = loop.hands()[-1]
    assert not view(hand).ended_in_win
    assert [b["count"] for b in hand if b["kind"] == "tiles_left"][-1] <= RESERVE_TILES + 1
    assert len(result.wall_left) <= RESERVE_TILES + 1
    assert problems(hand) == []


@pytest.mark.simulator_only(GROUND_TRUTH)
@pytest.mark.seed(3)
async def test_a_whole_jiang_rotates_the_deal_with_streaks(loop: Loop) -> None:
    assert loop.sim is not None
    while len(loop.sim.game.jiangs) < 2 or not loop.sim.game.jiangs[1].hands:
        await loop.play_hand()
    jiang = loop.sim.game.jiangs[0]
    far = [view(h) for h in loop.hands()[: len(jiang.hands)]]
    assert [v.dealer for v in far] == [h.deal.dealer for h in jiang.hands]
    assert jiang.hands[-1].deal.round_wind == 3  # 北 round reached: four rounds
    streaks = [h.deal.streak for h in jiang.hands]
    assert max(streaks) >= 1  # 連莊 happened and was carried
    assert sum(jiang.tally) == 0
    assert loop.exactly_once()


@pytest.mark.simulator_only("injects faults")
async def test_faults_lose_nothing_and_table_faults_are_caught(
    hil_broker: str, tmp_path: Path
) -> None:
    """1 % byte corruption, drops, duplicates, unplugs, a reboot, misreads and players
    drawing out of turn, at once."""
    faults = Faults(
        TableFaults(misread=0.01),
        LinkFaults(corruption=0.01, drop=0.01, duplicate=0.01, unplug_every=2, reboot_every=3),
    )
    breaches = Violations(0.01, frozenset({"out_of_turn"}))
    with tempfile.TemporaryDirectory() as tmp:
        async with open_loop(
            hil_broker, Path(tmp), seed=8, faults=faults, name="hilfaults", violations=breaches
        ) as lp:
            for _ in range(4):
                await lp.play_hand()
            assert lp.exactly_once()
            assert lp.sim is not None
            injected = lp.sim.controller.injected
            assert injected["reboot"] == 1 and injected["unplug"] == 2
            assert injected["corrupt_byte"] > 0 and lp.bridge.counters.frames_bad > 0
            assert len(lp.received.by_boot) == 2  # the reboot is a new boot, not duplicates
            # The stream checks flag every hand where a player drew out of turn, and no clean one.
            hands = lp.hands()
            assert len(hands) == len(lp.results)
            out_of_turn = 0
            for hand, result in zip(hands, lp.results, strict=True):
                kinds = {next(iter(f)) for f in result.injected}
                if result.violations:
                    out_of_turn += 1
                    assert problems(hand), result.violations
                elif not kinds:
                    assert problems(hand) == []
            assert out_of_turn > 0
