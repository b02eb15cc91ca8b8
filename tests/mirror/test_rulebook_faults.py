"""Rulebook rows, part 4: faults (replay-format.md) — a sensor's misread blames nobody and
changes nothing, so the table's re-read is judged as the action; a hand the mirror did not
see from its start is not judged until the next shuffle — each with its twin, through the
mirror and through `mjtable replay` (see kit_rulebook.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.messages import Event
from tests.mirror.kit_rulebook import (
    Case,
    Scene,
    covered,
    misread,
    params,
    registrar,
    run_case,
    second_go_round,
    started,
)
from tests.mirror.kit_script import quiet

CASES: list[Case] = []
case = registrar(CASES)

# --- a misread draw: a fault, nobody blamed, the picture unchanged, the re-read is the draw

FLOWER_1 = "E E E E S S S S 1p 1p 1p 1p 9p 9p 2s h2"  # seat 1: h2 to replace


def table_in_play() -> Scene:
    """Seat 1 replaces its h2 (3s), the dealer throws 2m, seat 1 draws 4s, makes an 暗槓
    of E and throws its replacement 6s: a tile of each kind of place is on the table (a
    hand, a meld, the discards, the flowers). Seat 2 is to draw."""
    t = Scene(quiet({1: FLOWER_1}))
    t.flower(1, "h2")
    t.replacement(1, "3s")
    t.discard(0, "2m")
    t.draw(1, "4s")
    t.kong(1, "E", "concealed")
    t.replacement(1, "6s")
    t.discard(1, "6s")
    return t


def elsewhere(t: Scene, where: str) -> int:
    thrown = [e.body.tile for e in t.events if e.body.kind == "tile_discarded"]
    return {
        "hand": t.concealed[3][0],
        "meld": t.melds[1][0][1][0],
        "discards": thrown[0],  # the dealer's 2m, still lying
        "flowers": 137,  # h2, revealed by seat 1
        "fifth copy": t.concealed[0][0],  # a P: the dealer holds all four
    }[where]


def picture(t: Scene) -> dict[str, Any]:
    hand = t.mirror.snapshot(concealed=True)["hand"]
    assert hand is not None
    return dict(hand)


def play_on(t: Scene) -> None:
    """Seat 2's draw (7s) and discard, seat 3's draw and discard."""
    t.draw(2, "7s")
    t.discard(2, "7s")
    t.draw(3, "8s")
    t.discard(3, "8s")


def misread_draw(where: str) -> Callable[[], Scene]:
    def play() -> Scene:
        t = table_in_play()
        before = picture(t)
        t.mark("misread")
        misread(t, 2, elsewhere(t, where))
        assert picture(t) == before, "a misread changes nothing"
        play_on(t)
        twin = table_in_play()
        play_on(twin)
        assert picture(t) == picture(twin), "the re-read is judged as the draw"
        return t

    return play


for _where in ("hand", "meld", "discards", "flowers"):
    CASES.append(
        Case(
            "fault",
            f"a draw read as a tile in the {_where}, then its re-read",
            misread_draw(_where),
            faults=[("misread", "tile_twice")],
        )
    )

CASES.append(
    Case(
        "fault",
        "a draw read as a fifth copy of a kind (all four P placed), then its re-read",
        misread_draw("fifth copy"),
        faults=[("misread", "fifth_copy|tile_twice")],
    )
)


@case("fault", "the same play with no misread", twin=True)
def _() -> Scene:
    t = table_in_play()
    play_on(t)
    return t


@case(
    "fault",
    "a kong's replacement read as a tile in a hand, then its re-read from the 槓尾",
    faults=[("misread", "tile_twice")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.kong(1, "E", "concealed")
    t.mark("misread")
    misread(t, 1, t.concealed[3][0], end="back")
    t.replacement(1, "4m")
    t.discard(1, "4m")
    t.cycle(2)
    return t


@case("fault", "the kong's replacement read right", twin=True)
def _() -> Scene:
    t = started()
    t.draw(1, "3m")
    t.kong(1, "E", "concealed")
    t.replacement(1, "4m")
    t.discard(1, "4m")
    t.cycle(2)
    return t


@case(
    "fault",
    "a flower's replacement read as the flower just revealed, then its re-read",
    faults=[("misread", "tile_twice")],
)
def _() -> Scene:
    t = started()
    t.draw(1, "h3")
    t.flower(1, "h3")
    t.mark("misread")
    misread(t, 1, 138, end="back")  # h3
    t.replacement(1, "4m")
    t.discard(1, "4m")
    t.cycle(2)
    return t


@case(
    "fault",
    "a dealt tile read as one already dealt, then its re-read: the deal goes on",
    faults=[("misread", "tile_twice")],
)
def _() -> Scene:
    t = Scene(deal=False)
    t.open_hand()
    hands = quiet()
    dealt = {s: [t.alloc(c) for c in hands[s].split()] for s in range(4)}
    for rnd in range(4):
        for seat in range(4):
            for i, tile in enumerate(dealt[seat][4 * rnd : 4 * rnd + 4]):
                if (rnd, seat, i) == (1, 2, 1):
                    t.mark("misread")
                    misread(t, 2, dealt[0][0])
                t.draw(seat, tile=tile)
    t.draw(0, tile=dealt[0][16])
    t.discard(0, "2m")
    t.cycle(1)
    return t


# --- a hand not seen from its start: one fault, nothing judged until the next shuffle -----

DEALER_WAITS_8P = "P P P 5m 5m 5m 5p 5p 5p 2s 3s 4s 6s 7s 8s 8p 2m"  # after its 2m: waits 8p
CHOWERS = {
    1: "E E E E S S S S 1p 1p 1p 1p 9p 9p 3m 4m",
    2: "W W W W N N N N 1s 1s 1s 1s 9s 9s 3m 4m",
}


def hand_with_breaches(t: Scene, label: str) -> None:
    """A hand dealt by seat 0 with a breach (seat 2 draws in seat 1's turn; the referee
    puts the tile back) that ends with the dealer's self-drawn win: the dealer keeps the
    deal."""
    t.new_hand(quiet({0: DEALER_WAITS_8P}), dealer=0)
    t.discard(0, "2m")
    t.mark(f"{label} out of turn")
    t.draw(2, "3m")
    t.draw(1, tile=t.concealed[2][-1], returned=True)
    t.discard(1, "3m")
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "8p")
    t.mark(f"{label} win")
    t.win(0)


def hand_with_a_wrong_chow(t: Scene, label: str) -> None:
    """A hand dealt by seat 0 in which seat 2 chows the dealer's 2m (chow_not_from_left)."""
    t.new_hand(quiet(CHOWERS), dealer=0)
    t.discard(0, "2m")
    t.chow(2, 0, "3m 4m")
    t.marked(f"{label} chow")
    t.discard(2, "9s")


