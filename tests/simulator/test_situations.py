"""The classes the simulator deals on purpose besides plain breaches, each with its truth:
攔胡 with a 碰/槓 press between (D3), a win completing a shown 搭子 (禁制 8), a self-draw
under 過水 (D1), an early 補花 replacement (§2), and a misread draw the table reads again
(a sensor fault). Each is shown to happen, as the very events the rules describe, and
to carry the ground truth the soak compares (and the soak's tally to compare it)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

from firmware_bridge.protocol.catalogue import (
    Button,
    End,
    FlowerRevealed,
    HandRevealed,
    MeldExposed,
    Message,
    SeatButton,
    ShuffleStarted,
    TileDiscarded,
    TileDrawn,
    TilesLeft,
    TilesShown,
)
from table_service.mirror.records import Fault, Violation
from table_service.rules import Profile, parse_hand, score
from table_service.rules.profile import Rules
from table_service.rules.shapes import is_complete, wait_kinds
from table_service.rules.table import SEATS, Deal, claim_order
from table_service.rules.tiles import is_flower_tile, kind_counts, parse_kind, tile_kind
from table_sim.faults import Faults, TableFaults
from table_sim.hand import HandResult, HandSim
from table_sim.recording import record_game
from table_sim.session import TableSim, hand_end
from table_sim.truth import Breach, FarEnd, Tally, deal_correction, injected_classes
from table_sim.violations import RARE, SUPPORTED, Violations, code_of

NEW = ("restriction_8_win", "passed_win_self_draw", "replacement_order", "intercepted_win")


def hands_with(
    names: tuple[str, ...],
    rate: float = 0.5,
    seeds: tuple[int, ...] = (11, 12),
    hands: int = 60,
    faults: TableFaults | None = None,
    profile: Profile | None = None,
) -> Iterator[tuple[list[Message], HandResult]]:
    """Each hand's events (from its shuffle) and truth, with only these classes on."""
    for seed in seeds:
        events: list[Message] = []
        violations = Violations(rate, frozenset(names)) if names else None
        sim = TableSim(seed, events.append, profile, faults, violations)
        for result in sim.hands(hands):
            start = next(i for i, m in enumerate(events) if isinstance(m, ShuffleStarted))
            yield events[start:], result
            events.clear()


def index(hand: list[Message], message: Message) -> int:
    return next(i for i, m in enumerate(hand) if m is message)


class Tiles:
    """Where the events put each tile: the seats' concealed hands, and every tile drawn."""

    def __init__(self, events: list[Message], misreads: frozenset[int] = frozenset()) -> None:
        self.hands: list[list[int]] = [[] for _ in range(SEATS)]
        self.drawn: set[int] = set()
        for m in events:
            if isinstance(m, TileDrawn) and id(m) not in misreads:
                self.hands[m.seat].append(m.tile)
                self.drawn.add(m.tile)
            elif isinstance(m, FlowerRevealed | TileDiscarded):
                self.hands[m.seat].remove(m.tile)
            elif isinstance(m, MeldExposed):
                for tile in m.tiles:
                    if tile in self.hands[m.seat]:
                        self.hands[m.seat].remove(tile)

    def waits(self, seat: int) -> list[int]:
        return wait_kinds(kind_counts(self.hands[seat]))


def _is_set(kinds: list[int]) -> bool:
    a, b, c = sorted(kinds)
    run = a < 27 and a // 9 == c // 9 and (b, c) == (a + 1, a + 2)
    return a == b == c or run


# --- 攔胡 with a press between (D3) -------------------------------------------------------


