"""Who may claim what, in the public state (`hand.claimable.claims`): by the rules alone, from
public facts only (taiwan16.md §3, D3, D12/禁制 7, 搶槓), never the concealed tiles; the
dashboard shows it and knows no rule of its own."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Violation
from table_service.mirror.state import Pending, open_claims
from table_sim.faults import TableFaults
from table_sim.recording import record_game
from table_sim.violations import Violations
from tests.mirror.kit_script import Script, add_the_fourth_7p, quiet

ALL = ["chow", "pong", "kong", "win"]
OTHERS = ["pong", "kong", "win"]
CHOW_1 = "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m"
PONG_2 = "W W W W N N N N 1s 1s 1s 1s 9s 9s 2m 2m"
LIVE = [False] * 4


def claimable(t: Script) -> dict[str, Any] | None:
    hand = t.mirror.snapshot()["hand"]
    assert hand is not None
    return hand["claimable"]  # type: ignore[no-any-return]


def test_a_discard_open_to_every_other_seat() -> None:
    """The 下家 may 吃 碰 槓 胡; the others 碰 槓 胡; the discarder nothing."""
    t = Script(quiet({1: CHOW_1, 2: PONG_2}))
    t.discard(0, "2m")
    assert claimable(t) == {"tile": "2m", "from_seat": 0, "claims": [[], ALL, OTHERS, OTHERS]}


def test_the_same_claims_whatever_the_hands() -> None:
    """Public facts only: hands that can claim nothing get the same list (and the state
    never says who holds what)."""
    t = Script(quiet())
    t.discard(0, "2m")
    assert claimable(t) == {"tile": "2m", "from_seat": 0, "claims": [[], ALL, OTHERS, OTHERS]}
    pending = Pending(tile=4, seat=0, drawable_then=60, winners={2})
    assert open_claims(pending, LIVE) == open_claims(
        Pending(tile=4, seat=0, drawable_then=60, winners=set()), LIVE
    )


def test_after_the_next_seats_draw_only_a_win_by_the_others() -> None:
    """D3: a 碰/槓 is late once the next seat's draw is recorded, a 胡 only once it has also
    discarded; the seat that drew let the tile go (D1)."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.draw(1)
    assert claimable(t) == {"tile": "2m", "from_seat": 0, "claims": [[], [], ["win"], ["win"]]}
    t.discard(1, t.hand_codes(1).split()[-1])
    claims = claimable(t)
    assert claims is not None and claims["from_seat"] == 1  # the next discard's window


def test_no_chow_of_an_honour() -> None:
    t = Script(quiet())
    t.discard(0, "P")
    assert claimable(t) == {"tile": "P", "from_seat": 0, "claims": [[], OTHERS, OTHERS, OTHERS]}


def test_three_drawable_tiles_or_fewer_only_a_win() -> None:
    """禁制 7 (D12): counted when the discard is made."""
    t = Script(quiet())
    t.discard(0, "2m")
    t.burn(3)
    assert t.violations() == []
    claims = claimable(t)
    assert claims is not None
    after = (claims["from_seat"] + 1) % 4
    assert claims["claims"] == [[] if s == claims["from_seat"] else ["win"] for s in range(4)]
    assert after != claims["from_seat"]
    four = Pending(tile=4, seat=0, drawable_then=4, winners=set())
    assert open_claims(four, LIVE) == [[], ALL, OTHERS, OTHERS]


def test_a_shown_chow_leaves_pong_kong_and_win_to_the_others() -> None:
    """D3: a 碰 (or 胡) is on time until the 吃 is followed by its discard."""
    t = Script(quiet({1: CHOW_1, 2: PONG_2}))
    t.discard(0, "2m")
    t.chow(1, 0, "3m 4m")
    assert claimable(t) == {"tile": "2m", "from_seat": 0, "claims": [[], [], OTHERS, OTHERS]}


ROBBER = "2m 3m 4m 6m 7m 8m 2s 3s 4s 3p 3p 3p 8p 9p C C"
ADDER = "E E E E S S S S 1p 1p 1p 1p 9p 9p 7p 7p"


def test_an_added_kong_only_a_win() -> None:
    """搶槓: the tile of a 加槓 may only be won on, by any seat but the adder."""
    t = Script(quiet({1: ADDER, 3: ROBBER}, extra="7p"))
    t.discard(0, "7p")
    add_the_fourth_7p(t)
    assert claimable(t) == {
        "tile": "7p",
        "from_seat": 1,
        "claims": [["win"], [], ["win"], ["win"]],
    }


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, [[], ALL, OTHERS, OTHERS]),
        ({"seat": 3}, [ALL, OTHERS, OTHERS, []]),  # the 下家 of seat 3 is seat 0
        ({"closed": True}, [[], [], [], []]),
        ({"next_drew": True}, [[], [], ["win"], ["win"]]),
        ({"added_kong": True}, [[], ["win"], ["win"], ["win"]]),
        ({"drawable_then": 3}, [[], ["win"], ["win"], ["win"]]),
        ({"chowed_by": 1}, [[], [], OTHERS, OTHERS]),
        ({"tile": 27 * 4}, [[], OTHERS, OTHERS, OTHERS]),  # 東: no sequence
    ],
)
def test_open_claims(changes: dict[str, Any], expected: list[list[str]]) -> None:
    pending = Pending(**({"tile": 4, "seat": 0, "drawable_then": 50, "winners": set()} | changes))
    assert open_claims(pending, LIVE) == expected


def test_a_dead_hand_claims_nothing() -> None:
    pending = Pending(tile=4, seat=0, drawable_then=50, winners={2})
    assert open_claims(pending, [False, True, True, False]) == [[], [], [], OTHERS]


MELDS = {"chow": "chow", "pong": "pong", "kong_exposed": "kong"}
LATE = {"late_claim", "restriction_7", "dead_hand_claim", "chow_not_from_left"}


def test_a_simulated_game_claims_as_the_public_state_said() -> None:
    """Every 吃/碰/槓 of a discard in games with breaches: one the public state listed for
    that seat draws none of the bars it judges from public facts; one it did not list
    draws one of them (games are played until both kinds have been seen)."""
    listed = unlisted = 0
    for seed in (6, 2, 4, 8, 1, 3, 5, 7):
        more = _claims_in_game(seed)
        listed, unlisted = listed + more[0], unlisted + more[1]
        if listed >= 20 and unlisted >= 3:
            break
    assert listed >= 20 and unlisted >= 3, (listed, unlisted)


def _claims_in_game(seed: int) -> tuple[int, int]:
    """(listed, unlisted): the claims of one simulated game, each checked as above."""
    game = record_game(seed, 6, violations=Violations(0.05), faults=TableFaults())
    mirror = TableMirror("t1")
    listed = unlisted = 0
    for event in (e for hand in game for e in hand.events):
        body: Any = event.body
        before = mirror.snapshot()["hand"]
        records = mirror.apply(event)
        if body.kind != "meld_exposed" or body.from_seat == 255 or before is None:
            continue
        meld = MELDS.get(body.meld.name.lower().replace("pung", "pong"))
        if meld is None:
            continue
        open_ = before["claimable"]
        barred = {r.code for r in records if isinstance(r, Violation) and r.seat == body.seat}
        if open_ is not None and meld in open_["claims"][body.seat]:
            listed += 1
            assert not barred & LATE, (seed, event.seq, meld, barred)
        else:
            unlisted += 1
            assert barred & LATE, (seed, event.seq, meld, open_)
    return listed, unlisted