def fed(events: list[Event], renumber_from: int | None = None, **session: Any) -> Scene:
    """A fresh table (its session started, no event yet) fed `events`; renumbered from
    `renumber_from` when given (the table's seqs as a recorder that started there saw
    them), else as they are."""
    t = Scene(deal=False, **session)
    for n, event in enumerate(events):
        if renumber_from is not None:
            event = event.model_copy(update={"seq": renumber_from + n})
        t.feed(event)
    t.seq = t.events[-1].seq if t.events else 0
    return t


def session_from(full: Scene, first: str) -> Scene:
    """The table seen from the event `first` marked in `full` on (seqs renumbered from 1):
    a session started there. Its marks are the full stream's, shifted."""
    start = full.marks[first] - 1
    t = fed(full.events[start:], renumber_from=1)
    t.marks = {k: v - start for k, v in full.marks.items() if v > start}
    return t


def mid_hand_session() -> Scene:
    """The session starts in the middle of hand 1 (after its deal and the dealer's first
    discard); hand 2 follows from its shuffle."""
    full = Scene(deal=False)
    hand_with_breaches(full, "h1")
    hand_with_a_wrong_chow(full, "h2")
    return session_from(full, "h1 out of turn")


@case(
    "hand_unseen",
    "a session starting mid-hand: the hand is not judged, the next one is",
    faults=[(None, "hand_unseen")],
    violations=[("h2 chow", 2, "chow_not_from_left")],
)
def _() -> Scene:
    return mid_hand_session()


@case(
    "hand_unseen",
    "a session starting at the hand's shuffle: the hand is judged",
    twin=True,
    violations=[
        ("h1 out of turn", 2, "out_of_turn"),
        ("h2 chow", 2, "chow_not_from_left"),
    ],
    hands=[{"result": "win", "kind": "self_draw", "seat": 0, "next": (0, 1)}],
)
def _() -> Scene:
    full = Scene(deal=False)
    hand_with_breaches(full, "h1")
    hand_with_a_wrong_chow(full, "h2")
    t = fed(full.events, renumber_from=1)
    t.marks = dict(full.marks)
    return t


def with_a_lost_beginning() -> Scene:
    """Hand 1 is seen whole (the dealer wins: it deals hand 2); the first events of hand 2
    (its shuffle, wall, roll, deal and the dealer's first discard) are lost, the rest of
    it follows; hand 3 is seen from its shuffle."""
    full = Scene(deal=False)
    hand_with_breaches(full, "h1")
    lost_from = full.seq + 1
    hand_with_breaches(full, "h2")
    lost_to = full.marks["h2 out of turn"]  # the first event seen again
    hand_with_a_wrong_chow(full, "h3")
    kept = [e for e in full.events if not lost_from <= e.seq < lost_to]
    t = fed(kept)
    t.marks = dict(full.marks)
    return t


@case(
    "hand_unseen",
    "a gap that loses a hand's beginning: that hand is not judged, the next one is",
    faults=[("h2 out of turn", "gap"), ("h2 out of turn", "hand_unseen")],
    faults_unordered=True,
    violations=[
        ("h1 out of turn", 2, "out_of_turn"),
        ("h3 chow", 2, "chow_not_from_left"),
    ],
    hands=[{"result": "win", "seat": 0, "next": (0, 1)}],
)
def _() -> Scene:
    return with_a_lost_beginning()


@case(
    "hand_unseen",
    "the same stream with no gap: every hand is judged",
    twin=True,
    violations=[
        ("h1 out of turn", 2, "out_of_turn"),
        ("h2 out of turn", 2, "out_of_turn"),
        ("h3 chow", 2, "chow_not_from_left"),
    ],
    hands=[
        {"result": "win", "seat": 0, "streak": 0, "next": (0, 1)},
        {"result": "win", "seat": 0, "streak": 1, "next": (0, 2)},
    ],
)
def _() -> Scene:
    full = Scene(deal=False)
    hand_with_breaches(full, "h1")
    hand_with_breaches(full, "h2")
    hand_with_a_wrong_chow(full, "h3")
    return full


# --- the table runs ------------------------------------------------------------------


@pytest.mark.parametrize(("case", "way"), params(CASES))
def test_rulebook(case: Case, way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_case(case, way, tmp_path, capsys)


@pytest.mark.parametrize("row", ["fault", "hand_unseen"])
def test_every_row_has_a_scenario_and_a_twin(row: str) -> None:
    assert covered(CASES, row) == (True, True)


def test_a_second_go_round_is_quiet() -> None:
    """The helper the other parts lean on plays a whole go-round with no record."""
    t = second_go_round()
    assert t.records == []