def test_intercepted_win_farther_press_a_pong_press_then_the_nearer_wins() -> None:
    """Two seats win on one discard: the farther presses 胡, the third seat 碰 (槓 with three),
    the nearer 胡 and reveals; the nearer wins, paid by the discarder; nobody breaks a rule."""
    found = 0
    for hand, result in hands_with(("intercepted_win",)):
        assert result.violations == []
        for s in result.situations:
            assert s.kind == "intercepted_win" and s.fault is None
            i = index(hand, s.message)
            discard, far, third, near, reveal = hand[i - 1 : i + 4]
            assert isinstance(discard, TileDiscarded)
            assert isinstance(far, SeatButton) and isinstance(near, SeatButton)
            assert isinstance(third, SeatButton) and isinstance(reveal, HandRevealed)
            assert far.button == near.button == Button.WIN and reveal.seat == near.seat == s.seat
            assert third.button in (Button.PONG, Button.KONG) and i + 4 == len(hand)
            order = claim_order(discard.seat)
            assert order.index(near.seat) < order.index(far.seat)
            assert third.seat not in (discard.seat, near.seat, far.seat)
            tiles = Tiles(hand[:i])
            kind = tile_kind(discard.tile)
            assert kind in tiles.waits(near.seat) and kind in tiles.waits(far.seat)
            held = [tile_kind(t) for t in tiles.hands[third.seat]].count(kind)
            assert (third.button == Button.KONG) == (held >= 3)
            assert sorted(reveal.tiles) == sorted([*tiles.hands[near.seat], discard.tile])
            assert (result.end, result.winner, result.payer, result.settle_kind) == (
                "win", near.seat, discard.seat, "discard",
            )  # fmt: skip
            assert result.net[discard.seat] < 0 < result.net[near.seat]
            assert result.net[far.seat] == result.net[third.seat] == 0
            found += 1
    assert found >= 5


def test_intercepted_win_prefers_a_third_seat_that_could_have_ponged() -> None:
    """Of the 攔胡 a discard would open, the one whose third seat holds a pair of the kind
    (its 碰 a claim that lost on priority) is taken; seats 1, 2 and 3 all win on 5m here,
    seat 2 holding 5m 5m, so seat 2 is the one pressing between seats 1 and 3."""
    sim = HandSim(random.Random(1), Deal(0), lambda _m: None,
                  violations=Violations(1.0, frozenset({"intercepted_win"})))  # fmt: skip
    sim.wall.open(0, 5)
    pool = {k: [t for t in range(136) if tile_kind(t) == k] for k in range(34)}
    hands = {
        0: "5m 9m 9p 9s E E S S 1m 8m 2s 7s 2p 8p 6m 7m 8s",
        1: "1p 2p 3p 4p 5p 6p 7p 8p 9p 1s 2s 3s E E 4m 6m",
        2: "1m 2m 3m 7m 8m 9m F F F P P P 5m 5m C C",
        3: "2s 3s 4s 6s 7s 8s 5p 6p 7p W W W N N 3m 4m",
    }
    for seat, codes in hands.items():
        sim.players[seat].hand = [pool[parse_kind(c)].pop() for c in codes.split()]
    five = parse_kind("5m")
    assert all(five in sim.players[s].waits() for s in (1, 2, 3))
    tile = sim._set_up_intercept(sim.players[0], None, sim.players[0].hand[-1])
    assert tile_kind(tile) == five
    assert sim.intercept is not None
    assert (sim.intercept.near, sim.intercept.far, sim.intercept.third) == (1, 3, 2)


# --- 禁制 8: a win on a discard completing a shown 搭子 -------------------------------------


def test_a_win_completing_a_shown_dazi_is_a_false_win_by_restriction_8() -> None:
    found = 0
    for hand, result in hands_with(("restriction_8_win",)):
        for v in result.violations:
            assert (v.name, v.code) == ("restriction_8_win", "restriction_8")
            i = index(hand, v.message)
            assert v.message == SeatButton(v.seat, Button.WIN)
            shows = [m for m in hand[:i] if isinstance(m, TilesShown) and m.seat == v.seat]
            assert len(shows) == 1 and len(shows[0].tiles) == 2
            shown = shows[0]
            discard = [m for m in hand[:i] if isinstance(m, TileDiscarded)][-1]
            assert discard.seat != v.seat
            between = hand[index(hand, discard) + 1 : i]  # the discarder may knock tiles over
            assert all(isinstance(m, TilesShown) and m.seat == discard.seat for m in between)
            assert _is_set([tile_kind(t) for t in (*shown.tiles, discard.tile)])
            tiles = Tiles(hand[:i])
            assert set(shown.tiles) <= set(tiles.hands[v.seat])
            after = hand[index(hand, shown) : i]
            assert not any(isinstance(m, MeldExposed) and m.seat == v.seat for m in after)
            reveal = hand[i + 1]
            assert isinstance(reveal, HandRevealed) and i + 2 == len(hand)
            assert sorted(reveal.tiles) == sorted([*tiles.hands[v.seat], discard.tile])
            assert is_complete(kind_counts(list(reveal.tiles)))
            assert (result.end, result.winner, result.codes) == (
                "false_win", v.seat, ["restriction_8"],
            )  # fmt: skip
            assert result.declaration is not None and result.declaration["win"] == "discard"
            assert result.score is not None and result.tai == result.score["tai"]
            assert result.tai == score(parse_hand(result.declaration), Profile()).tai
            assert result.payer is None and result.net[v.seat] < 0
            assert all(n > 0 for s, n in enumerate(result.net) if s != v.seat)
            found += 1
    assert found >= 5


