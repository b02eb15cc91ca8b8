"""The scenarios of test_rulebook_codes.py (its CASES), kept apart so other tests
(test_violation_details.py) read them without importing a test module.

Rulebook rows, part 1: every violation code of taiwan16.md §3 ("Violation codes"), each
with scenarios that break the rule and their legal twins, through the mirror and through
`mjtable replay` (see rulebook.py). 行牌禁制 1–8 are the codes restriction_1 … restriction_8.
"""

from __future__ import annotations

from tests.mirror.kit_rulebook import (
    DEALER_NO_5M,
    PAIR_3M,
    READY_8S,
    READY_25M,
    READY_69S,
    SHANPON_2M_6P,
    Case,
    Scene,
    each_pays,
    registrar,
    second_go_round,
    started,
)
from tests.mirror.kit_script import QUIET, quiet

CASES: list[Case] = []
case = registrar(CASES)

# --- out_of_turn: a tile taken when it is not that seat's move -----------------------


@case("out_of_turn", "draw in another seat's turn", violations=[("draw", 2, "out_of_turn")])
def _() -> Scene:
    """Seat 2 draws in seat 1's turn; the referee puts the tile back, seat 1 draws it and
    plays on: one violation, and the mirror follows the tiles."""
    t = started()
    t.mark("draw")
    t.draw(2, "3m")
    taken = t.concealed[2][-1]
    t.draw(1, tile=taken, returned=True)
    t.discard(1, "3m")
    t.cycle(2)
    return t


