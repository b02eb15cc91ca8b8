"""The simulated table plays legal hands: wall geometry, deal, 補花, reserve, claims, results."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from firmware_bridge.protocol.catalogue import (
    DiceRoll,
    DiceRolled,
    End,
    FlowerRevealed,
    MeldExposed,
    MeldKind,
    Message,
    TileDiscarded,
    TileDrawn,
    TilesLeft,
)
from table_service.rules.table import RESERVE_TILES, Deal, counted_seat
from table_service.rules.tiles import is_flower_tile
from table_sim.hand import HandSim
from table_sim.session import TableSim
from table_sim.wall import Wall


def play(seed: int, deal: Deal | None = None) -> tuple[list[Message], HandSim]:
    events: list[Message] = []
    sim = HandSim(random.Random(seed), deal or Deal(0), events.append)
    sim.play()
    return events, sim


def test_same_seed_same_game() -> None:
    a: list[Message] = []
    b: list[Message] = []
    list(TableSim(7, a.append).hands(5))
    list(TableSim(7, b.append).hands(5))
    assert a == b and len(a) > 500
    c: list[Message] = []
    list(TableSim(8, c.append).hands(5))
    assert c != a


def test_wall_opens_after_stack_t_of_the_opening_side() -> None:
    wall = Wall(random.Random(1))
    wall.open(opening_seat=2, total=5)
    first = wall.draw_front()
    assert wall.places[first].side == 2 and wall.places[first].stack == 5
    back = wall.draw_back()
    assert wall.places[back].side == 2 and wall.places[back].stack == 4


def test_dealing_follows_the_dice() -> None:
    events, sim = play(3, Deal(dealer=1))
    dice = next(e for e in events if isinstance(e, DiceRolled))
    assert dice.roll == DiceRoll.DEAL
    total = dice.die_1 + dice.die_2 + dice.die_3
    assert sim.opening_seat == counted_seat(1, total)
    draws = [e for e in events if isinstance(e, TileDrawn)]
    # 4 tiles at a time, dealer first, four rounds, then the dealer's 門牌.
    seats = [d.seat for d in draws[:65]]
    assert seats[:16] == [1] * 4 + [2] * 4 + [3] * 4 + [0] * 4
    assert seats[64] == 1
    assert all(d.end == End.FRONT for d in draws[:65])
    first = sim.wall.places[draws[0].tile]
    assert (first.side, first.stack) == (sim.opening_seat, total)


@pytest.mark.parametrize("seed", range(40))
def test_hands_are_legal_and_conserve_tiles(seed: int) -> None:
    events, sim = play(seed, Deal(seed % 4))
    result = sim.result
    assert result is not None
    # Every tile is somewhere exactly once at the end.
    places = result.wall_left + [t for h in result.hands for t in h]
    places += [t for ms in result.melds for m in ms for t in m]
    places += [t for fs in result.flowers for t in fs] + [t for ds in result.discards for t in ds]
    assert sorted(places) == list(range(144))
    # Every tile id is drawn at most once; the 8-墩 reserve is never drawn.
    drawn = [e.tile for e in events if isinstance(e, TileDrawn)]
    assert len(drawn) == len(set(drawn))
    lefts = [e.count for e in events if isinstance(e, TilesLeft)]
    assert min(lefts) >= RESERVE_TILES
    # A flower revealed is followed by a replacement from the back, for the same seat.
    for i, e in enumerate(events):
        if isinstance(e, FlowerRevealed) and result.end == "win":
            later = [x for x in events[i:] if isinstance(x, TileDrawn)]
            assert not later or later[0].end == End.BACK
        if isinstance(e, TileDrawn) and is_flower_tile(e.tile):
            assert any(isinstance(x, FlowerRevealed) and x.tile == e.tile for x in events[i:])
    # Chows come only from the 上家; claims only on the tile just discarded.
    for i, e in enumerate(events):
        if isinstance(e, MeldExposed) and e.meld in (MeldKind.CHOW, MeldKind.PONG):
            discard = next(x for x in reversed(events[:i]) if isinstance(x, TileDiscarded))
            assert discard.seat == e.from_seat and discard.tile in e.tiles
            if e.meld == MeldKind.CHOW:
                assert e.from_seat == (e.seat - 1) % 4
    if result.end == "win":
        assert sum(result.net) == 0 and result.score and result.score["valid"]


def test_most_hands_end_in_a_win_and_the_tally_sums_to_zero() -> None:
    sim = TableSim(11, lambda _m: None)
    results = list(sim.hands(120))
    ends = Counter(r.end for r in results)
    assert ends["win"] / len(results) > 0.7
    assert all(sum(j.tally) == 0 for j in sim.jiangs)


def test_a_whole_jiang_rotates_the_deal_and_keeps_streaks() -> None:
    sim = TableSim(2, lambda _m: None)
    while len(sim.jiangs) < 2:
        sim.play_hand()
    first = sim.jiangs[0]
    deals = [h.deal for h in first.hands]
    assert deals[0].dealer == first.first_dealer and deals[0].round_wind == 0
    assert deals[-1].round_wind == 3
    for before, after, hand in zip(deals, deals[1:], first.hands, strict=False):
        if hand.end == "draw" or hand.dealer_won:
            assert after.dealer == before.dealer and after.streak == before.streak + 1
        else:
            assert after.dealer == (before.dealer + 1) % 4 and after.streak == 0
    assert sim.jiangs[1].seating != first.seating


def test_table_faults_change_reports_not_the_game() -> None:
    from table_sim.faults import TableFaults

    clean = TableSim(4, lambda _m: None)
    noisy_events: list[Message] = []
    faults = TableFaults(misread=0.05)
    noisy = TableSim(4, noisy_events.append, faults=faults)
    for a, b in zip(clean.hands(3), noisy.hands(3), strict=True):
        assert (a.winner, a.net, a.hands) == (b.winner, b.net, b.hands)
    injected = [f for h in noisy.jiangs[0].hands for f in h.injected]
    kinds = Counter(next(iter(f)) for f in injected)
    assert kinds["misread"]
    # A misread shows on the wire as the reported id, not the drawn one.
    reported = {e.tile for e in noisy_events if isinstance(e, TileDrawn)}
    assert all(f["reported"] in reported for f in injected if "misread" in f)
