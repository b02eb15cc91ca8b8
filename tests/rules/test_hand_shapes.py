"""Hand shapes through the public `readings` / `is_complete` / `wait_kinds`: found by mutation
testing (bench/mutation.py).

A count vector is any 34 counts; "sets plus exactly one pair" is the contract, whatever
the number of tiles. Expectations are worked by hand and written as literals.
"""

from __future__ import annotations

import random

from table_service.rules import is_complete, readings, wait_kinds
from table_service.rules.shapes import Reading, is_lik_gu, lik_gu_waits
from table_service.rules.tiles import parse_kind


def counts(*codes: str) -> list[int]:
    out = [0] * 34
    for code in codes:
        out[parse_kind(code)] += 1
    return out


def test_two_pairs_in_two_suits_are_not_one_pair() -> None:
    """11m 22p: two pairs, no set; not sets plus one pair."""
    hand = counts("1m", "1m", "2p", "2p")
    assert not is_complete(hand)
    assert readings(hand) == []


def test_two_pairs_in_one_suit_starting_at_1m_are_not_one_pair() -> None:
    """1122m: the 1m pair (kind 0) and a 2m pair are two pairs; 1122m 3m is not a hand either."""
    assert readings(counts("1m", "1m", "2m", "2m")) == []
    assert not is_complete(counts("1m", "1m", "2m", "2m"))
    assert readings(counts("1m", "1m", "2m", "2m", "3m")) == []


def test_the_1m_pair_with_a_set() -> None:
    """11123m: 1m pair + 1-2-3, or 1m triplet + 23m (not a set): one reading."""
    assert readings(counts("1m", "1m", "1m", "2m", "3m")) == [Reading(((0, True),), 0)]


def test_honours_have_seven_kinds() -> None:
    """白 P is the last kind (33): a pair of it completes; waits never name a kind past 白."""
    assert is_complete(counts("P", "P", "1s", "2s", "3s"))
    assert wait_kinds(counts("P", "1s", "2s", "3s")) == [parse_kind("P")]
    assert wait_kinds(counts("F", "F", "P", "P")) == [parse_kind("F"), parse_kind("P")]


def k(*codes: str) -> list[int]:
    return [parse_kind(c) for c in codes]


def test_complete_means_sets_and_exactly_one_pair() -> None:
    assert is_complete(counts("1m", "1m"))
    assert is_complete(counts("5s", "5s", "1p", "2p", "3p"))
    assert is_complete(counts("1m", "1m", "1m", "1p", "1p"))
    assert is_complete(counts("E", "E", "E", "S", "S", "2m", "3m", "4m"))
    assert not is_complete([0] * 34)  # no pair
    assert not is_complete(counts("1m", "2m", "3m"))  # sets alone
    assert not is_complete(counts("1m", "1m", "1p", "1p", "1s"))
    assert not is_complete(counts("1m", "1m", "2p", "2p", "3s", "3s"))
    assert not is_complete(counts("1m", "1m", "2p", "3p"))


def test_waits_worked_by_hand() -> None:
    """聽牌 of small concealed parts: each wait completes sets plus one pair (§3, I3)."""
    assert wait_kinds(counts("2m", "3m", "5p", "5p")) == k("1m", "4m")
    assert wait_kinds(counts("1m", "1m", "5p", "5p")) == k("1m", "5p")
    assert wait_kinds(counts("1m", "2m", "3m", "7s")) == k("7s")
    assert wait_kinds(counts("1m", "1m", "1m", "2m")) == k("2m", "3m")
    assert wait_kinds(counts("E", "E", "E", "S")) == k("S")
    assert wait_kinds(counts("E", "E", "S", "S")) == k("E", "S")
    assert wait_kinds(counts("1m", "1m", "1p", "2p", "3p", "8s", "9s")) == k("7s")
    assert wait_kinds(counts("4p", "5p", "6p", "7p")) == k("4p", "7p")
    assert wait_kinds(counts("1m", "1m", "2p", "2p", "5s")) == []  # two pairs already
    assert wait_kinds(counts("1m", "5p")) == []


