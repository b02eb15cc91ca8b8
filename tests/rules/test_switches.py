"""Every `[rules]` switch and `[tai]` value of taiwan16.md §7: one hand under both settings.

The expected items are worked from §4 and §7 by hand, not recomputed by the code.
Hands are in `notation.py`'s notation: unless given, the winner sits 南 (position 2)
in the 西 round and wins on a discard.
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from table_service.rules import HandInputError, Profile, Rules, parse_hand, score
from table_service.rules.scoring import dealer_tai
from tests.rules.kit_notation import hand, items_of

FOUR_CHI = ("chi:123p", "chi:456p", "chi:234s", "chi:678s")
CHI_ONLY = (*FOUR_CHI, "chi:789m")  # five 吃: 全求 / 半求 with no 暗槓
CONCEALED_PING_HU = "123p 456p 234s 678s 23m 55s"  # waits 1m 4m, no meld


def rules(**switches: Any) -> Profile:
    return Profile(rules=Rules(**switches))


class TestPingHuWait:
    """`ping_hu_wait`: four open 吃 and four concealed tiles; only the wait differs."""

    # (concealed, winning tile) → the modes under which it has 平胡 2.
    CASES: ClassVar[dict[tuple[str, str], set[str]]] = {
        # 23m waits 1m/4m; 4m is the outer tile of 2-3-4: every mode.
        ("23m 55s", "4m"): {"whole_hand", "two_sided_tile", "two_sided_reading", "not_pair", "any"},
        # 3555m waits 3m/4m; 4m can only sit in the middle of 3-4-5.
        ("3555m", "4m"): {"whole_hand", "not_pair", "any"},
        # 5677m waits 4m/7m; 7m is the outer tile of 5-6-7 or the pair's second 7.
        ("5677m", "7m"): {"whole_hand", "two_sided_reading", "not_pair", "any"},
        # 5678m waits 5m/8m; 8m can only complete the pair 88 (5-6-7 stays).
        ("5678m", "8m"): {"whole_hand", "any"},
        # 12m waits 3m alone (邊張): a single wait has 平胡 only under `any`.
        ("12m 55s", "3m"): {"any"},
    }

    @pytest.mark.parametrize("mode", ["whole_hand", "two_sided_tile", "two_sided_reading",
                                      "not_pair", "any"])  # fmt: skip
    @pytest.mark.parametrize("shape", list(CASES))
    def test_mode(self, shape: tuple[str, str], mode: str) -> None:
        concealed, winning = shape
        got = items_of(hand(concealed, winning, FOUR_CHI), rules(ping_hu_wait=mode))
        single = {"single_wait": 1} if winning == "3m" else {}
        expected = {"ping_hu": 2} if mode in self.CASES[shape] else {}
        assert got == expected | single

    def test_default_is_whole_hand(self) -> None:
        assert items_of(hand("5678m", "8m", FOUR_CHI)) == {"ping_hu": 2}
        assert items_of(hand("3555m", "4m", FOUR_CHI)) == {"ping_hu": 2}


class TestPingHuConditions:
    def test_honour_pair(self) -> None:
        data = hand("23m EE", "4m", FOUR_CHI)  # the pair 東 is neither seat (南) nor round (西)
        assert items_of(data) == {}
        assert items_of(data, rules(ping_hu_honour_pair=True)) == {"ping_hu": 2}

    def test_honour_pair_does_not_allow_honour_pongs(self) -> None:
        data = hand("23m 55s", "4m", (*FOUR_CHI[:3], "pong:EEE"))
        assert items_of(data, rules(ping_hu_honour_pair=True)) == {}

    def test_flowers(self) -> None:
        data = hand("23m 55s", "4m", FOUR_CHI, flowers=["h2"])  # 夏: 南's flower
        assert items_of(data) == {"seat_flower": 1}
        assert items_of(data, rules(ping_hu_flowers=True)) == {"ping_hu": 2, "seat_flower": 1}

    def test_with_concealed(self) -> None:
        data = hand(CONCEALED_PING_HU, "4m")
        assert items_of(data) == {"concealed": 1, "ping_hu": 2}
        assert items_of(data, rules(ping_hu_with_concealed=False)) == {"concealed": 1}

    def test_with_concealed_false_keeps_open_ping_hu(self) -> None:
        data = hand("23m 55s", "4m", FOUR_CHI)
        assert items_of(data, rules(ping_hu_with_concealed=False)) == {"ping_hu": 2}


class TestMelded:
    def test_half_melded(self) -> None:
        # 半求: four 吃 and an 暗槓, one tile left, self-drawn: 1 + 獨聽 1 + 自摸 1 = 3.
        data = hand("5m", "5m", (*FOUR_CHI, "akong:9999m"), win="self_draw")
        assert items_of(data) == {"half_melded": 1, "single_wait": 1, "self_draw": 1}
        assert items_of(data, rules(half_melded=False)) == {"single_wait": 1, "self_draw": 1}

    def test_all_melded_single_wait(self) -> None:
        # 全求: five 吃, one tile left, on a discard: 2 + 獨聽 1 = 3.
        data = hand("5m", "5m", CHI_ONLY)
        assert items_of(data) == {"all_melded": 2, "single_wait": 1}
        assert items_of(data, rules(all_melded_single_wait=False)) == {"all_melded": 2}

    def test_all_melded_single_wait_self_drawn(self) -> None:
        # Five 吃 melds and a self-draw is 半求; the switch withholds its 獨聽 too.
        data = hand("5m", "5m", CHI_ONLY, win="self_draw")
        assert items_of(data) == {"half_melded": 1, "single_wait": 1, "self_draw": 1}
        got = items_of(data, rules(all_melded_single_wait=False))
        assert got == {"half_melded": 1, "self_draw": 1}

    def test_all_melded_single_wait_keeps_it_with_a_concealed_kong(self) -> None:
        # An 暗槓 among the melds: not all five are 吃/碰/明槓, so 獨聽 stays.
        data = hand("5m", "5m", (*FOUR_CHI, "akong:9999m"), win="self_draw")
        got = items_of(data, rules(all_melded_single_wait=False))
        assert got == {"half_melded": 1, "single_wait": 1, "self_draw": 1}


class TestConcealedPongsAndHonours:
    FIVE = hand("111m 222m 333p 444p 555s 6s", "6s", win="self_draw")  # 五暗坎, self-drawn

    def test_five_concealed_exclusive(self) -> None:
        assert items_of(self.FIVE) == {"five_concealed_pongs": 13, "concealed_self_draw": 2}
        got = items_of(self.FIVE, rules(five_concealed_exclusive=False))
        assert got == {
            "concealed": 1,
            "concealed_self_draw": 2,
            "all_pongs": 4,
            "five_concealed_pongs": 13,
        }

    # 字一色 with four 碰 melds: 南 (seat) 1, 西 (round) 1, 小三元 4, 字一色 16, 獨聽 1, −4.
    HONOURS = hand("FFF P", "P", ("pong:EEE", "pong:SSS", "pong:WWW", "pong:CCC"))
    HONOURS_ITEMS: ClassVar[dict[str, int]] = {
        "seat_wind_pong": 1,
        "round_wind_pong": 1,
        "single_wait": 1,
        "all_honors": 16,
        "small_three_dragons": 4,
        "all_honors_overlap": -4,
    }

    def test_all_honors_overlap(self) -> None:
        assert items_of(self.HONOURS) == self.HONOURS_ITEMS
        got = items_of(self.HONOURS, rules(all_honors_overlap=False))
        assert got == {k: v for k, v in self.HONOURS_ITEMS.items() if k != "all_honors_overlap"}
        assert sum(got.values()) == 23

    def test_all_honors_with_all_pongs(self) -> None:
        got = items_of(self.HONOURS, rules(all_honors_with_all_pongs=True))
        assert got == self.HONOURS_ITEMS | {"all_pongs": 4}

    def test_all_honors_with_all_pongs_subject_to_five_concealed(self) -> None:
        # All concealed, won on a discard to the pair: 五暗坎 13 still drops 對對胡 and 門清.
        data = hand("EEE SSS WWW CCC FFF P", "P")
        expected = {
            "seat_wind_pong": 1,
            "round_wind_pong": 1,
            "single_wait": 1,
            "all_honors": 16,
            "five_concealed_pongs": 13,
            "small_three_dragons": 4,
            "all_honors_overlap": -4,
        }
        assert items_of(data, rules(all_honors_with_all_pongs=True)) == expected
        both = rules(all_honors_with_all_pongs=True, five_concealed_exclusive=False)
        assert items_of(data, both) == expected | {"all_pongs": 4, "concealed": 1}


class TestFlowers:
    def test_flower_kong_keeps_seat_flower(self) -> None:
        data = hand("23m 55s", "4m", FOUR_CHI, flowers=["h1", "h2", "h3", "h4"])
        assert items_of(data) == {"flower_kong": 2}
        got = items_of(data, rules(flower_kong_keeps_seat_flower=True))
        assert got == {"seat_flower": 1, "flower_kong": 2}

    def test_flower_kong_keeps_seat_flower_with_the_other_colour(self) -> None:
        data = hand("23m 55s", "4m", FOUR_CHI, flowers=["h1", "h2", "h3", "h4", "h6"])
        assert items_of(data) == {"seat_flower": 1, "flower_kong": 2}
        got = items_of(data, rules(flower_kong_keeps_seat_flower=True))
        assert got == {"seat_flower": 2, "flower_kong": 2}

    def test_all_flowers_still_replaces_both(self) -> None:
        flowers = [f"h{i}" for i in range(1, 9)]
        data = hand("23m 55s", "4m", FOUR_CHI, flowers=flowers)
        assert items_of(data, rules(flower_kong_keeps_seat_flower=True)) == {"all_flowers": 8}


class TestSpecialWins:
    def test_human_win_without_declaration(self) -> None:
        data = hand(CONCEALED_PING_HU, "4m", timing="human_win")
        with pytest.raises(HandInputError, match="human_win"):
            parse_hand(data)
        loose = rules(special_wins_need_declaration=False)
        # 人胡 8 drops 門清; 平胡 2 stays (a concealed two-sided wait on a discard).
        assert items_of_loose(data, loose) == {"ping_hu": 2, "human_win": 8}

    def test_human_win_without_declaration_is_a_non_dealers_discard_win(self) -> None:
        loose = rules(special_wins_need_declaration=False)
        for extra in ({"dealer": True}, {"win": "self_draw"}):
            data = hand(CONCEALED_PING_HU, "4m", timing="human_win", **extra)
            with pytest.raises(HandInputError, match="non-dealer's win on a discard"):
                parse_hand(data, loose.rules)

    def test_self_drawn_earthly_win_without_heavenly_ready(self) -> None:
        data = hand(CONCEALED_PING_HU, "4m", timing="earthly_win", win="self_draw")
        with pytest.raises(HandInputError, match="needs heavenly_ready"):
            parse_hand(data)
        loose = rules(special_wins_need_declaration=False)
        assert items_of_loose(data, loose) == {"concealed_self_draw": 2, "earthly_win": 16}

    def test_kong_bloom_with_heavenly_win(self) -> None:
        data = hand(
            CONCEALED_PING_HU, "4m", win="self_draw", dealer=True, timing="heavenly_win",
            replacement=True,
        )  # fmt: skip
        assert items_of(data) == {"heavenly_win": 16}
        got = items_of(data, rules(kong_bloom_with_heavenly_win=True))
        assert got == {"kong_bloom": 1, "heavenly_win": 16}


class TestLikGu:
    LIK_GU = hand("11m 33m 55p 77p 99s EE CC FF", "F", flowers=["h2"])

    def test_lik_gu(self) -> None:
        assert not score(parse_hand(self.LIK_GU)).valid
        got = items_of(self.LIK_GU, rules(lik_gu=True))
        assert got == {"lik_gu": 8, "dragon_pong": 1, "seat_flower": 1}

    def test_rules_table_wins_over_shorthand(self) -> None:
        assert Profile(lik_gu=True, rules=Rules(lik_gu=False)).rules.lik_gu is False
        assert Profile(lik_gu=True).rules.lik_gu is True

    def test_valued_zero_is_no_win(self) -> None:
        profile = Profile(rules=Rules(lik_gu=True), tai={"lik_gu": 0})
        assert not score(parse_hand(self.LIK_GU), profile).valid


class TestTaiValues:
    # Chi 456p + 111222333m + 55s 67s, won on 8s: three 暗坎 (2) or three 1-2-3 (平胡 2).
    TWO_READINGS = hand("111222333m 55s 67s", "8s", ("chi:456p",))

    def test_a_value_changes_which_reading_wins(self) -> None:
        more_ping_hu = Profile(tai={"ping_hu": 3})
        assert items_of(self.TWO_READINGS, more_ping_hu) == {"ping_hu": 3}
        more_pongs = Profile(tai={"three_concealed_pongs": 3})
        assert items_of(self.TWO_READINGS, more_pongs) == {"three_concealed_pongs": 3}

    def test_full_flush_value(self) -> None:
        data = hand("123m 456m 789m 23m 55m", "4m", ("chi:123m",))
        assert items_of(data)["full_flush"] == 12
        assert items_of(data, Profile(tai={"full_flush": 8}))["full_flush"] == 8

    def test_zero_removes_the_item_and_its_exclusions(self) -> None:
        five = TestConcealedPongsAndHonours.FIVE
        got = items_of(five, Profile(tai={"five_concealed_pongs": 0}))
        assert got == {
            "concealed": 1,
            "concealed_self_draw": 2,
            "all_pongs": 4,
            "four_concealed_pongs": 5,
        }

    def test_units_times_value(self) -> None:
        data = hand("CCC FFF 23s 55s", "4s", ("chi:123m", "chi:456m"))
        assert items_of(data) == {"dragon_pong": 2}
        assert items_of(data, Profile(tai={"dragon_pong": 3})) == {"dragon_pong": 6}

    def test_overlap_amount(self) -> None:
        got = items_of(
            TestConcealedPongsAndHonours.HONOURS, Profile(tai={"all_honors_overlap": -2})
        )
        assert got["all_honors_overlap"] == -2

    def test_shorthand_and_table(self) -> None:
        assert Profile(earthly_ready=6).tai_of("earthly_ready") == 6
        both = Profile(earthly_ready=6, tai={"earthly_ready": 5})
        assert both.tai_of("earthly_ready") == 5  # [tai] wins over the shorthand

    def test_dealer_values(self) -> None:
        data = parse_hand(hand("23m 55s", "4m", FOUR_CHI, dealer=True, streak=2))
        assert dealer_tai(data) == 1 + 2 * 2
        assert dealer_tai(data, Profile(tai={"dealer": 2, "streak": 3})) == 2 + 3 * 2
        result = score(data, Profile(tai={"dealer": 2, "streak": 3}))
        assert result.dealer_tai == 8 and result.tai == 2

    def test_flower_win_value(self) -> None:
        flowers = [f"h{i}" for i in range(1, 9)]
        data = parse_hand({"flower_win": "eight_immortals", "flowers": flowers})
        assert score(data).tai == 8
        assert score(data, Profile(tai={"eight_immortals": 10})).tai == 10
        nothing = score(data, Profile(tai={"eight_immortals": 0}))
        assert nothing.valid and nothing.tai == 0 and nothing.items == ()


def items_of_loose(data: dict[str, Any], profile: Profile) -> dict[str, int]:
    """`items_of` for a hand only this profile accepts (its declaration rules)."""
    result = score(parse_hand(data, profile.rules), profile)
    assert result.valid, result.reason
    found = {i.id: i.tai for i in result.items}
    assert result.tai == sum(found.values())
    return found
