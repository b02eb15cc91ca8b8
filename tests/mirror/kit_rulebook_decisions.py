"""The scenarios of test_rulebook_decisions.py (its CASES), kept apart so other tests
(test_violation_details.py) read them without importing a test module.

Rulebook rows, part 3: the decisions D2–D12 of taiwan16.md §3 (D1, 過水, is in
test_rulebook_claims.py), each with the scenarios that test it and their twins, through
the mirror and through `mjtable replay` (see rulebook.py).
"""

from __future__ import annotations

from tests.mirror.kit_rulebook import (
    PAIR_3M,
    READY_69P,
    READY_69S,
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

DEALER_NO_5S = "P P P P 5m 5m 5m 5m 5p 5p 5p 5p 8p 8p 8p 8p 2m"  # every 5s left free


def _win(seat: int, payer: int | None, tai: int, **more: object) -> dict[str, object]:
    """A win at the default stakes, its net worked out from §6: the payer (or each seat on
    a self-draw) pays 底 + 台; a payment with the dealer (seat 0, 連0) adds 1 dealer 台."""
    net = [0, 0, 0, 0]
    payers = [payer] if payer is not None else [s for s in range(4) if s != seat]
    for p in payers:
        amount = each_pays(tai, dealer_tai=1 if 0 in (p, seat) else 0)
        net[p] -= amount
        net[seat] += amount
    return {
        "result": "win",
        "kind": "discard" if payer is not None else "self_draw",
        "seat": seat,
        "payer": payer,
        "tai": tai,
        "net": net,
        **more,
    }


# --- D2: 過碰 ---------------------------------------------------------------------------


@case(
    "D2",
    "lets the dealer's 3m go, pongs seat 1's 3m in the same go-round",
    violations=[("pong", 2, "passed_pong")],
)
def _() -> Scene:
    t = second_go_round({2: PAIR_3M})
    t.cycle(0, "3m")
    t.cycle(1, "3m")
    t.pong(2, 1)
    t.marked("pong")
    return t


@case("D2", "lets the dealer's 3m go, pongs seat 3's 3m after its own discard", twin=True)
def _() -> Scene:
    t = second_go_round({2: PAIR_3M})
    t.cycle(0, "3m")
    t.cycle(1)
    t.cycle(2)
    t.cycle(3, "3m")
    t.pong(2, 3)
    t.discard(2, "9s")
    return t


# --- D3: claims ordered by the events as recorded --------------------------------------


@case(
    "D3",
    "碰 once the next player's draw is recorded: late (and 相公)",
    violations=[("pong", 2, "late_claim")],
)
def _() -> Scene:
    t = second_go_round({2: PAIR_3M})
    t.cycle(0, "3m")
    t.draw(1, "4m")
    t.pong(2, 0)
    t.marked("pong")
    assert t.seat_state(2)["dead_hand"]
    return t


@case("D3", "碰 before the next player's draw", twin=True)
def _() -> Scene:
    t = second_go_round({2: PAIR_3M})
    t.cycle(0, "3m")
    t.pong(2, 0)
    t.discard(2, "9s")
    t.cycle(3)
    return t


@case(
    "D3",
    "胡 on the dealer's 6s after seat 1 drew and discarded: late",
    violations=[("win", 2, "passed_win"), ("win", 2, "late_claim")],
    hands=[{"result": "false_win", "seat": 2, "codes_among": {"late_claim", "passed_win"}}],
)
def _() -> Scene:
    """Late by D3; the window let close was also a pass (D1): both codes, one per rule."""
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
    "D3",
    "胡 on the dealer's 6s after seat 1 drew, before its discard: on time",
    twin=True,
    hands=[_win(2, 0, 1)],
)
def _() -> Scene:
    t = second_go_round({2: READY_69S})
    t.cycle(0, "6s")
    t.draw(1, "4m")
    t.win(2)
    return t


