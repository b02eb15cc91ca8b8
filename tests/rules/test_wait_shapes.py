"""A winning hand's wait as a player's statistics name it (shapes.wait_shape): the three
獨聽 shapes of §4 I3 (中洞, 邊張, 單釣) and the waits of two kinds or more."""

from __future__ import annotations

import pytest

from table_service.rules.shapes import wait_shape
from table_service.rules.tiles import N_KINDS, parse_kind


def counts(codes: str) -> list[int]:
    out = [0] * N_KINDS
    for code in codes.split():
        out[parse_kind(code)] += 1
    return out


@pytest.mark.parametrize(
    ("hand", "won", "shape"),
    [
        ("1m 3m 5p 5p", "2m", "closed"),  # 中洞
        ("1m 2m 5p 5p", "3m", "edge"),  # 邊張 12-3
        ("8s 9s 5p 5p", "7s", "edge"),  # 邊張 7-89
        ("2m 3m 4m 9p", "9p", "single"),  # 單釣
        ("E E E N", "N", "single"),
        ("2m 3m 5p 5p", "1m", "two_sided"),  # 兩面 (waits 1m and 4m)
        ("2m 3m 5p 5p", "4m", "two_sided"),
        ("5p 5p 7s 7s", "7s", "double_pong"),  # 雙碰
        ("2m 3m 4m 5m", "2m", "two_sided"),  # 單釣 2m or 5m: two kinds
        ("2m 3m 4m 5m 6m 7m 8m", "2m", "multi"),  # 2m 5m 8m
        ("1m 3m 5p 5p", "4m", "other"),  # not a wait of the hand at all
    ],
)
def test_a_wait_is_named_by_its_kinds_and_shape(hand: str, won: str, shape: str) -> None:
    assert wait_shape(counts(hand), parse_kind(won)) == shape


def test_a_kind_held_four_times_is_no_second_wait() -> None:
    """2m 3m with every 4m held (its melds): 1m is the only wait (I3), in a two-sided
    shape, and 4m is no wait at all."""
    hand = counts("2m 3m 5p 5p")
    held = list(hand)
    held[parse_kind("4m")] = 4
    assert wait_shape(hand, parse_kind("1m"), held) == "two_sided"
    assert wait_shape(hand, parse_kind("4m"), held) == "other"  # no copy left to win on
