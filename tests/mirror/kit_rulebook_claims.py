"""The scenarios of test_rulebook_claims.py (its CASES), kept apart so other tests
(test_violation_details.py) read them without importing a test module.

Rulebook rows, part 2: the claim rules of taiwan16.md §3 — priority (胡 over 碰/槓 over
吃), 攔胡, 搶槓 and 過水 (D1, with the profile switch pass_water_self_draw) — each with the
scenarios that test it and their twins, through the mirror and through `mjtable replay`
(see rulebook.py).
"""

from __future__ import annotations

from tests.mirror.kit_rulebook import (
    ALSO_6S,
    READY_69P,
    READY_69S,
    SHANPON_2M_6P,
    Case,
    Scene,
    each_pays,
    registrar,
    second_go_round,
    started,
)
from tests.mirror.kit_script import add_the_fourth_7p

CASES: list[Case] = []
case = registrar(CASES)

PAIR_6S = "E E E E S S S S 1p 1p 1p 1p 9p 9p 6s 6s"  # seat 1: a 6s pair, nothing to win
TRIPLET_6S = "W W W W N N N N 1s 1s 1s 1s 9s 6s 6s 6s"  # seat 2: a 6s triplet
CHOW_6S = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7s 8s"  # seat 1: 7s 8s to chow a 6s

# Seat 2 wins the dealer's 6s: 門清 1; the dealer pays 底 + 1 台 + dealer 台 1.
SEAT2_WINS_6S = {
    "result": "win",
    "kind": "discard",
    "seat": 2,
    "payer": 0,
    "tai": 1,
    "codes": [],
    "net": [-each_pays(1, dealer_tai=1), 0, each_pays(1, dealer_tai=1), 0],
    "next": (1, 0),
}


def dealer_throws_6s(hands: dict[int, str]) -> Scene:
    """The second go-round (no 地胡 timing): the dealer draws and discards a 6s."""
    t = second_go_round(hands)
    t.cycle(0, "6s")
    return t


# --- priority: 胡 over 碰/槓 over 吃 ---------------------------------------------------


@case("priority", "碰 pressed, then 胡: the 胡 takes the tile", hands=[SEAT2_WINS_6S])
def _() -> Scene:
    t = dealer_throws_6s({1: PAIR_6S, 2: READY_69S})
    t.button(1, "pong")
    t.win(2)
    return t


@case("priority", "胡 pressed, 碰 pressed, then the 胡's reveal", hands=[SEAT2_WINS_6S])
def _() -> Scene:
    """A 碰 press by another seat after the 胡 press decides nothing: the 胡 stands at its
    hand_revealed, and the losing press is the button alone (no fault, no violation)."""
    t = dealer_throws_6s({1: PAIR_6S, 2: READY_69S})
    t.button(2, "win")
    t.button(1, "pong")
    t.reveal(2)
    return t


@case(
    "priority",
    "碰 exposed, then 胡 before the ponger's discard: the 胡 takes the tile",
    hands=[SEAT2_WINS_6S],
)
def _() -> Scene:
    """胡 over 碰, and D3 makes a 胡 late only once the next player has drawn and
    discarded, or a 吃 was shown and followed by its discard: a 碰 shown and not yet
    followed by its discard does not close the 胡 (open point: D3 names the 吃 only)."""
    t = dealer_throws_6s({1: PAIR_6S, 2: READY_69S})
    t.pong(1, 0)
    t.win(2)
    return t


@case("priority", "碰 alone: the pong is taken, play goes on", twin=True)
def _() -> Scene:
    t = dealer_throws_6s({1: PAIR_6S})
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    return t