@case("D3", "碰 on a 吃 shown and not yet followed by its discard: on time", twin=True)
def _() -> Scene:
    t = second_go_round(
        {
            1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m",
            2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m",
        }
    )
    t.cycle(0, "2m")
    t.chow(1, 0, "3m 4m")
    t.pong(2, 0)
    assert t.seat_state(1)["melds"] == []
    t.concealed[1] += [tile for meld in t.melds[1] for tile in meld[1][1:]]  # the chow undone
    t.melds[1] = []
    t.discard(2, "9s")
    t.cycle(3)
    return t


# --- D4: a kong needs a drawable tile; a flower as the last drawable tile ---------------


@case(
    "D4",
    "暗槓 with no drawable tile left",
    violations=[("kong", 3, "kong_without_replacement")],
)
def _() -> Scene:
    t = started()
    t.burn(1)
    t.draw(3)
    t.kong(3, "C", "concealed")
    t.marked("kong")
    return t


@case(
    "D4",
    "a flower drawn as the last drawable tile: no replacement, 荒局",
    twin=True,
    hands=[{"result": "drawn", "kind": None, "net": [0, 0, 0, 0], "next": (0, 1)}],
)
def _() -> Scene:
    t = started()
    t.burn(1)
    t.draw(3, "h5")
    assert t.drawable == 0
    t.flower(3, "h5")
    return t


@case(
    "D4",
    "a flower drawn with drawable tiles left is replaced, play goes on",
    twin=True,
    hands=[{"result": "drawn", "net": [0, 0, 0, 0]}],
)
def _() -> Scene:
    t = started()
    t.burn(2)
    t.draw(2, "h5")
    t.flower(2, "h5")
    t.replacement(2)
    assert t.hands() == []
    t.discard(2, t.hand_codes(2).split()[-1])  # the last drawable tile gone: 荒局
    return t


# --- D5: declining the 海底 ---------------------------------------------------------------

DRAWN = {"result": "drawn", "kind": None, "seat": None, "net": [0, 0, 0, 0], "next": (0, 1)}


def last_tile_due() -> Scene:
    t = started()
    t.burn(1)
    assert (t.next_seat, t.drawable) == (3, 1)
    return t


@case("D5", "declining the 海底 ends the hand as 荒局", twin=True, hands=[DRAWN])
def _() -> Scene:
    t = last_tile_due()
    t.button(3, "pass")
    return t


@case("D5", "drawing the 海底 and discarding: 荒局 at the discard", twin=True, hands=[DRAWN])
def _() -> Scene:
    t = last_tile_due()
    t.cycle(3)
    return t


@case(
    "D5",
    "the 海底 declined, then the next seat draws it: a draw after 荒局",
    violations=[("draw", 0, "reserve_draw")],
    hands=[DRAWN],
)
def _() -> Scene:
    t = last_tile_due()
    t.button(3, "pass")
    t.mark("draw")
    t.draw(0, count=False)
    return t


# --- D6: 地胡 and 人胡 --------------------------------------------------------------------


@case(
    "D6",
    "a non-dealer who has not discarded wins on the dealer's first discard: 地胡",
    twin=True,
    hands=[_win(2, 0, 16, items_has={"earthly_win"}, items_not={"concealed"})],
)
def _() -> Scene:
    t = started({2: READY_69S}, extra="6s")
    t.win(2)
    return t


@case(
    "D6",
    "the winner has discarded: no 地胡 on a first discard",
    twin=True,
    hands=[_win(1, 2, 1, items_has={"concealed"}, items_not={"earthly_win", "human_win"})],
)
def _() -> Scene:
    t = started({1: READY_69P})
    t.draw(1, "3m")
    t.discard(1, "3m")
    t.cycle(2, "6p")
    t.win(1)
    return t


def earthly_ready_1() -> Scene:
    """Seat 1 declares 地聽 with its first discard (READY_69P waits 6p 9p)."""
    t = started({1: READY_69P})
    t.draw(1, "3m")
    t.button(1, "ready")
    t.discard(1, "3m")
    return t


