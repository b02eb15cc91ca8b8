"""Malformed declarations are errors naming the field; a non-win is `valid: false`."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.rules import HandInputError, parse_hand, score
from tests.rules.kit_notation import hand

GOOD = hand("23m 456p 789p 55s 234s", "4m", ("chi:123m",))
EIGHT = [f"h{k}" for k in range(1, 9)]


def error_of(data: Any) -> HandInputError:
    with pytest.raises(HandInputError) as info:
        parse_hand(data)
    return info.value


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"winning_tile": "0p"}, "winning_tile", "unknown tile code '0p'"),
        ({"winning_tile": "h1"}, "winning_tile", "not a playing tile"),
        ({"concealed": ["2m", "3m", "X", *GOOD["concealed"][3:]]}, "concealed[2]", "unknown"),
        ({"concealed": GOOD["concealed"][:-1]}, "concealed", "hand has 16"),
        ({"flowers": ["h1", "h1"]}, "flowers[1]", "twice"),
        ({"flowers": ["h9"]}, "flowers[0]", "unknown flower"),
        ({"melds": [{"kind": "chi", "tiles": ["1m", "2m", "4m"]}]}, "melds[0].tiles", "not a chi"),
        ({"melds": [{"kind": "chi", "tiles": ["8m", "9m", "1p"]}]}, "melds[0].tiles", "not a chi"),
        ({"melds": [{"kind": "chi", "tiles": ["E", "S", "W"]}]}, "melds[0].tiles", "not a chi"),
        (
            {"melds": [{"kind": "pong", "tiles": ["1m", "1m", "2m"]}]},
            "melds[0].tiles",
            "not a pong",
        ),
        ({"melds": [{"kind": "run", "tiles": ["1m", "2m", "3m"]}]}, "melds[0].kind", "chi, pong"),
        (
            {"melds": [{"kind": "chi", "tiles": ["1m", "2m", "3m"], "concealed": True}]},
            "melds[0].concealed",
            "only a kong",
        ),
        ({"win": "tsumo"}, "win", "expected one of"),
        ({"seat_wind": "C"}, "seat_wind", "expected a wind"),
        ({"streak": -1}, "streak", "≥ 0"),
        ({"dealer": "yes"}, "dealer", "true or false"),
        ({"winning-tile": "4m"}, "winning-tile", "unknown key"),
        ({"replacement": True}, "replacement", "self_draw"),
        ({"last_tile": True, "win": "robbing_kong"}, "last_tile", "self_draw"),
        ({"timing": "heavenly_win", "win": "self_draw"}, "timing", "dealer"),
        ({"timing": "heavenly_win", "dealer": True}, "timing", "self-drawn"),
        (
            {
                "timing": "heavenly_win",
                "dealer": True,
                "win": "self_draw",
                "declared": "earthly_ready",
            },
            "timing",
            "declaration",
        ),
        ({"declared": "heavenly_ready", "dealer": True}, "declared", "dealer"),
        ({"timing": "human_win"}, "timing", "earthly_ready"),
        ({"timing": "earthly_win", "win": "self_draw"}, "timing", "heavenly_ready"),
        ({"timing": "earthly_win", "dealer": True}, "timing", "dealer"),
        ({"timing": "earthly_win", "declared": "earthly_ready"}, "timing", "human_win"),
        ({"declared": "earthly_ready"}, "declared", "chi, pong"),
        ({"robbed_flower": "h1"}, "robbed_flower", "seven_rob_one"),
        ({"flower_win": "eight_immortals", "flowers": EIGHT[:7]}, "flowers", "all eight"),
    ],
)
def test_malformed_is_an_error_naming_the_field(
    change: dict[str, Any], field: str, words: str
) -> None:
    err = error_of({**GOOD, **change})
    assert err.field == field
    assert words in str(err)
    assert str(err).startswith(f"{field}: ")


def test_fifth_copy_across_melds_and_winning_tile() -> None:
    data = hand("4444m 456p 789p 55s 6s", "4m", ("chi:123s",))
    assert error_of(data).field == "winning_tile"


def test_not_an_object() -> None:
    assert error_of([1, 2]).field == "hand"


def test_missing_required_field() -> None:
    data = dict(GOOD)
    del data["win"]
    assert error_of(data).field == "win"


def test_chinese_aliases_score_like_codes() -> None:
    chinese = dict(GOOD)
    chinese["concealed"] = [
        "二萬",
        "3萬",
        "四筒",
        "5筒",
        "6餅",
        "七筒",
        "8筒",
        "九筒",
        "5索",
        "五條",
        "2索",
        "3索",
        "4条",
    ]
    chinese["winning_tile"] = "四萬"
    chinese["melds"] = [{"kind": "chi", "tiles": ["一萬", "二萬", "三萬"]}]
    assert score(parse_hand(chinese)) == score(parse_hand(GOOD))


def test_honour_aliases() -> None:
    a = parse_hand(hand("SSS 456m 789p 23s 55s", "4s", ("chi:123m",), seat_wind="S"))
    b = parse_hand(
        {
            **hand("456m 789p 23s 55s", "4s", ("chi:123m",)),
            "concealed": ["南", "南", "南", *hand("456m 789p 23s 55s", "4s")["concealed"]],
            "seat_wind": "南",
        }
    )
    assert score(a) == score(b)


def test_not_winning_is_valid_false_with_a_reason() -> None:
    result = score(parse_hand(hand("23m 456p 789p 55s 234s", "9m", ("chi:123m",))))
    assert (result.valid, result.tai, result.items) == (False, 0, ())
    assert result.reason and "not a winning hand" in result.reason


def test_false_win_by_dealer_still_reports_dealer_tai() -> None:
    data = hand("23m 456p 789p 55s 234s", "9m", ("chi:123m",), dealer=True, streak=2)
    assert score(parse_hand(data)).dealer_tai == 5


def test_flower_win_may_leave_the_hand_out() -> None:
    hand_ = parse_hand({"flower_win": "eight_immortals", "flowers": EIGHT})
    assert not hand_.revealed and hand_.win == "self_draw"