@case("priority", "吃 pressed, then 碰: the 碰 takes the tile")
def _() -> Scene:
    t = dealer_throws_6s({1: CHOW_6S, 2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 6s 6s"})
    t.button(1, "chow")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1)
    return t


@case(
    "priority",
    "吃 shown, then 碰 before the chower's discard: the 碰 takes the tile",
)
def _() -> Scene:
    t = dealer_throws_6s({1: CHOW_6S, 2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 6s 6s"})
    t.chow(1, 0, "7s 8s")
    t.pong(2, 0)
    seat1 = t.seat_state(1)
    assert (seat1["melds"], seat1["concealed_count"]) == ([], 16)
    t.concealed[1] += [tile for meld in t.melds[1] for tile in meld[1][1:]]  # the chow undone
    t.melds[1] = []
    t.discard(2, "9s")
    t.cycle(3)
    t.cycle(0)
    t.cycle(1)
    return t


@case("priority", "吃 pressed, then 碰槓: the kong takes the tile")
def _() -> Scene:
    t = dealer_throws_6s({1: CHOW_6S, 2: TRIPLET_6S})
    t.button(1, "chow")
    t.kong(2, "6s", "exposed", from_seat=0)
    t.replacement(2, "3m")
    t.discard(2, "3m")
    t.cycle(3)
    return t


@case("priority", "吃 alone: the chow is taken, play goes on", twin=True)
def _() -> Scene:
    t = dealer_throws_6s({1: CHOW_6S})
    t.chow(1, 0, "7s 8s")
    t.discard(1, "9p")
    t.cycle(2)
    return t


@case("priority", "吃 shown, then 胡 before the chower's discard", hands=[SEAT2_WINS_6S])
def _() -> Scene:
    t = dealer_throws_6s({1: CHOW_6S, 2: READY_69S})
    t.chow(1, 0, "7s 8s")
    t.win(2)
    return t


# --- 攔胡: several 胡 on one discard; the nearest after the discarder wins -------------

DEALER_NO_5S = "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 8p 8p 8p 8p 2m"  # seat 3's 5s is free
RIVALS = {0: DEALER_NO_5S, 1: PAIR_6S, 2: READY_69S, 3: ALSO_6S}


@case("intercepted_win", "the farther seat presses first", hands=[SEAT2_WINS_6S])
def _() -> Scene:
    t = dealer_throws_6s(RIVALS)
    t.button(3, "win")
    t.button(2, "win")
    t.reveal(2)
    return t


@case("intercepted_win", "the nearer seat presses first", hands=[SEAT2_WINS_6S])
def _() -> Scene:
    t = dealer_throws_6s(RIVALS)
    t.button(2, "win")
    t.button(3, "win")
    t.reveal(2)
    return t


@case(
    "intercepted_win",
    "a 碰 press by another seat between the two 胡 presses decides nothing",
    hands=[SEAT2_WINS_6S],
)
def _() -> Scene:
    t = dealer_throws_6s(RIVALS)
    t.button(3, "win")
    t.button(1, "pong")
    t.button(2, "win")
    t.reveal(2)
    return t


@case(
    "intercepted_win",
    "a 槓 press by another seat between the two 胡 presses decides nothing",
    hands=[SEAT2_WINS_6S],
)
def _() -> Scene:
    t = dealer_throws_6s(RIVALS | {1: "E E E E S S S S 1p 1p 1p 1p 9p 6s 6s 6s"})
    t.button(3, "win")
    t.button(1, "kong")
    t.button(2, "win")
    t.reveal(2)
    return t


@case(
    "intercepted_win",
    "the farther seat presses and reveals first, then the nearer seat",
    hands=[SEAT2_WINS_6S],
)
def _() -> Scene:
    t = dealer_throws_6s(RIVALS)
    t.win(3)
    t.win(2)
    return t


@case(
    "intercepted_win",
    "round the table: seat 3 discards, seats 2 then 1 press, seat 1 is nearer",
    hands=[
        {
            "result": "win",
            "kind": "discard",
            "seat": 1,
            "payer": 3,
            "tai": 1,  # 門清
            "net": [0, each_pays(1), 0, -each_pays(1)],
            "next": (1, 0),
        }
    ],
)
def _() -> Scene:
    t = second_go_round({1: READY_69P, 2: "2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 6s 6s 7p 8p W W"})
    t.cycle(0)
    t.cycle(1)
    t.cycle(2)
    t.cycle(3, "9p")
    t.button(2, "win")
    t.button(1, "win")
    t.reveal(1)
    return t


@case(
    "intercepted_win",
    "only the farther seat claims, the nearer stays silent: decided when the window closes",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "discard",
            "seat": 3,
            "payer": 0,
            "tai": 2,
            "net": [-each_pays(2, dealer_tai=1), 0, 0, each_pays(2, dealer_tai=1)],
        }
    ],
)
def _() -> Scene:
    """Seat 2 could win on the 6s and never claims; seat 3's revealed 胡 is decided when
    the window closes (here, at the next hand's shuffle)."""
    t = dealer_throws_6s(RIVALS)
    t.win(3)
    t.emit({"kind": "shuffle_started"})
    return t


@case(
    "intercepted_win",
    "only the farther seat claims (the nearer passes): it wins",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "discard",
            "seat": 3,
            "payer": 0,
            "tai": 2,  # 門清 1 + 獨聽 1
            "net": [-each_pays(2, dealer_tai=1), 0, 0, each_pays(2, dealer_tai=1)],
        }
    ],
)
def _() -> Scene:
    t = dealer_throws_6s(RIVALS)
    t.button(2, "pass")
    t.win(3)
    return t