HUMAN = {"items_has": {"human_win"}, "items_not": {"earthly_ready", "concealed", "earthly_win"}}


@case(
    "D6",
    "地聽, then a win on seat 2's first discard after it: 人胡",
    twin=True,
    hands=[_win(1, 2, 8, **HUMAN)],
)
def _() -> Scene:
    t = earthly_ready_1()
    t.cycle(2, "9p")
    t.win(1)
    return t


@case(
    "D6",
    "地聽, then a win on the dealer's first discard after it: 人胡",
    twin=True,
    hands=[_win(1, 0, 8, **HUMAN)],
)
def _() -> Scene:
    t = earthly_ready_1()
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "6p")
    t.win(1)
    return t


@case(
    "D6",
    "地聽, then a win on the next own draw: 人胡",
    twin=True,
    hands=[  # 人胡 8 + 不求自摸 2
        _win(
            1,
            None,
            10,
            items_has={"human_win", "concealed_self_draw"},
            items_not=HUMAN["items_not"],
        )
    ],
)
def _() -> Scene:
    t = earthly_ready_1()
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1, "9p")
    t.win(1)
    return t


@case(
    "D6",
    "地聽, the declarer's next discard made: a later win has 地聽 4, no 人胡",
    twin=True,
    hands=[_win(1, 2, 4, items_has={"earthly_ready"}, items_not={"human_win", "concealed"})],
)
def _() -> Scene:
    t = earthly_ready_1()
    for seat in (2, 3, 0, 1):
        t.cycle(seat)
    t.cycle(2, "9p")
    t.win(1)
    return t


# --- D7: declarations ----------------------------------------------------------------------

HEAVENLY = {"items_has": {"heavenly_ready"}, "items_not": {"concealed"}}


def heavenly_ready_2(dealer: str = DEALER_NO_5S) -> Scene:
    """Seat 2 (READY_69S, waits 6s 9s) declares 天聽 after the deal; the dealer throws
    its 2m and seat 1 plays."""
    t = Scene(quiet({0: dealer, 2: READY_69S}))
    t.button(2, "ready")
    t.discard(0, "2m")
    t.cycle(1)
    return t


def then_the_dealer_throws_9s(t: Scene) -> Scene:
    t.cycle(3)
    t.cycle(0, "9s")
    t.win(2)
    return t


@case(
    "D7",
    "天聽, then 換牌 (keeps a drawn 5s, throws a 2s): the declaration lapses",
    twin=True,
    hands=[_win(2, 0, 1, items_has={"concealed"}, items_not={"heavenly_ready"})],
)
def _() -> Scene:
    t = heavenly_ready_2()
    t.draw(2, "5s")
    t.discard(2, "2s")  # 345s: still waits 6s 9s
    return then_the_dealer_throws_9s(t)


@case(
    "D7",
    "天聽, the drawn tile thrown: the declaration holds (天聽 8)",
    twin=True,
    hands=[_win(2, 0, 8, **HEAVENLY)],
)
def _() -> Scene:
    t = heavenly_ready_2()
    t.cycle(2, "5s")
    return then_the_dealer_throws_9s(t)


@case(
    "D7",
    "天聽, an 暗槓 made with the drawn 6p keeps it",
    twin=True,
    hands=[_win(2, 0, 8, **HEAVENLY)],
)
def _() -> Scene:
    t = heavenly_ready_2()
    t.draw(2, "6p")
    t.kong(2, "6p", "concealed")
    t.replacement(2, "3p")
    t.discard(2, "3p")
    return then_the_dealer_throws_9s(t)


@case(
    "D7",
    "天聽, then a passed win: the later win stands without the declaration's 台",
    twin=True,
    hands=[_win(2, 0, 1, items_has={"concealed"}, items_not={"heavenly_ready"})],
)
def _() -> Scene:
    t = Scene(quiet({0: DEALER_NO_5S.replace("2m", "6s"), 2: READY_69S}))
    t.button(2, "ready")
    t.discard(0, "6s")
    t.button(2, "pass")
    t.cycle(1)
    t.cycle(2)
    return then_the_dealer_throws_9s(t)