@case("out_of_turn", "draws in turn", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.discard(1, "3m")
    t.cycle(2)
    return t


# --- wrong_end -----------------------------------------------------------------------


@case("wrong_end", "a turn's draw from the 槓尾", violations=[("draw", 1, "wrong_end")])
def _() -> Scene:
    t = started()
    t.mark("draw")
    t.draw(1, "3m", end="back")
    return t


@case(
    "wrong_end",
    "a turn's draw from the 槓尾, then the seat's discard",
    violations=[("draw", 1, "wrong_end")],
)
def _() -> Scene:
    t = started()
    t.mark("draw")
    t.draw(1, "3m", end="back")
    t.discard(1, "3m")
    t.cycle(2)
    return t


@case("wrong_end", "a turn's draw from the front", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.discard(1, "3m")
    return t


@case("wrong_end", "a kong's replacement from the front", violations=[("repl", 0, "wrong_end")])
def _() -> Scene:
    t = Scene(quiet())
    t.kong(0, "P", "concealed")
    t.mark("repl")
    t.replacement(0, "3m", end="front")
    return t


@case("wrong_end", "a kong's replacement from the 槓尾", twin=True)
def _() -> Scene:
    t = Scene(quiet())
    t.kong(0, "P", "concealed")
    t.replacement(0, "3m")
    t.discard(0, "2m")
    t.cycle(1)
    return t


# --- replacement_order: 補花 out of its pass, a flower not replaced before the discard --

FLOWERS_01 = quiet({0: QUIET[0] + " h1", 1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h2"})
FLOWERS_12 = quiet(
    {
        1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 9p h2",
        2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 9s h3",
    }
)


@case(
    "replacement_order",
    "opening 補花: seat 1 before the dealer has its replacement",
    violations=[("reveal|repl", 1, "replacement_order")],
)
def _() -> Scene:
    """§2: the opening 補花 goes in turn order from the dealer. Seat 1 replaces its flower
    while the dealer's replacement is still owed."""
    t = Scene(FLOWERS_01)
    t.flower(0, "h1")
    t.mark("reveal")
    t.flower(1, "h2")
    t.mark("repl")
    t.replacement(1, "3m")
    t.replacement(0, "4m")
    return t


@case("replacement_order", "opening 補花: the dealer, then seat 1", twin=True)
def _() -> Scene:
    t = Scene(FLOWERS_01)
    t.flower(0, "h1")
    t.replacement(0, "4m")
    t.flower(1, "h2")
    t.replacement(1, "3m")
    t.discard(0, "4m")
    t.cycle(1)
    return t


@case(
    "replacement_order",
    "opening 補花: seat 2 before seat 1",
    violations=[("reveal|repl", 2, "replacement_order")],
)
def _() -> Scene:
    """§2: in turn order from the dealer. The dealer has no flower; seat 2 replaces its h3
    before seat 1 (next after the dealer) has replaced its h2."""
    t = Scene(FLOWERS_12)
    t.mark("reveal")
    t.flower(2, "h3")
    t.mark("repl")
    t.replacement(2, "3m")
    t.flower(1, "h2")
    t.replacement(1, "4m")
    return t


@case("replacement_order", "opening 補花: seat 1, then seat 2", twin=True)
def _() -> Scene:
    t = Scene(FLOWERS_12)
    t.flower(1, "h2")
    t.replacement(1, "4m")
    t.flower(2, "h3")
    t.replacement(2, "3m")
    t.discard(0, "2m")
    t.cycle(1)
    return t


@case(
    "replacement_order",
    "a flower drawn as a replacement replaced before the next pass",
    violations=[("reveal|repl", 0, "replacement_order")],
)
def _() -> Scene:
    """§2: flowers drawn as replacements are replaced in the next pass. The dealer's
    replacement for h1 is h5; the dealer replaces h5 at once, before seat 1's 補花."""
    t = Scene(FLOWERS_01)
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.mark("reveal")
    t.flower(0, "h5")
    t.mark("repl")
    t.replacement(0, "4m")
    t.flower(1, "h2")
    t.replacement(1, "3m")
    return t


@case("replacement_order", "a flower drawn as a replacement replaced in the next pass", twin=True)
def _() -> Scene:
    t = Scene(FLOWERS_01)
    t.flower(0, "h1")
    t.replacement(0, "h5")
    t.flower(1, "h2")
    t.replacement(1, "3m")
    t.flower(0, "h5")
    t.replacement(0, "4m")
    t.discard(0, "4m")
    t.cycle(1)
    return t


@case(
    "replacement_order",
    "a flower in play revealed, a discard before its replacement",
    violations=[("discard", 1, "replacement_order")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.mark("discard")
    t.discard(1, "9p")
    return t


@case(
    "replacement_order",
    "a flower in play kept in hand, another tile discarded",
    violations=[("discard", 1, "replacement_order")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.mark("discard")
    t.discard(1, "9p")
    return t


@case("replacement_order", "a flower in play revealed and replaced, then the discard", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.replacement(1, "4m")
    t.discard(1, "4m")
    t.cycle(2)
    return t


# --- reserve_draw ----------------------------------------------------------------------

DRAWN_HAND = {"result": "drawn", "kind": None, "seat": None, "net": [0, 0, 0, 0], "next": (0, 1)}


@case(
    "reserve_draw",
    "a draw after the hand ended in 荒局",
    violations=[("draw", 0, "reserve_draw")],
    hands=[DRAWN_HAND],
)
def _() -> Scene:
    t = started()
    t.burn(0)
    assert t.next_seat == 0
    t.mark("draw")
    t.draw(0, count=False)
    return t


def last_discard_6s() -> Scene:
    """Seat 3 draws the last drawable tile (the 海底) and discards a 6s, on which seat 2
    (waits 6s 9s) may still win: the hand is not over yet."""
    t = started({2: READY_69S})
    six = t.keep("6s")
    t.burn(1)
    assert (t.next_seat, t.drawable) == (3, 1)
    t.cycle_kept(3, six)
    assert t.drawable == 0
    return t


SEAT2_WINS_THE_LAST_DISCARD = {
    "result": "win",
    "kind": "discard",
    "seat": 2,
    "payer": 3,
    "tai": 1,  # 門清 (海底撈月 is the 海底 draw's, not its discard's)
    "net": [0, 0, each_pays(1), -each_pays(1)],
}


@case(
    "reserve_draw",
    "a draw from the reserve while a win on the last discard is still open",
    violations=[("draw", 0, "reserve_draw")],
    hands=[SEAT2_WINS_THE_LAST_DISCARD],
)
def _() -> Scene:
    t = last_discard_6s()
    t.mark("draw")
    t.draw(0)
    t.win(2)
    return t


@case(
    "reserve_draw",
    "no draw: the win on the last discard",
    twin=True,
    hands=[SEAT2_WINS_THE_LAST_DISCARD],
)
def _() -> Scene:
    t = last_discard_6s()
    t.win(2)
    return t


@case("reserve_draw", "the 海底 drawn and discarded, nothing after", twin=True, hands=[DRAWN_HAND])
def _() -> Scene:
    t = started()
    t.burn(1)
    t.cycle(t.next_seat)
    assert t.drawable == 0
    return t


@case("reserve_draw", "after 荒局 the next hand is dealt", twin=True, hands=[DRAWN_HAND])
def _() -> Scene:
    t = started()
    t.burn(0)
    t.new_hand(quiet())
    t.discard(0, "2m")
    t.cycle(1)
    return t


# --- chow_not_from_left ------------------------------------------------------------------

CHOWERS = {
    1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m",
    2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m",
}


@case(
    "chow_not_from_left",
    "seat 2 chows the dealer's discard",
    violations=[("chow", 2, "chow_not_from_left")],
)
def _() -> Scene:
    t = started(CHOWERS)
    t.chow(2, 0, "3m 4m")
    t.marked("chow")
    return t


@case("chow_not_from_left", "seat 1 chows its 上家's discard", twin=True)
def _() -> Scene:
    t = started(CHOWERS)
    t.chow(1, 0, "3m 4m")
    t.discard(1, "9p")
    t.cycle(2)
    return t


# --- restriction_1: no kong right after a 吃 or 碰 -----------------------------------------


@case("restriction_1", "暗槓 right after a 碰", violations=[("kong", 1, "restriction_1")])
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"})
    t.pong(1, 0)
    t.kong(1, "E", "concealed")
    t.marked("kong")
    return t


@case("restriction_1", "暗槓 right after a 吃", violations=[("kong", 1, "restriction_1")])
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"})
    t.chow(1, 0, "3m 4m")
    t.kong(1, "E", "concealed")
    t.marked("kong")
    return t


@case(
    "restriction_1", "加槓 right after the 碰 it extends", violations=[("kong", 1, "restriction_1")]
)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 2m 2m 2m"})
    t.pong(1, 0)
    t.kong(1, "2m", "added")
    t.marked("kong")
    return t


@case("restriction_1", "the 暗槓 on the seat's next draw", twin=True)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 2m 2m"})
    t.pong(1, 0)
    t.discard(1, "9p")
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1)
    t.kong(1, "E", "concealed")
    t.replacement(1)
    t.discard(1, "9p")
    return t


# --- restriction_2: the 碰槓 replacement (and flower replacements after it) cannot self-draw


KONG_8S = {1: "7p 7p 7p 2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 8s"}  # waits 8s alone
# 牌面 of the 8s on a 碰槓 replacement: 自摸 1 + 槓上開花 1 + 獨聽 1 (not 門清: a 明槓).
R2_FALSE = {
    "result": "false_win",
    "kind": "false_win",
    "seat": 1,
    "payer": None,
    "codes": ["restriction_2"],
    "tai": 3,
    "net": [each_pays(3, dealer_tai=1), -(3 * each_pays(3) + 20), each_pays(3), each_pays(3)],
    "next": (0, 0),
}


@case(
    "restriction_2",
    "self-draw on the 碰槓 replacement",
    violations=[("win", 1, "restriction_2")],
    hands=[R2_FALSE],
)
def _() -> Scene:
    t = started(KONG_8S, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    t.mark("win")
    t.win(1)
    return t


@case(
    "restriction_2",
    "self-draw on a flower's replacement after the 碰槓 replacement",
    violations=[("win", 1, "restriction_2")],
    hands=[R2_FALSE],
)
def _() -> Scene:
    t = started(KONG_8S, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "h7")
    t.flower(1, "h7")
    t.replacement(1, "8s")
    t.mark("win")
    t.win(1)
    return t


@case(
    "restriction_2",
    "the same kong made as an 暗槓 from the seat's draw: 槓上開花 stands",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "self_draw",
            "seat": 1,
            "payer": None,
            "tai": 5,  # 門清 1 + 不求自摸 2 + 槓上開花 1 + 獨聽 1
            "items_has": {"kong_bloom", "concealed_self_draw", "single_wait"},
            "net": [
                -each_pays(5, dealer_tai=1),
                3 * each_pays(5) + 20,
                -each_pays(5),
                -each_pays(5),
            ],
        }
    ],
)
def _() -> Scene:
    t = started(KONG_8S)
    t.draw(1, "7p")
    t.kong(1, "7p", "concealed")
    t.replacement(1, "8s")
    t.win(1)
    return t


# --- restriction_3 (and D10): no further kong after a 碰槓 replacement in the same turn --

KONGER = {1: "7p 7p 7p 3m 3m 3m 3m 6m 7m 8m 2s 3s 4s 6p 6p 6p"}


@case(
    "restriction_3",
    "暗槓 right after the 碰槓 replacement",
    violations=[("kong", 1, "restriction_3")],
)
def _() -> Scene:
    t = started(KONGER, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    t.kong(1, "3m", "concealed")
    t.marked("kong")
    return t


@case("restriction_3", "the 暗槓 on the seat's next draw", twin=True)
def _() -> Scene:
    t = started(KONGER, extra="7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "8s")
    t.discard(1, "8s")
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1, "2p")
    t.kong(1, "3m", "concealed")
    t.replacement(1, "4p")
    t.discard(1, "4p")
    return t


# --- restriction_4: a self-draw must begin with a normal draw in turn order -------------

R4_TAI = 4  # 門清 1 + 不求自摸 2 + 獨聽 1


@case(
    "restriction_4",
    "self-draw on a tile drawn out of turn",
    violations=[
        ("draw", 2, "out_of_turn"),
        ("win", 2, "restriction_4"),
        ("win", 2, "dead_hand_claim"),
    ],
    violations_unordered=True,
    hands=[
        {
            "result": "false_win",
            "seat": 2,
            "codes_among": {"restriction_4", "dead_hand_claim"},
            "tai": R4_TAI,
            "net": [
                each_pays(R4_TAI, dealer_tai=1),
                each_pays(R4_TAI),
                -(3 * each_pays(R4_TAI) + 20),
                each_pays(R4_TAI),
            ],
            "next": (0, 0),
        }
    ],
)
def _() -> Scene:
    """The win breaks 禁制 4; and taking a tile out of turn made the seat 相公 (D9's
    list), so its win is also a dead_hand_claim: one code per broken rule."""
    t = started({2: READY_8S})
    t.mark("draw")
    t.draw(2, "8s")
    t.mark("win")
    t.win(2)
    return t


@case(
    "restriction_4",
    "self-draw on a draw in turn",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "self_draw",
            "seat": 2,
            "tai": R4_TAI,
            "net": [
                -each_pays(R4_TAI, dealer_tai=1),
                -each_pays(R4_TAI),
                3 * each_pays(R4_TAI) + 20,
                -each_pays(R4_TAI),
            ],
        }
    ],
)
def _() -> Scene:
    t = started({2: READY_8S})
    t.cycle(1)
    t.draw(2, "8s")
    t.win(2)
    return t


# --- restriction_5: 暗槓 with the pre-kong draw kept, a replacement win on a wait discarded
# in this go-round ---------------------------------------------------------------------

KEEPER = {1: "3p 3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 3s 4s 8p"}  # draws 8p: waits 2s 5s
R5_TAI = 4  # 門清 1 + 不求自摸 2 + 槓上開花 1


@case(
    "restriction_5",
    "replacement win whose waits include the dealer's 2s of this go-round",
    violations=[("win", 1, "restriction_5")],
    hands=[
        {
            "result": "false_win",
            "seat": 1,
            "codes": ["restriction_5"],
            "tai": R5_TAI,
            "net": [
                each_pays(R5_TAI, dealer_tai=1),
                -(3 * each_pays(R5_TAI) + 20),
                each_pays(R5_TAI),
                each_pays(R5_TAI),
            ],
        }
    ],
)
def _() -> Scene:
    t = started(KEEPER, extra="2s")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "2s")
    t.mark("win")
    t.win(1)
    return t


@case(
    "restriction_5",
    "no wait of the seat discarded in this go-round: the replacement win stands",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "self_draw",
            "seat": 1,
            "tai": R5_TAI,
            "items_has": {"kong_bloom"},
            "net": [
                -each_pays(R5_TAI, dealer_tai=1),
                3 * each_pays(R5_TAI) + 20,
                -each_pays(R5_TAI),
                -each_pays(R5_TAI),
            ],
        }
    ],
)
def _() -> Scene:
    t = started(KEEPER, extra="7p")
    t.draw(1, "8p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "2s")
    t.win(1)
    return t


# --- restriction_6: after 吃 not its tile or 絡; after a discard no 吃 of it or its 絡 in the
# go-round; after 碰 not the same tile ---------------------------------------------------

LUO_DEALER = "P P P P 2p 2p 2p 2p 6p 6p 6p 6p 2s 2s 2s 2s 2m"
LUO_SEAT = "E E E E S S S S 1p 1p 1p 1p 2m 3m 4m 5m"


for _thrown, _what in (("2m", "the chowed tile"), ("5m", "its 絡")):

    def _chow_then(thrown: str = _thrown) -> Scene:
        t = started({0: LUO_DEALER, 1: LUO_SEAT})
        t.chow(1, 0, "3m 4m")
        t.mark("discard")
        t.discard(1, thrown)
        return t

    CASES.append(
        Case(
            "restriction_6",
            f"吃 2m with 3m 4m, then {_what} {_thrown} discarded",
            _chow_then,
            violations=[("discard", 1, "restriction_6")],
        )
    )


@case("restriction_6", "吃 2m with 3m 4m, then E discarded", twin=True)
def _() -> Scene:
    t = started({0: LUO_DEALER, 1: LUO_SEAT})
    t.chow(1, 0, "3m 4m")
    t.discard(1, "E")
    t.cycle(2)
    return t


@case(
    "restriction_6",
    "吃 3m with 2m 4m (a middle chow has no 絡), then 6m discarded",
    twin=True,
)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 2m 4m 6m 9p"}, extra="3m")
    t.chow(1, 0, "2m 4m")
    t.discard(1, "6m")
    t.cycle(2)
    return t


PONG_2M = {1: "E E E E S S S S 1p 1p 1p 9p 2m 2m 2m 3m"}


@case("restriction_6", "碰 2m, then a 2m discarded", violations=[("discard", 1, "restriction_6")])
def _() -> Scene:
    t = started(PONG_2M)
    t.pong(1, 0)
    t.mark("discard")
    t.discard(1, "2m")
    return t


@case("restriction_6", "碰 2m, then 3m discarded", twin=True)
def _() -> Scene:
    t = started(PONG_2M)
    t.pong(1, 0)
    t.discard(1, "3m")
    t.cycle(2)
    return t


CHOW_AFTER = "E E E E S S S S 1p 1p 1p 1p 9p 3m 4m 5m"  # seat 1


def _discard_then_chow(thrown: str, chowed: str, own: str) -> Scene:
    """Seat 1 draws 6m and discards `thrown`; later in the same go-round (before its next
    discard) it chows the dealer's `chowed` with `own`."""
    t = started({0: LUO_DEALER, 1: CHOW_AFTER})
    t.draw(1, "6m")
    t.discard(1, thrown)
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, chowed)
    t.chow(1, 0, own)
    t.marked("chow")
    return t


CASES += [
    Case(
        "restriction_6",
        "5m discarded, then 2m (its 絡) chowed with 3m 4m in the go-round",
        lambda: _discard_then_chow("5m", "2m", "3m 4m"),
        violations=[("chow", 1, "restriction_6")],
    ),
    Case(
        "restriction_6",
        "3m discarded, then 3m chowed with 4m 5m in the go-round",
        lambda: _discard_then_chow("3m", "3m", "4m 5m"),
        violations=[("chow", 1, "restriction_6")],
    ),
    Case(
        "restriction_6",
        "9p discarded, then 2m chowed with 3m 4m",
        lambda: _discard_then_chow("9p", "2m", "3m 4m"),
        twin=True,
    ),
]


@case(
    "restriction_6",
    "6m discarded, then 3m chowed with 2m 4m (a middle chow: 6m is not its 絡)",
    twin=True,
)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 2m 4m 6m"})
    t.draw(1, "7m")
    t.discard(1, "6m")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "3m")
    t.chow(1, 0, "2m 4m")
    t.discard(1, "E")
    return t


# --- restriction_7: no 吃, 碰 or 碰槓 with three or fewer drawable tiles (D12) ---------


@case(
    "restriction_7",
    "碰 of a discard made with 3 drawable",
    violations=[("pong", 2, "restriction_7")],
)
def _() -> Scene:
    t = started({2: PAIR_3M})
    t.burn(4)
    assert t.next_seat == 0
    t.cycle(0, "3m")
    assert t.drawable == 3
    t.pong(2, 0)
    t.marked("pong")
    return t


@case(
    "restriction_7",
    "吃 of a discard made with 3 drawable",
    violations=[("chow", 1, "restriction_7")],
)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"})
    two = t.keep("2m")
    t.burn(4)
    assert t.next_seat == 0
    t.cycle_kept(0, two)
    assert t.drawable == 3
    t.chow(1, 0, "3m 4m")
    t.marked("chow")
    return t


@case(
    "restriction_7",
    "碰槓 of a discard made with 3 drawable",
    violations=[("kong", 2, "restriction_7")],
)
def _() -> Scene:
    t = started({2: "W W W W N N N N 1s 1s 1s 1s 9s 3m 3m 3m"})
    t.burn(4)
    t.cycle(0, "3m")
    assert t.drawable == 3
    t.kong(2, "3m", "exposed", from_seat=0)
    t.marked("kong")
    return t


@case("restriction_7", "碰 of a discard made with 4 drawable", twin=True)
def _() -> Scene:
    t = started({2: PAIR_3M})
    t.burn(5)
    assert t.next_seat == 3
    t.cycle(3, "3m")
    assert t.drawable == 4
    t.pong(2, 3)
    t.discard(2, "9s")
    return t


@case("restriction_7", "吃 of a discard made with 4 drawable", twin=True)
def _() -> Scene:
    """The dealer chows seat 3's 2m, discarded with 4 drawable."""
    t = started({0: "P P P P 5p 5p 5p 5p 5s 5s 5s 5s 3m 4m 6p 6p 2m"})
    two = t.keep("2m")
    t.burn(5)
    assert t.next_seat == 3
    t.cycle_kept(3, two)
    assert t.drawable == 4
    t.chow(0, 3, "3m 4m")
    t.discard(0, "6p")
    return t


# --- restriction_8: tiles shown by one's own fault ------------------------------------

SHOWN_PAIR = {2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"}
SHOWN_DAZI = {1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"}
R8_FALSE_TAI = 1  # 門清 1: 234m 678m 234s 678s 234p WW won on a discard


def _r8_false(payer_is_dealer: bool = True) -> dict[str, object]:
    return {
        "result": "false_win",
        "seat": 2,
        "codes": ["restriction_8"],
        "tai": R8_FALSE_TAI,
        "net": [
            each_pays(R8_FALSE_TAI, dealer_tai=1),
            each_pays(R8_FALSE_TAI),
            -(3 * each_pays(R8_FALSE_TAI) + 20),
            each_pays(R8_FALSE_TAI),
        ],
        "next": (0, 0),
    }


@case("restriction_8", "碰 with a shown tile", violations=[("pong", 2, "restriction_8")])
def _() -> Scene:
    t = Scene(quiet(SHOWN_PAIR))
    t.shown(2, "2m")
    t.discard(0, "2m")
    t.pong(2, 0)
    t.marked("pong")
    return t


@case("restriction_8", "碰 with no tile shown", twin=True)
def _() -> Scene:
    t = Scene(quiet(SHOWN_PAIR))
    t.discard(0, "2m")
    t.pong(2, 0)
    t.discard(2, "9s")
    return t


@case("restriction_8", "吃 with a shown 搭子", violations=[("chow", 1, "restriction_8")])
def _() -> Scene:
    t = Scene(quiet(SHOWN_DAZI))
    t.shown(1, "3m 4m")
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.marked("chow")
    return t


@case("restriction_8", "吃 with no tile shown", twin=True)
def _() -> Scene:
    t = Scene(quiet(SHOWN_DAZI))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.discard(1, "9p")
    return t


@case("restriction_8", "暗槓 with a shown tile", violations=[("kong", 1, "restriction_8")])
def _() -> Scene:
    t = started()
    t.shown(1, "E")
    t.draw(1, "3m")
    t.kong(1, "E", "concealed")
    t.marked("kong")
    return t


@case("restriction_8", "暗槓 with no tile shown", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.kong(1, "E", "concealed")
    t.replacement(1, "4m")
    t.discard(1, "4m")
    return t


def _dazi_shown_then(win_on: str, show: str | None = "3m 4m") -> Scene:
    """Seat 2 (waits 2m 5m on its 搭子 3m 4m) shows `show` by its own fault after the deal;
    in the second go-round the dealer discards `win_on` and seat 2 declares 胡."""
    t = second_go_round({0: DEALER_NO_5M, 2: READY_25M}, extra="6p")
    if show:
        t.shown(2, show)
    t.cycle(0, win_on)
    t.mark("win")
    t.win(2)
    return t


for _tile in ("2m", "5m"):
    CASES.append(
        Case(
            "restriction_8",
            f"shown 搭子 3m 4m, 胡 on the {_tile} that completes it",
            lambda tile=_tile: _dazi_shown_then(tile),
            violations=[("win", 2, "restriction_8")],
            hands=[_r8_false()],
        )
    )
CASES += [
    Case(
        "restriction_8",
        "no tile shown, 胡 on the 2m",
        lambda: _dazi_shown_then("2m", show=None),
        twin=True,
        hands=[
            {
                "result": "win",
                "kind": "discard",
                "seat": 2,
                "payer": 0,
                "tai": 1,
                "net": [-each_pays(1, dealer_tai=1), 0, each_pays(1, dealer_tai=1), 0],
            }
        ],
    ),
    Case(
        "restriction_8",
        "a shown 6s (not completed by the 2m), 胡 on the 2m",
        lambda: _dazi_shown_then("2m", show="6s"),
        twin=True,
        hands=[{"result": "win", "kind": "discard", "seat": 2, "payer": 0, "tai": 1}],
    ),
]


@case(
    "restriction_8",
    "shown 2m of a 對碰 wait, 胡 on the 2m that completes it",
    violations=[("win", 2, "restriction_8")],
    hands=[{"result": "false_win", "seat": 2, "codes": ["restriction_8"], "next": (0, 0)}],
)
def _() -> Scene:
    t = second_go_round({2: SHANPON_2M_6P})
    t.shown(2, "2m")
    t.cycle(0, "2m")
    t.mark("win")
    t.win(2)
    return t


@case(
    "restriction_8",
    "shown 搭子 3m 4m, a self-drawn 2m stays allowed",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "self_draw",
            "seat": 2,
            "tai": 3,  # 門清 1 + 不求自摸 2
            "net": [
                -each_pays(3, dealer_tai=1),
                -each_pays(3),
                3 * each_pays(3) + 20,
                -each_pays(3),
            ],
        }
    ],
)
def _() -> Scene:
    t = second_go_round({0: DEALER_NO_5M, 2: READY_25M}, extra="6p")
    t.shown(2, "3m 4m")
    t.cycle(0)
    t.cycle(1)
    t.draw(2, "2m")
    t.win(2)
    return t


# --- passed_win (過水, D1) ---------------------------------------------------------------


@case(
    "passed_win",
    "passes the dealer's 6s, 胡 on seat 1's 9s in the same go-round",
    violations=[("win", 2, "passed_win")],
    hands=[
        {
            "result": "false_win",
            "kind": "false_win",
            "seat": 2,
            "payer": None,
            "codes": ["passed_win"],
            "tai": 1,  # the 牌面 of the complete hand: 門清
            "net": [
                each_pays(1, dealer_tai=1),
                each_pays(1),
                -(3 * each_pays(1) + 20),
                each_pays(1),
            ],
            "next": (0, 0),
        }
    ],
)
def _() -> Scene:
    t = second_go_round({2: READY_69S})
    t.cycle(0, "6s")
    t.button(2, "pass")
    t.cycle(1, "9s")
    t.mark("win")
    t.win(2)
    return t


@case(
    "passed_win",
    "胡 on the dealer's 6s",
    twin=True,
    hands=[
        {
            "result": "win",
            "kind": "discard",
            "seat": 2,
            "payer": 0,
            "tai": 1,
            "dealer_tai": 1,
            "net": [-each_pays(1, dealer_tai=1), 0, each_pays(1, dealer_tai=1), 0],
            "next": (1, 0),
        }
    ],
)
def _() -> Scene:
    t = second_go_round({2: READY_69S})
    t.cycle(0, "6s")
    t.win(2)
    return t


# --- passed_pong (過碰, D2) --------------------------------------------------------------


@case(
    "passed_pong",
    "lets the dealer's 3m go, pongs seat 1's 3m in the same go-round",
    violations=[("pong", 2, "passed_pong")],
)
def _() -> Scene:
    t = started({2: PAIR_3M}, extra="3m")
    t.cycle(1, "3m")
    t.pong(2, 1)
    t.marked("pong")
    return t


@case("passed_pong", "pongs the dealer's 3m", twin=True)
def _() -> Scene:
    t = started({2: PAIR_3M}, extra="3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    return t


# --- late_claim (D3) ---------------------------------------------------------------------


@case(
    "late_claim",
    "碰 after the next seat's draw is recorded",
    violations=[("pong", 2, "late_claim")],
)
def _() -> Scene:
    t = started({2: PAIR_3M}, extra="3m")
    t.draw(1, "4m")
    t.pong(2, 0)
    t.marked("pong")
    return t


@case("late_claim", "碰 before the next seat's draw", twin=True)
def _() -> Scene:
    t = started({2: PAIR_3M}, extra="3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.cycle(3)
    return t


@case(
    "late_claim",
    "胡 on the dealer's 6s after seat 1 drew and discarded",
    violations=[("win", 2, "passed_win"), ("win", 2, "late_claim")],
    hands=[{"result": "false_win", "seat": 2, "codes_among": {"late_claim", "passed_win"}}],
    notes="open point: a 胡 pressed late also broke D1 (the seat let the window close); "
    "the text's 'one code per broken rule' gives both",
)
def _() -> Scene:
    t = second_go_round({2: READY_69S})
    t.cycle(0, "6s")
    six = t.offered
    assert six is not None
    t.cycle(1, "4m")
    t.mark("win")
    t.button(2, "win")
    t.reveal(2, [*t.concealed[2], six])
    return t


@case(
    "late_claim",
    "胡 on the dealer's 6s after seat 1 drew, before its discard",
    twin=True,
    hands=[{"result": "win", "kind": "discard", "seat": 2, "payer": 0, "tai": 1}],
)
def _() -> Scene:
    t = second_go_round({2: READY_69S})
    t.cycle(0, "6s")
    t.draw(1, "4m")
    t.win(2)
    return t


# --- dead_hand_claim ---------------------------------------------------------------------

DEAD = {2: "W W W W N N N N 1s 1s 1s 1s 3m 4m 7p 7p"}


@case(
    "dead_hand_claim",
    "a 相公 seat pongs",
    violations=[("chow", 2, "chow_not_from_left"), ("pong", 2, "dead_hand_claim")],
)
def _() -> Scene:
    t = started(DEAD)
    t.chow(2, 0, "3m 4m")
    t.marked("chow")
    t.discard(2, "W")
    t.cycle(3, "7p")
    t.pong(2, 3)
    t.marked("pong")
    return t


@case(
    "dead_hand_claim",
    "a seat that took a tile out of turn (相公) pongs",
    violations=[("draw", 2, "out_of_turn"), ("pong", 2, "dead_hand_claim")],
)
def _() -> Scene:
    """D9: 相公 follows the seeds' list, which has 'taking tiles out of turn' (搶摸); the
    referee puts the tile back, and the seat's later 碰 is a claim by a 相公 seat."""
    t = started(DEAD)
    t.mark("draw")
    t.draw(2, "2p")
    t.draw(1, tile=t.concealed[2][-1], returned=True)
    t.discard(1, "2p")
    t.cycle(2)
    t.cycle(3, "7p")
    t.pong(2, 3)
    t.marked("pong")
    return t


@case(
    "dead_hand_claim",
    "a seat that drew from the wrong end (相公) pongs",
    violations=[("draw", 1, "wrong_end"), ("pong", 1, "dead_hand_claim")],
)
def _() -> Scene:
    t = started({1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"})
    t.mark("draw")
    t.draw(1, "3m", end="back")
    t.discard(1, "3m")
    t.cycle(2)
    t.cycle(3, "7p")
    t.pong(1, 3)
    t.marked("pong")
    return t


@case("dead_hand_claim", "a sound seat pongs", twin=True)
def _() -> Scene:
    t = started(DEAD)
    t.cycle(1)
    t.draw(2, "2m")
    t.discard(2, "W")
    t.cycle(3, "7p")
    t.pong(2, 3)
    t.discard(2, "W")
    return t


# --- hand_size ---------------------------------------------------------------------------


@case("hand_size", "a discard with no draw (short hand)", violations=[("discard", 1, "hand_size")])
def _() -> Scene:
    t = started()
    t.mark("discard")
    t.discard(1, "9p")
    return t


@case(
    "hand_size",
    "an 暗槓 and a discard with no replacement drawn (a short hand)",
    violations=[("discard", 0, "hand_size")],
)
def _() -> Scene:
    """§3: every kong draws a replacement from the 槓尾. The dealer makes an 暗槓 and
    discards at once: its hand is a tile short."""
    t = Scene(quiet())
    t.kong(0, "P", "concealed")
    t.mark("discard")
    t.discard(0, "2m")
    return t


@case("hand_size", "an 暗槓, its replacement, then the discard", twin=True)
def _() -> Scene:
    t = Scene(quiet())
    t.kong(0, "P", "concealed")
    t.replacement(0, "3m")
    t.discard(0, "2m")
    t.cycle(1)
    return t


@case("hand_size", "a discard after the draw", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.discard(1, "9p")
    return t


# --- flower_discarded ----------------------------------------------------------------------


@case(
    "flower_discarded",
    "a flower drawn in play and discarded",
    violations=[("discard", 1, "flower_discarded")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.mark("discard")
    t.discard(1, "h3")
    return t


@case("flower_discarded", "a flower drawn in play, revealed and replaced", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.replacement(1, "3m")
    t.discard(1, "3m")
    return t


# --- void_declaration (D7) ------------------------------------------------------------------


@case("void_declaration", "天聽 on a hand not ready", violations=[("ready", 1, "void_declaration")])
def _() -> Scene:
    t = Scene(quiet())
    t.mark("ready")
    t.button(1, "ready")
    return t


@case(
    "void_declaration",
    "地聽 with the first discard on a hand not ready",
    violations=[("ready", 1, "void_declaration")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.mark("ready")
    t.button(1, "ready")
    t.discard(1, "3m")
    return t


@case("void_declaration", "天聽 on a ready hand", twin=True)
def _() -> Scene:
    t = Scene(quiet({2: READY_8S}))
    t.button(2, "ready")
    t.discard(0, "2m")
    return t


@case("void_declaration", "地聽 with the first discard on a ready hand", twin=True)
def _() -> Scene:
    t = started({2: READY_8S})
    t.cycle(1)
    t.draw(2, "7m")
    t.button(2, "ready")
    t.discard(2, "7m")
    return t


# --- kong_without_replacement (D4) -----------------------------------------------------------


@case(
    "kong_without_replacement",
    "暗槓 on the 海底: no drawable tile left for its replacement",
    violations=[("kong", 3, "kong_without_replacement")],
)
def _() -> Scene:
    t = started()
    t.burn(1)
    assert t.next_seat == 3
    t.draw(3)
    assert t.drawable == 0
    t.kong(3, "C", "concealed")
    t.marked("kong")
    return t


@case(
    "kong_without_replacement",
    "暗槓 with one drawable tile left: its replacement takes it, 荒局 after the discard",
    twin=True,
    hands=[{"result": "drawn", "net": [0, 0, 0, 0]}],
)
def _() -> Scene:
    t = started()
    t.burn(2)
    assert t.next_seat == 2
    t.draw(2)
    t.kong(2, "W", "concealed")
    t.replacement(2)
    assert t.drawable == 0
    t.discard(2, "N")
    return t


# --- false_win (詐胡) ------------------------------------------------------------------------


@case(
    "false_win",
    "a non-dealer's 胡 on a hand that does not win (dealer at 連2)",
    violations=[("win", 2, "false_win")],
    hands=[
        {
            "result": "false_win",
            "kind": "false_win",
            "seat": 2,
            "payer": None,
            "tai": 0,
            "codes": ["false_win"],
            "dealer_tai": 5,
            # 牌面 0: each pays 底; the dealer adds dealer 台 1 + 2·2
            "net": [each_pays(0, dealer_tai=5), 100, -(200 + each_pays(0, dealer_tai=5)), 100],
            "next": (0, 2),  # keeps the dealer, adds nothing to the streak
        }
    ],
)
def _() -> Scene:
    t = started({2: READY_8S}, streak=2)
    t.mark("win")
    t.win(2)
    return t


@case(
    "false_win",
    "the dealer's 胡 on a hand that does not win",
    violations=[("win", 0, "false_win")],
    hands=[
        {
            "result": "false_win",
            "seat": 0,
            "tai": 0,
            "codes": ["false_win"],
            # dealer 台 go to each of the three
            "net": [-3 * each_pays(0, dealer_tai=1), *[each_pays(0, dealer_tai=1)] * 3],
            "next": (1, 0),  # a dealer's 詐胡 passes the deal
        }
    ],
)
def _() -> Scene:
    t = second_go_round()
    t.draw(0, "3m")
    t.mark("win")
    t.win(0)
    return t


@case(
    "false_win",
    "胡 on the tile the hand waits on",
    twin=True,
    hands=[{"result": "win", "kind": "discard", "seat": 2, "payer": 0, "codes": []}],
)
def _() -> Scene:
    t = second_go_round({2: READY_8S})
    t.cycle(0, "8s")
    t.win(2)
    return t