def test_a_seat_that_showed_a_dazi_claims_and_kongs_nothing_else() -> None:
    """Conservative bots: after a 搭子 shown, however 禁制 8 is read, no 吃/碰/槓 at all."""
    shows = 0
    for hand, _ in hands_with(("restriction_8_win",)):
        for i, m in enumerate(hand):
            if isinstance(m, TilesShown):
                shows += 1
                assert not any(
                    isinstance(x, MeldExposed) and x.seat == m.seat for x in hand[i + 1 :]
                )
    assert shows >= 10


# --- D1: a self-draw under 過水 ----------------------------------------------------------


def test_a_self_draw_under_passed_water_is_a_false_win() -> None:
    """The seat let a win on a discard go, discarded nothing since, self-draws a winning
    tile and declares it: passed_win, 詐胡 on the 牌面 of that self-draw."""
    found = 0
    for hand, result in hands_with(("passed_win_self_draw",)):
        for v in result.violations:
            assert (v.name, v.code) == ("passed_win_self_draw", "passed_win")
            i = index(hand, v.message)
            assert v.message == SeatButton(v.seat, Button.WIN)
            drawn = [m for m in hand[:i] if isinstance(m, TileDrawn)][-1]
            assert drawn.seat == v.seat and isinstance(hand[i - 1], TilesLeft)
            tiles = Tiles(hand[:i])
            before = list(tiles.hands[v.seat])
            before.remove(drawn.tile)
            own = [j for j, m in enumerate(hand[:i]) if isinstance(m, TileDiscarded | MeldExposed)
                   and m.seat == v.seat]  # fmt: skip
            since = own[-1] + 1 if own else 0
            let_go = [
                m for m in hand[since:i]
                if isinstance(m, TileDiscarded) and m.seat != v.seat
                and tile_kind(m.tile) in wait_kinds(kind_counts(before))
            ]  # fmt: skip
            assert let_go, "no win let go since the seat's own last discard"
            reveal = hand[i + 1]
            assert isinstance(reveal, HandRevealed) and is_complete(kind_counts(list(reveal.tiles)))
            assert (result.end, result.winner, result.codes) == (
                "false_win",
                v.seat,
                ["passed_win"],
            )
            assert result.declaration is not None and result.declaration["win"] == "self_draw"
            assert result.score is not None and result.tai == result.score["tai"]
            assert result.net[v.seat] < 0
            found += 1
    assert found >= 5


def test_no_self_draw_breach_where_the_profile_lets_it_stand() -> None:
    """§7 pass_water_self_draw = true: a self-draw under 過水 is no breach, so none is dealt."""
    house = Profile(rules=Rules(pass_water_self_draw=True))
    for _, result in hands_with(("passed_win_self_draw",), profile=house, hands=30):
        assert result.violations == []


# --- §2: an early 補花 replacement -------------------------------------------------------