def test_a_kind_held_four_times_is_no_wait() -> None:
    """I3 假聽: the 7s tanki is no wait when the player holds the other three 7s in melds."""
    hand = counts("1m", "2m", "3m", "7s")
    held = list(hand)
    held[parse_kind("7s")] = 4
    assert wait_kinds(hand, held) == []
    assert wait_kinds(counts("1m", "1m", "1m", "1m", "2m", "3m", "5p")) == k("5p")


def test_lik_gu_is_exactly_seven_pairs_and_one_triplet() -> None:
    """嚦咕嚦咕 (taiwan16.md): seven pairs of different kinds and a triplet of an eighth."""
    pairs = [c for c in ("1m", "3m", "5p", "7p", "2s", "E", "C") for _ in range(2)]
    assert is_lik_gu(counts(*pairs, "9s", "9s", "9s"))
    assert not is_lik_gu(counts(*pairs))  # seven pairs, no triplet
    assert not is_lik_gu(counts(*pairs[:12], "9s", "9s", "9s"))  # six pairs and a triplet
    assert not is_lik_gu(counts(*pairs, "9s", "9s", "9s", "F", "F", "F"))  # two triplets
    assert not is_lik_gu(counts(*pairs[:12], "9s", "9s", "9s", "9s", "F", "F", "F"))
    assert not is_lik_gu(counts(*pairs, "9s", "9s", "9s", "N"))  # a lone tile too


def test_lik_gu_waits_worked_by_hand() -> None:
    """16 concealed tiles: which kinds complete a 嚦咕嚦咕."""
    pairs = [c for c in ("1m", "3m", "5p", "7p", "2s", "E") for _ in range(2)]
    # six pairs, a triplet and a lone 白: only the 白 makes the seventh pair
    assert lik_gu_waits(counts(*pairs, "9s", "9s", "9s", "C")) == k("C")
    # eight pairs: any of them may become the triplet
    eight = counts(*pairs, "9s", "9s", "C", "C")
    assert lik_gu_waits(eight) == k("1m", "3m", "5p", "7p", "2s", "9s", "E", "C")
    # a 4-of-a-kind is no 嚦咕嚦咕 whatever arrives
    assert lik_gu_waits(counts(*pairs, "9s", "9s", "9s", "9s")) == []


def test_a_complete_hand_or_two_pairs_wait_on_nothing() -> None:
    """One more tile never leaves sets plus exactly one pair."""
    assert wait_kinds(counts("1m", "2m", "3m", "5p", "5p")) == []
    assert wait_kinds(counts("1m", "1m", "2p", "2p", "5s", "6s")) == []  # 4s/7s: still two pairs


def _near_a_hand(rng: random.Random) -> list[int]:
    """Sets and pairs, give or take a tile or two: complete hands, waits and near misses."""
    while True:
        hand = [0] * 34
        for _ in range(rng.randrange(0, 5)):
            kind = rng.randrange(34)
            suited_run = kind < 27 and kind % 9 < 7 and rng.random() < 0.6
            for part in (kind, kind + 1, kind + 2) if suited_run else (kind, kind, kind):
                hand[part] += 1
        for _ in range(rng.randrange(0, 3)):
            hand[rng.randrange(34)] += 2
        for _ in range(rng.randrange(0, 3)):
            hand[rng.randrange(34)] += 1
        if rng.random() < 0.5 and any(hand):
            hand[rng.choice([kind for kind in range(34) if hand[kind]])] -= 1
        if any(hand) and max(hand) <= 4:
            return hand


def test_waits_and_completeness_agree_with_the_readings() -> None:
    """The fast group-status paths against the readings themselves, on seeded random vectors.

    `readings` enumerates every sets-plus-one-pair reading: a kind is a wait exactly when
    adding it gives a reading and the player does not hold all four copies.
    """
    rng = random.Random(12)
    for _ in range(600):
        hand = _near_a_hand(rng)
        assert is_complete(hand) == bool(readings(hand)), hand
        expected = []
        for kind in range(34):
            trial = list(hand)
            trial[kind] += 1
            if hand[kind] < 4 and readings(trial):
                expected.append(kind)
        assert wait_kinds(hand) == expected, hand
