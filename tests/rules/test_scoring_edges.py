"""Worked hands for the scorer's edges that mutation testing found untested.

Each expectation is worked by hand from taiwan16.md (§4 items, §7 switches) and written
as a literal. Hands are in `notation.py`'s notation: unless given, the winner sits 南
(position 2) in the 西 round and wins on a discard.
"""

from __future__ import annotations

import dataclasses

import pytest

from table_service.rules import Profile, Rules, parse_hand, score, score_json
from tests.rules.kit_notation import hand, items_of

FOUR_CHI = ("chi:123p", "chi:456p", "chi:234s", "chi:678s")


def wait_mode(mode: str) -> Profile:
    return Profile(rules=Rules(ping_hu_wait=mode))


class TestPingHuWaitEdges:
    """§7 `ping_hu_wait`: where the winning tile may sit in the reading scored."""

    @pytest.mark.parametrize("mode", ["two_sided_tile", "two_sided_reading"])
    def test_seven_completing_seven_eight_nine_is_an_edge(self, mode: str) -> None:
        """8999p waits 7p and 8p; 7p only closes 7-8-9 (8-9+7): no 平胡 (§7)."""
        got = items_of(hand("8999p", "7p", FOUR_CHI), wait_mode(mode))
        assert got == {}

    @pytest.mark.parametrize("mode", ["two_sided_tile", "two_sided_reading"])
    def test_three_completing_one_two_three_is_an_edge(self, mode: str) -> None:
        """1112p waits 2p and 3p; 3p only closes 1-2-3 (1-2+3): no 平胡 (§7)."""
        got = items_of(hand("1112p", "3p", FOUR_CHI), wait_mode(mode))
        assert got == {}

    @pytest.mark.parametrize("mode", ["whole_hand", "two_sided_tile", "two_sided_reading",
                                      "not_pair"])  # fmt: skip
    def test_low_end_of_a_two_sided_sequence(self, mode: str) -> None:
        """23m waits 1m and 4m; 1m is the outer tile of 1-2-3: 平胡 2 in every mode (§7)."""
        assert items_of(hand("23m 55s", "1m", FOUR_CHI), wait_mode(mode)) == {"ping_hu": 2}

    def test_whole_hand_two_waits_edge_tile_still_counts(self) -> None:
        """`whole_hand` judges the wait only: 8999p on 7p has 平胡 2 (§7, I8)."""
        assert items_of(hand("8999p", "7p", FOUR_CHI)) == {"ping_hu": 2}


def test_half_melded_with_one_exposed_meld() -> None:
    """I5 半求: four 暗槓 and one 吃 are enough (one exposed meld): 半求 1, 獨聽 1, 自摸 1,
    四暗坎 5 = 8."""
    melds = ("akong:1111m", "akong:5555p", "akong:9999s", "akong:7777m", "chi:234p")
    got = items_of(hand("8s", "8s", melds, win="self_draw"))
    assert got == {
        "half_melded": 1,
        "single_wait": 1,
        "four_concealed_pongs": 5,
        "self_draw": 1,
    }


def test_small_four_winds_with_the_east_pair() -> None:
    """§4 小四喜 8 with 東 as the wind pair; 南 (seat) and 西 (round) pongs still add, and
    萬 with honours is 湊一色 4: 14."""
    got = items_of(hand("SSS WWW EE 123m 55m", "5m", ("pong:NNN",)))
    assert got == {"small_four_winds": 8, "seat_wind_pong": 1, "round_wind_pong": 1,
                   "half_flush": 4}  # fmt: skip