@case(
    "D7",
    "天聽 on a hand that is not ready: void, flagged at the button",
    violations=[("ready", 1, "void_declaration")],
)
def _() -> Scene:
    t = Scene(quiet())
    t.mark("ready")
    t.button(1, "ready")
    t.discard(0, "2m")
    return t


# --- D8: flower wins ------------------------------------------------------------------------

SEVEN = "E E E E S S S S 1p h1 h2 h3 h4 h5 h6 h7"  # seat 1 holds seven flowers
EIGHT_IMMORTALS = {
    "result": "flower_win",
    "kind": "eight_immortals",
    "seat": 1,
    "payer": None,
    "tai": 8,
    "codes": [],
    "net": [-each_pays(8, dealer_tai=1), 3 * each_pays(8) + 20, -each_pays(8), -each_pays(8)],
}


def seven_flowers(
    hand: str = SEVEN, replacements: tuple[str | None, ...] = (None,) * 7, extra: str = "2m"
) -> Scene:
    t = Scene(quiet({1: hand}, extra=extra))
    for k in range(1, 8):
        t.flower(1, f"h{k}")
    for code in replacements:
        t.replacement(1, code)
    return t


@case(
    "D8",
    "胡 pressed before the eighth flower's replacement: invalid, not a 詐胡, play goes on",
    twin=True,
    hands=[EIGHT_IMMORTALS],
)
def _() -> Scene:
    t = seven_flowers()
    t.discard(0, "2m")
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.button(1, "win")
    assert t.hands() == [] and t.violations() == []
    t.replacement(1)
    t.button(1, "win")
    return t


READY_SEVEN = "2m 3m 4m 6m 7m 8m 2p 2p 2p h1 h2 h3 h4 h5 h6 h7"
READY_SEVEN_REPLACEMENTS = ("2s", "3s", "4s", "7p", "8p", "E", "E")  # then waits 6p 9p


def passes_then_eighth_flower(first: str) -> Scene:
    t = seven_flowers(READY_SEVEN, READY_SEVEN_REPLACEMENTS, extra=first)
    t.discard(0, first)
    if first == "6p":
        t.button(1, "pass")  # 過水
    t.draw(1, "h8")
    t.flower(1, "h8")
    t.replacement(1, "3m")
    t.button(1, "win")
    return t


@case("D8", "過水 does not bar a flower win", twin=True, hands=[EIGHT_IMMORTALS])
def _() -> Scene:
    return passes_then_eighth_flower("6p")


@case("D8", "the same flower win with no 過水", twin=True, hands=[EIGHT_IMMORTALS])
def _() -> Scene:
    return passes_then_eighth_flower("2m")


@case(
    "D8",
    "配牌花胡: the dealer dealt eight flowers declares before its first discard",
    twin=True,
    hands=[
        {
            "result": "flower_win",
            "kind": "eight_immortals",
            "seat": 0,
            "net": [3 * each_pays(8, dealer_tai=1), *[-each_pays(8, dealer_tai=1)] * 3],
        }
    ],
)
def _() -> Scene:
    t = Scene(quiet({0: "h1 h2 h3 h4 h5 h6 h7 h8 P P P P 5m 5m 5m 5m 2m"}))
    for k in range(1, 9):
        t.flower(0, f"h{k}")
    for _ in range(8):
        t.replacement(0)
    t.button(0, "win")
    return t