def test_an_early_replacement_is_out_of_its_pass() -> None:
    """A 補花 replacement that is a flower, revealed and replaced at once while a later seat
    of the pass still holds a flower: replacement_order at that draw (or its reveal)."""
    found = 0
    for hand, result in hands_with(("replacement_order",)):
        for v in result.violations:
            assert v.code == v.name == "replacement_order"
            i = index(hand, v.message)
            m = v.message
            assert isinstance(m, TileDrawn) and (m.seat, m.end) == (v.seat, End.BACK)
            assert not any(isinstance(x, TileDiscarded) for x in hand[:i])  # the opening 補花
            reveal = hand[i - 1]
            assert v.also is reveal and isinstance(reveal, FlowerRevealed)
            assert reveal.seat == v.seat
            # the flower was one of this seat's replacements in this pass
            assert TileDrawn(v.seat, reveal.tile, End.BACK) in hand[: i - 1]
            dealer = result.deal.dealer
            order = [(dealer + k) % SEATS for k in range(SEATS)]
            later = order[order.index(v.seat) + 1 :]
            tiles = Tiles(hand[: i - 1])
            waiting = [s for s in later if any(is_flower_tile(t) for t in tiles.hands[s])]
            assert waiting
            assert any(isinstance(x, FlowerRevealed) and x.seat in waiting for x in hand[i:])
            found += 1
    assert found >= 5


def test_the_breach_and_its_reveal_are_one_act_in_the_soak_keys() -> None:
    """The soak keys the breach at the draw, with the reveal as `also`: a flag at either
    stands for it, a flag elsewhere is false."""
    recorded = record_game(11, 60, violations=Violations(0.5, frozenset({"replacement_order"})))
    breaches = [b for h in recorded for b in h.breaches]
    assert breaches and all(b[4] == b[1] - 1 for b in breaches)
    boot_id, seq, seat, code, also = breaches[0]

    def flag(at: int, who: int = seat) -> Violation:
        return Violation(table="t", boot_id=boot_id, seq=at, seat=who, code=code, detail="")

    cases = [
        ([flag(seq)], 0, 0),
        ([flag(also)], 0, 0),
        ([flag(seq - 2)], 1, 1),
        ([flag(also, (seat + 1) % 4)], 1, 1),
    ]
    for flagged, missed, false in cases:
        tally = Tally()
        tally.add_violations([Breach(boot_id, seq, seat, code, also)], flagged, "t")
        assert (tally.violations_missed, tally.violations_false) == (missed, false)


# --- a misread draw read again (sensor fault) ---------------------------------------------


def test_a_reread_reports_a_tile_elsewhere_then_the_same_draw_right() -> None:
    """The draw is reported as a tile already out of the wall (in a hand, a meld, a river or
    the flowers), with the table's count; then the same seat's same draw, right."""
    found = 0
    for hand, result in hands_with((), faults=TableFaults(reread=0.01), hands=30):
        misreads = frozenset(id(s.message) for s in result.situations)
        for s in result.situations:
            assert (s.kind, s.fault) == ("reread", "tile_twice")
            i = index(hand, s.message)
            wrong, count, right, count_again = hand[i : i + 4]
            assert isinstance(wrong, TileDrawn) and isinstance(right, TileDrawn)
            assert (right.seat, right.end) == (wrong.seat, wrong.end) == (s.seat, wrong.end)
            assert isinstance(count, TilesLeft) and count == count_again
            tiles = Tiles(hand[:i], misreads)
            assert wrong.tile in tiles.drawn and right.tile not in tiles.drawn
            found += 1
    assert found >= 10


def test_a_reread_changes_nothing_else_in_the_game() -> None:
    """Without its misread draw and that count, the stream is the game without the fault."""
    plain: list[Message] = []
    list(TableSim(5, plain.append).hands(15))
    faulty: list[Message] = []
    sim = TableSim(5, faulty.append, faults=TableFaults(reread=0.02))
    results = list(sim.hands(15))
    misread = {id(s.message) for r in results for s in r.situations}
    assert len(misread) >= 5
    kept = [
        m for i, m in enumerate(faulty)
        if id(m) not in misread and not (i and id(faulty[i - 1]) in misread)
    ]  # fmt: skip
    assert kept == plain


def test_reread_is_a_fault_on_the_command_line_and_in_all() -> None:
    assert (
        Faults.parse("reread").table
        == TableFaults(reread=Faults.all().table.reread)
        != (TableFaults())
    )
    assert Faults.all().table.reread > 0


# --- the soak's tally: sensor faults and the figures by class ------------------------------


def _fault(seq: int, code: str = "tile_twice") -> Fault:
    return Fault(table="t", boot_id=1, seq=seq, code=code, detail="")