class TestScoreOutput:
    """score-format.md's output object for a worked hand, every key."""

    # Example 012: 大三元 8 (no 箭字坎) + 湊一色 4 = 12; 6s7s waited on 5s and 8s.
    BIG_THREE = hand("PPP 234s 67s 99s", "5s", ("pong:CCC", "pong:FFF"), seat_wind="E",
                     round_wind="E")  # fmt: skip

    def test_valid_hand_to_json(self) -> None:
        """A win: items in §4 order, Chinese and English names, no reason, waits, reading."""
        assert score_json(self.BIG_THREE) == {
            "valid": True,
            "tai": 12,
            "items": [
                {"id": "half_flush", "name": "湊一色", "tai": 4, "en": "half flush"},
                {"id": "big_three_dragons", "name": "大三元", "tai": 8, "en": "big three dragons"},
            ],
            "dealer_tai": 0,
            "reason": None,
            "waits": ["5s", "8s"],
            "reading": ["2s 3s 4s", "5s 6s 7s", "P P P", "9s 9s"],
        }

    def test_unrevealed_flower_win_to_json(self) -> None:
        """§5 八仙過海 with the hand not revealed: the 8 台 item alone, no reason, no reading."""
        flowers = ["h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8"]
        got = score_json({"win": "self_draw", "flower_win": "eight_immortals", "flowers": flowers})
        assert got == {
            "valid": True,
            "tai": 8,
            "items": [
                {"id": "eight_immortals", "name": "八仙過海", "tai": 8, "en": "eight immortals"}
            ],
            "dealer_tai": 0,
            "reason": None,
            "waits": [],
            "reading": [],
        }

    def test_not_a_win_to_json(self) -> None:
        """Not a win: valid false, 0 台, the reason, no waits and no reading."""
        got = score_json(hand("PPP 234s 67s 99s", "1s", ("pong:CCC", "pong:FFF"), dealer=True))
        assert got == {
            "valid": False,
            "tai": 0,
            "items": [],
            "dealer_tai": 1,
            "reason": "not a winning hand: the 17 tiles do not read as 5 sets and a pair",
            "waits": [],
            "reading": [],
        }

    def test_a_result_is_immutable(self) -> None:
        """The engine returns immutable values: a result cannot be changed after scoring."""
        result = score(parse_hand(self.BIG_THREE))
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.tai = 0  # type: ignore[misc]


class TestLikGuWaitsOnlyWhenOn:
    """§4 嚦咕嚦咕 is optional: off (the default), its shape adds no waits."""

    # 11m 22m 33m 55p 66p 77p 99s NN: as sets 123m 123m 567p 567p + 99s NN (9s or N).
    PAIRS = hand("11m 22m 33m 55p 66p 77p 99s NN", "9s")

    def test_off_waits_are_the_sets_reading(self) -> None:
        """Off: waits 9s and N only; 999s from a discard is open: 門清 1 alone (§4, I2)."""
        result = score(parse_hand(self.PAIRS))
        assert [i.id for i in result.items] == ["concealed"]
        assert score_json(self.PAIRS)["waits"] == ["9s", "N"]

    def test_on_every_pair_is_a_wait(self) -> None:
        """On: each of the eight pairs can become the triplet: eight waits (§4)."""
        got = score_json(self.PAIRS, Profile(lik_gu=True))
        assert got["waits"] == ["1m", "2m", "3m", "5p", "6p", "7p", "9s", "N"]

    def test_reading_of_a_lik_gu_is_its_triplet(self) -> None:
        """A 嚦咕嚦咕 reading has no pair of sets: the output shows the triplet alone."""
        data = hand("11m 33m 55p 77p 99s EE CC FF", "F")
        got = score_json(data, Profile(lik_gu=True))
        assert got["reading"] == ["F F F"]
        assert got["tai"] == 9  # 嚦咕嚦咕 8 + 箭字坎 (發) 1


class TestDiscardAndConcealedTriplets:
    """I2: a triplet a discard completes is open, unless the tile can go to a sequence."""

    def test_tile_credited_to_the_top_of_a_sequence(self) -> None:
        """12333m + 3m: 3m closes 1-2-3, so 333m stays concealed: 三暗坎 2 (I2)."""
        got = items_of(hand("111p 999s 12333m 55s", "3m", ("chi:789p",)))
        assert got["three_concealed_pongs"] == 2

    def test_tile_past_a_sequence_opens_its_triplet(self) -> None:
        """123m 44m 55s + 4m: 444m cannot take 4m into 1-2-3: open, so no 三暗坎 (I2)."""
        got = items_of(hand("111p 999s 123m 44m 55s", "4m", ("chi:789p",)))
        assert "three_concealed_pongs" not in got

    def test_other_triplets_stay_concealed(self) -> None:
        """111p 999s 555m stay concealed when the discard opens 444m: 三暗坎 2 (I2)."""
        got = items_of(hand("111p 999s 555m 22m 44m", "4m", ("chi:123m",)))
        assert got == {"three_concealed_pongs": 2}


def test_i3_four_copies_in_concealed_tiles_and_melds() -> None:
    """I3: three 1m in the hand and one in the 吃 123m: 1m cannot arrive, waits 4m and 5s."""
    got = score_json(hand("111m 23m 456p 789p 55s", "4m", ("chi:123m",)))
    assert got["waits"] == ["4m", "5s"]
    assert got["items"] == []


def test_reading_shows_a_pair_of_one_characters() -> None:
    """The output's reading lists the sets (萬 筒 索 order) and the pair, also a 1m pair."""
    got = score_json(hand("234m 567m 11m 23s 789p", "4s", ("chi:123p",)))
    assert got["reading"] == ["2m 3m 4m", "5m 6m 7m", "7p 8p 9p", "2s 3s 4s", "1m 1m"]