@case(
    "intercepted_win",
    "the nearer seat's 胡 is barred (過水) and the farther one's legal",
    violations=[("press", 2, "passed_win")],
    hands=[{}],
)
def _() -> Scene:
    """Open point: who wins when the nearest claimant may not win. Either way seat 2
    declared a win while 過水 held, which the code table names passed_win; the hand's
    result is left open here."""
    t = second_go_round(RIVALS)
    t.cycle(0, "9s")
    t.button(2, "pass")  # seat 2 lets its 9s go: 過水 until its own discard
    t.draw(1, "6s")
    t.discard(1, "6s")
    t.mark("press")
    t.button(2, "win")
    t.win(3)
    return t


# --- 搶槓: a win on another's 加槓 tile; the adder pays as a discarder ---------------

ROBBER = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 8p 9p C C"  # seat 3: waits 7p alone
ADDER = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"  # seat 1: a pair of 7p


def adds_7p(more: dict[int, str] | None = None) -> Scene:
    """Seat 1 pongs the dealer's 7p (seat 3 lets it go: its discard then clears the 過水),
    later draws the fourth 7p and adds it to the pong."""
    t = started({1: ADDER, 3: ROBBER, **(more or {})}, extra="7p")
    add_the_fourth_7p(t)
    return t


@case(
    "robbing_kong",
    "seat 3 wins on seat 1's 加槓 tile: seat 1 pays",
    hands=[
        {
            "result": "win",
            "kind": "robbing_kong",
            "seat": 3,
            "payer": 1,
            "tai": 3,  # 門清 1 + 獨聽 1 + 搶槓 1
            "items_has": {"robbing_kong", "single_wait", "concealed"},
            "net": [0, -each_pays(3), 0, each_pays(3)],
            "next": (1, 0),
        }
    ],
)
def _() -> Scene:
    t = adds_7p()
    t.win(3)
    return t


ALSO_7P = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6s 6s 6s 8p 9p W W"  # seat 2: waits 7p alone


@case(
    "robbing_kong",
    "two seats rob the 加槓 tile: the nearer after the adder wins, whatever the order",
    hands=[
        {
            "result": "win",
            "kind": "robbing_kong",
            "seat": 2,
            "payer": 1,
            "tai": 3,
            "net": [0, -each_pays(3), each_pays(3), 0],
        }
    ],
)
def _() -> Scene:
    t = adds_7p({2: ALSO_7P})
    t.button(3, "win")
    t.win(2)
    return t


@case("robbing_kong", "nobody robs: the kong stands, its replacement is drawn", twin=True)
def _() -> Scene:
    t = adds_7p()
    t.replacement(1, "3m")
    t.discard(1, "3m")
    t.cycle(2)
    return t


# --- 過水 (D1) ----------------------------------------------------------------------------

KONG_E = "3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p, a 3p triplet
PASS_WATER_SELF_DRAW = {"rules": {"pass_water_self_draw": True}}


def _seat1_false(tai: int, code: str = "passed_win") -> dict[str, object]:
    """Seat 1's 詐胡 on a 牌面 of `tai`: it pays each other seat, the dealer its 台 too."""
    return {
        "result": "false_win",
        "kind": "false_win",
        "seat": 1,
        "payer": None,
        "codes": [code],
        "tai": tai,
        "net": [
            each_pays(tai, dealer_tai=1),
            -(3 * each_pays(tai) + 20),
            each_pays(tai),
            each_pays(tai),
        ],
        "next": (0, 0),
    }


def _seat1_self_draw(tai: int, **more: object) -> dict[str, object]:
    return {
        "result": "win",
        "kind": "self_draw",
        "seat": 1,
        "tai": tai,
        "net": [
            -each_pays(tai, dealer_tai=1),
            3 * each_pays(tai) + 20,
            -each_pays(tai),
            -each_pays(tai),
        ],
        **more,
    }