def test_the_tally_wants_the_fault_at_the_misread_and_no_other() -> None:
    want = [Breach(1, 40, 2, "tile_twice")]
    for found, missed, false in (
        ([_fault(40)], 0, 0),
        ([_fault(40, "impossible")], 0, 0),  # a kindred code: the mirror names what it saw
        ([], 1, 0),
        ([_fault(40), _fault(41, "count_mismatch")], 0, 1),
        ([_fault(40), _fault(40, "count_mismatch")], 0, 1),
    ):
        tally = Tally()
        wrong = tally.add_faults(want, found, "t")
        assert (tally.faults_expected, tally.faults_missed, tally.faults_false) == (
            1,
            missed,
            false,
        )
        assert bool(wrong) == bool(missed or false)


def test_the_far_end_counts_every_class_and_fault_injected() -> None:
    """The soak's comparison sees each class injected, hand by hand, and each re-read."""
    names = frozenset(NEW)
    recorded = record_game(
        12, 60, violations=Violations(0.05, names), faults=TableFaults(reread=0.005)
    )
    truths = [h.truth for h in recorded]
    far = FarEnd(lambda _, n: truths[n] if 0 <= n < len(truths) else None)
    for h in recorded:
        for event in h.events:
            far.apply(event)
    far.finish()
    breaches = [Breach(*b) for h in recorded for b in h.breaches]
    sensor = [Breach(*f) for h in recorded for f in h.faults]
    tally = far.tally({"sim": (truths, breaches)}, {"sim": sensor})
    assert tally.faults_expected == len(sensor) > 0
    assert tally.violations_injected == len(breaches) > 0
    injected = {name: sum(injected_classes(t).count(name) for t in truths) for name in NEW}
    assert all(injected.values()), injected
    for name, n in injected.items():
        assert tally.classes[name]["injected"] == n
    assert tally.classes["reread"]["injected"] == len(sensor)
    assert "classes" in tally.to_json() and "faults_missed" in tally.to_json()


# --- the classes as the command line knows them --------------------------------------------


def test_new_classes_are_selectable_and_weighted() -> None:
    assert set(NEW) <= set(SUPPORTED) and all(name in RARE for name in NEW)
    assert [code_of(n) for n in NEW] == [
        "restriction_8", "passed_win", "replacement_order", None,
    ]  # fmt: skip
    assert Violations.parse(0.02, ",".join(NEW)).codes == set(NEW)


def test_fifty_hands_at_two_percent_show_each_class_a_few_times() -> None:
    """What a CI soak (50 hands on 5 tables, 0.02) sees: each new class at least twice."""
    seen: dict[str, int] = dict.fromkeys((*NEW, "reread"), 0)
    for seed in range(1, 6):
        sim = TableSim(seed, lambda _m: None, violations=Violations(0.02, frozenset(NEW)),
                       faults=TableFaults(reread=Faults.all().table.reread))  # fmt: skip
        for result in sim.hands(10):
            for name in injected_classes(result):
                seen[name] += 1
    assert all(n >= 2 for n in seen.values()), seen


def test_a_hand_judged_wrong_has_its_deal_corrected_and_counts_once() -> None:
    """The far end's referee corrects the deal after a hand the mirror judged wrong, as
    after a misread: the wrong verdict is one mismatch, not a cascade over later hands."""
    recorded = record_game(13, 4, violations=Violations(0.05))
    truths = [h.truth for h in recorded]
    first = truths[0]
    net = [n + d for n, d in zip(first.net, (5, -5, 0, 0), strict=True)]
    truths[0] = dataclasses.replace(first, net=net)
    far = FarEnd(lambda _, n: truths[n] if 0 <= n < len(truths) else None)
    for h in recorded:
        for event in h.events:
            far.apply(event)
    far.finish()
    tally = far.tally({"sim": (truths, [Breach(*b) for h in recorded for b in h.breaches])})
    assert far.corrected == 1 and tally.mirror_mismatches == 1
    assert deal_correction(truths[0]) is None
    following = truths[0].deal.next(hand_end(truths[0]))
    assert following is not None
    assert deal_correction(truths[0], misjudged=True) == {
        "kind": "deal", "dealer": following.dealer, "streak": following.streak,
        "round_wind": following.round_wind, "note": "a verdict the referee overturned: "
        "the referee's deal",
    }  # fmt: skip