@case(
    "D8",
    "配牌花胡 with seven flowers, seat 2 holding the eighth: seat 2 pays as in 七搶一 (2)",
    twin=True,
    hands=[
        {
            "result": "flower_win",
            "kind": "seven_rob_one",
            "seat": 0,
            "payer": 2,
            "net": [each_pays(8, dealer_tai=1), 0, -each_pays(8, dealer_tai=1), 0],
        }
    ],
)
def _() -> Scene:
    dealer = "h1 h2 h3 h4 h5 h6 h7 P P P P 5m 5m 5m 5m 2m 2m"
    t = Scene(quiet({0: dealer, 2: QUIET[2].replace("9s 9s 9s 9s", "9s 9s 9s h8")}))
    for k in range(1, 8):
        t.flower(0, f"h{k}")
    for _ in range(7):
        t.replacement(0)
    t.flower(2, "h8")
    t.replacement(2)
    t.button(0, "win")
    return t


# --- D9: 相公 and 包賠 ------------------------------------------------------------------------

DEAD_READY = "3m 4m 6m 7m 8m 2s 3s 4s W W W 7s 8s 6p 6p 3p"  # after 吃 2m and 3p out: 6s 9s


def dead_seat_2() -> Scene:
    """Seat 2 chows the dealer's 2m (not its 上家's): chow_not_from_left, 相公."""
    t = started({2: DEAD_READY})
    t.chow(2, 0, "3m 4m")
    t.marked("chow")
    t.discard(2, "3p")
    return t


@case(
    "D9",
    "a 相公 seat declares 胡 with a complete hand: 詐胡 on its 牌面",
    violations=[("chow", 2, "chow_not_from_left"), ("win", 2, "dead_hand_claim")],
    hands=[
        {
            "result": "false_win",
            "seat": 2,
            "codes": ["dead_hand_claim"],
            "tai": 1,  # 風字坎 of its seat wind (西)
            "net": [
                each_pays(1, dealer_tai=1),
                each_pays(1),
                -(3 * each_pays(1) + 20),
                each_pays(1),
            ],
        }
    ],
)
def _() -> Scene:
    t = dead_seat_2()
    t.cycle(3)
    t.cycle(0, "6s")
    t.mark("win")
    t.win(2)
    return t


@case(
    "D9",
    "a 相公 seat draws, discards, makes an 暗槓 and draws its replacement: nothing more",
    twin=True,
    violations=[("chow", 2, "chow_not_from_left")],
)
def _() -> Scene:
    t = dead_seat_2()
    for seat in (3, 0, 1):
        t.cycle(seat)
    t.draw(2, "W")
    t.kong(2, "W", "concealed")
    t.replacement(2, "2p")
    t.discard(2, "2p")
    t.cycle(3)
    return t


@case(
    "D9",
    "包賠 with no valid hand: 牌面 0, 底 each, dealer 台 with the dealer",
    violations=[("win", 2, "false_win")],
    hands=[
        {
            "result": "false_win",
            "seat": 2,
            "tai": 0,
            "codes": ["false_win"],
            "net": [each_pays(0, dealer_tai=1), 100, -320, 100],
        }
    ],
)
def _() -> Scene:
    t = started({2: READY_69S})
    t.mark("win")
    t.win(2)
    return t


# --- D10: no 加槓 after a 碰槓 replacement in the same turn --------------------------------

D10 = {1: "3m 3m 3m 7p 7p 7p E E E E S S S S 1p 9p"}


def exposed_kong_after_a_3m_pong() -> Scene:
    t = started(D10, extra="3m")
    t.pong(1, 0)
    t.discard(1, "9p")
    t.cycle(2)
    t.cycle(3)
    t.cycle(0, "7p")
    t.kong(1, "7p", "exposed", from_seat=0)
    t.replacement(1, "2s")
    return t


@case(
    "D10",
    "加槓 right after the 碰槓 replacement",
    violations=[("kong", 1, "restriction_3")],
)
def _() -> Scene:
    t = exposed_kong_after_a_3m_pong()
    t.kong(1, "3m", "added")
    t.marked("kong")
    return t