def dealer_throws_6p(hand: str = READY_69P, **kw: object) -> Scene:
    """Seat 1 waits 6p 9p; in the second go-round the dealer discards a 6p."""
    t = second_go_round({1: hand}, **kw)  # type: ignore[arg-type]
    t.cycle(0, "6p")
    return t


@case(
    "D1",
    "reaching to draw instead of winning, then a self-drawn 9p",
    violations=[("win", 1, "passed_win")],
    hands=[_seat1_false(3)],  # the self-drawn hand: 門清 1 + 不求自摸 2
)
def _() -> Scene:
    t = dealer_throws_6p()
    t.draw(1, "9p")
    t.mark("win")
    t.win(1)
    return t


@case(
    "D1",
    "winning on the dealer's 6p instead",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "discard",
            "seat": 1,
            "payer": 0,
            "tai": 1,
            "net": [-each_pays(1, dealer_tai=1), each_pays(1, dealer_tai=1), 0, 0],
        }
    ],
)
def _() -> Scene:
    t = dealer_throws_6p()
    t.win(1)
    return t


def passes_then_draws_9p(profile: object = "mjonline") -> Scene:
    t = dealer_throws_6p(profile=profile)
    t.button(1, "pass")
    t.draw(1, "9p")
    t.mark("win")
    t.win(1)
    return t


@case(
    "D1",
    "pass pressed, then a self-drawn 9p before any own discard",
    violations=[("win", 1, "passed_win")],
    hands=[_seat1_false(3)],
)
def _() -> Scene:
    return passes_then_draws_9p()


@case(
    "D1",
    "pass_water_self_draw = true: the same self-draw stands",
    twin=True,
    hands=[_seat1_self_draw(3, items_has={"concealed_self_draw"})],
)
def _() -> Scene:
    return passes_then_draws_9p(PASS_WATER_SELF_DRAW)


@case(
    "D1",
    "pass_water_self_draw = true: a win on a discard stays barred",
    violations=[("win", 1, "passed_win")],
    hands=[_seat1_false(1)],
)
def _() -> Scene:
    t = dealer_throws_6p(profile=PASS_WATER_SELF_DRAW)
    t.button(1, "pass")
    t.draw(1, "9p")
    t.discard(1, "9p")  # a winning tile thrown: the 過水 holds
    t.cycle(2, "6p")
    t.mark("win")
    t.win(1)
    return t


@case(
    "D1",
    "the 過水 cleared by the seat's discard of a non-winning tile: a later self-draw wins",
    twin=True,
    hands=[_seat1_self_draw(3)],
)
def _() -> Scene:
    t = dealer_throws_6p()
    t.button(1, "pass")
    t.draw(1, "3m")
    t.discard(1, "3m")
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1, "9p")
    t.win(1)
    return t


@case(
    "D1",
    "its own winning 9p drawn and thrown (a winning tile: not cleared), 胡 on seat 2's 6p",
    violations=[("win", 1, "passed_win")],
    hands=[_seat1_false(1)],
)
def _() -> Scene:
    t = second_go_round({1: READY_69P})
    t.cycle(0)
    t.draw(1, "9p")
    t.discard(1, "9p")
    t.cycle(2, "6p")
    t.mark("win")
    t.win(1)
    return t


@case(
    "D1",
    "a 3m drawn and thrown, 胡 on seat 2's 6p",
    twin=True,
    hands=[{"result": "win", "kind": "discard", "seat": 1, "payer": 2, "tai": 1}],
)
def _() -> Scene:
    t = second_go_round({1: READY_69P})
    t.cycle(0)
    t.draw(1, "3m")
    t.discard(1, "3m")
    t.cycle(2, "6p")
    t.win(1)
    return t


for _profile, _label in (("mjonline", "default"), (PASS_WATER_SELF_DRAW, "pass_water_self_draw")):

    def _concealed_kong_under_pass(profile: object = _profile) -> Scene:
        """Seat 1 passes the dealer's 6p, draws the fourth 3p, makes an 暗槓 and wins on
        the replacement: an 暗槓 does not clear 過水, its replacement may not win."""
        t = dealer_throws_6p(KONG_E, profile=profile)
        t.button(1, "pass")
        t.draw(1, "3p")
        t.kong(1, "3p", "concealed")
        t.replacement(1, "9p")
        t.mark("win")
        t.win(1)
        return t

    CASES.append(
        Case(
            "D1",
            f"an 暗槓 after the pass, a win on its replacement ({_label})",
            _concealed_kong_under_pass,
            violations=[("win", 1, "passed_win")],
            hands=[_seat1_false(4)],  # 門清 1 + 不求自摸 2 + 槓上開花 1
        )
    )