@case("D10", "the 加槓 on the seat's next draw", twin=True)
def _() -> Scene:
    t = exposed_kong_after_a_3m_pong()
    t.discard(1, "2s")
    for seat in (2, 3, 0):
        t.cycle(seat)
    t.draw(1)
    t.kong(1, "3m", "added")  # the fourth 3m, kept in hand since the 碰
    t.replacement(1, "4s")
    t.discard(1, "4s")
    return t


# --- D11: the service keeps the streak ------------------------------------------------------


def second_hand_win(first: str) -> Scene:
    """Hand 1 ends as `first` ("drawn": 荒局; "dealer": the dealer self-draws; "other":
    seat 1 self-draws); in hand 2 seat 1 wins on the dealer's 9p in the second go-round."""
    if first == "dealer":  # the dealer waits 8p alone
        t = second_go_round({0: "P P P 5m 5m 5m 5p 5p 5p 2s 3s 4s 6s 7s 8s 8p 2m"})
        t.draw(0, "8p")
        t.win(0)
    elif first == "other":
        t = second_go_round({1: READY_69P})
        t.cycle(0)
        t.draw(1, "9p")
        t.win(1)
    else:
        t = started()
        t.burn(0)
    dealer = t.mirror.deal.dealer
    t.new_hand(quiet({1: READY_69P}) if dealer == 0 else quiet({2: READY_69S}, dealer=1))
    t.discard(dealer, "2m")
    for k in (1, 2, 3):
        t.cycle((dealer + k) % 4)
    if dealer == 0:
        t.cycle(0, "9p")
        t.win(1)
    else:
        t.cycle(1, "9s")
        t.win(2)
    return t


@case(
    "D11",
    "a 荒局 keeps the dealer at 連1: the next hand's win carries dealer 台 1 + 2",
    twin=True,
    hands=[
        {"result": "drawn", "next": (0, 1)},
        {"result": "win", "seat": 1, "payer": 0, "dealer": 0, "streak": 1, "dealer_tai": 3,
         "tai": 1, "net": [-each_pays(1, dealer_tai=3), each_pays(1, dealer_tai=3), 0, 0],
         "next": (1, 0)},
    ],
)  # fmt: skip
def _() -> Scene:
    return second_hand_win("drawn")


@case(
    "D11",
    "a dealer's win keeps the deal at 連1",
    twin=True,
    hands=[
        {"result": "win", "seat": 0, "dealer": 0, "streak": 0, "next": (0, 1)},
        {"result": "win", "seat": 1, "dealer": 0, "streak": 1, "dealer_tai": 3},
    ],
)  # fmt: skip
def _() -> Scene:
    return second_hand_win("dealer")


@case(
    "D11",
    "a non-dealer's win passes the deal, the streak back to 0",
    twin=True,
    hands=[
        {"result": "win", "seat": 1, "next": (1, 0)},
        {"result": "win", "seat": 2, "payer": 1, "dealer": 1, "streak": 0, "dealer_tai": 1,
         "tai": 1, "net": [0, -each_pays(1, dealer_tai=1), each_pays(1, dealer_tai=1), 0]},
    ],
)  # fmt: skip
def _() -> Scene:
    return second_hand_win("other")


# --- D12: 禁制 7 counts the drawable tiles when the discard is made ---------------------


@case(
    "D12",
    "a discard made with 3 drawable: no 碰 of it",
    violations=[("pong", 2, "restriction_7")],
)
def _() -> Scene:
    t = started({2: PAIR_3M})
    t.burn(4)
    t.cycle(0, "3m")
    assert t.drawable == 3
    t.pong(2, 0)
    t.marked("pong")
    return t


@case(
    "D12",
    "a discard made with 4 drawable, 3 left at the 碰 (an out-of-turn draw between)",
    twin=True,
    violations=[("draw", 1, "out_of_turn")],
)
def _() -> Scene:
    t = started({2: PAIR_3M})
    t.burn(5)
    assert t.next_seat == 3
    t.cycle(3, "3m")
    assert t.drawable == 4
    t.mark("draw")
    t.draw(1)
    assert t.drawable == 3
    t.pong(2, 3)
    return t