@case(
    "D1",
    "no pass: the 暗槓's replacement wins (槓上開花)",
    twin=True,
    hands=[_seat1_self_draw(4, items_has={"kong_bloom", "concealed_self_draw"})],
)
def _() -> Scene:
    t = second_go_round({1: KONG_E})
    t.cycle(0, "7p")
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "9p")
    t.win(1)
    return t


PONGED_7P = "7p 7p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 2p 3p E E"  # seat 1: pongs 7p, then waits 1p 4p


def passes_4p_with_a_7p_pong() -> Scene:
    """Seat 1 pongs the dealer's 7p and throws 3p (waits 1p 4p); it lets seat 2's 4p go
    (過水); seats 3 and 0 play; seat 1 is to draw."""
    t = started({1: PONGED_7P}, extra="7p")
    t.pong(1, 0)
    t.discard(1, "3p")
    t.cycle(2, "4p")
    t.button(1, "pass")
    t.cycle(3)
    t.cycle(0)
    return t


@case(
    "D1",
    "after the pass a self-drawn 1p, no 加槓 between",
    violations=[("win", 1, "passed_win")],
    hands=[_seat1_false(1)],  # 自摸 1
)
def _() -> Scene:
    t = passes_4p_with_a_7p_pong()
    t.draw(1, "1p")
    t.mark("win")
    t.win(1)
    return t


@case(
    "D1",
    "after the pass a 加槓 of the 7p (not a winning tile) clears it: its replacement wins",
    twin=True,
    hands=[_seat1_self_draw(2, items_has={"kong_bloom", "self_draw"})],  # 自摸 1 + 槓上開花 1
)
def _() -> Scene:
    t = passes_4p_with_a_7p_pong()
    t.draw(1, "7p")
    t.kong(1, "7p", "added")
    t.replacement(1, "1p")
    t.win(1)
    return t


@case(
    "D1",
    "ponging a tile it could win on is a pass; its discard of a winning tile keeps it",
    violations=[("win", 2, "passed_win")],
    hands=[
        {
            "result": "false_win",
            "seat": 2,
            "codes": ["passed_win"],
            "tai": 0,  # a 碰 (not 門清), no other item: 牌面 0
            "net": [each_pays(0, dealer_tai=1), 100, -320, 100],
        }
    ],
)
def _() -> Scene:
    """Seat 2 (waits 2m or 6p) pongs the dealer's 2m instead of winning (得和牌而未和牌),
    throws 4p, which leaves 2p 3p: waits 1p 4p, so the 4p was a winning tile; 胡 on
    seat 3's 4p."""
    t = second_go_round({2: SHANPON_2M_6P})
    t.cycle(0, "2m")
    t.pong(2, 0)
    t.discard(2, "4p")
    t.cycle(3, "4p")
    t.mark("win")
    t.win(2)
    return t


@case(
    "D1",
    "ponging a tile that does not complete the hand is no pass",
    twin=True,
    hands=[{"result": "win", "kind": "discard", "seat": 2, "payer": 3}],
)
def _() -> Scene:
    t = second_go_round({2: "2m 2m 2s 3s 4s 6s 7s 8s 6m 7m 8m 2p 3p 4p 6p 7p"})
    t.cycle(0, "2m")  # seat 2 waits 5p 8p: the 2m is only a pong
    t.pong(2, 0)
    t.discard(2, "6p")  # waits 7p alone
    t.cycle(3, "7p")
    t.win(2)
    return t


@case(
    "D1",
    "chowing a tile it could win on is a pass; its discard of a non-winning tile clears it",
    twin=True,
    hands=[{"result": "win", "kind": "discard", "seat": 1, "payer": 3}],
)
def _() -> Scene:
    t = second_go_round({1: "2m 2m 3m 3m 3m 4m 4m 2s 3s 4s 6s 7s 8s 2p 3p 4p"})
    t.cycle(0, "4m")  # seat 1 waits 2m 3m 4m
    t.chow(1, 0, "2m 3m")
    t.discard(1, "2m")  # waits 3m 4m: the 2m is no winning tile
    t.cycle(2)
    t.cycle(3, "3m")
    t.win(1)
    return t
