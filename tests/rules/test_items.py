"""Every §4 台 item: where it applies, where it must not, and its exclusions.

Hands are written in the notation of `notation.py`; unless given, the winner sits
南 (position 2) in the 西 round and wins on a discard.
"""

from __future__ import annotations

import pytest

from table_service.rules import Profile
from tests.rules.kit_notation import hand, items_of

# A plain open hand worth nothing: chi breaks 門清, two-sided wait, no honours/flowers.
PLAIN_MELD = ("chi:123m",)


class TestWindAndDragonPongs:
    def test_seat_wind_pong_concealed(self) -> None:
        got = items_of(hand("SSS 456m 789p 23s 55s", "4s", PLAIN_MELD))
        assert got == {"seat_wind_pong": 1}

    def test_seat_wind_as_meld_and_kong(self) -> None:
        assert items_of(hand("456m 789p 23s 55s 678p", "4s", ("pong:SSS",))) == {
            "seat_wind_pong": 1
        }
        assert items_of(hand("456m 789p 23s 55s 678p", "4s", ("kong:SSSS",))) == {
            "seat_wind_pong": 1
        }

    def test_other_wind_pong_scores_nothing(self) -> None:
        assert items_of(hand("NNN 456m 789p 23s 55s", "4s", PLAIN_MELD)) == {}

    def test_wind_pair_scores_nothing(self) -> None:
        assert items_of(hand("SS 456m 789p 23s 555s", "4s", PLAIN_MELD)) == {}

    def test_round_wind_pong(self) -> None:
        assert items_of(hand("WWW 456m 789p 23s 55s", "4s", PLAIN_MELD)) == {"round_wind_pong": 1}

    def test_seat_and_round_both_add(self) -> None:
        got = items_of(
            hand("EEE 456m 789p 23s 55s", "4s", PLAIN_MELD, seat_wind="E", round_wind="E")
        )
        assert got == {"seat_wind_pong": 1, "round_wind_pong": 1}

    def test_dragon_pong_counts_each(self) -> None:
        got = items_of(hand("CCC 456m 23s 55s", "4s", ("chi:123m", "pong:FFF")))
        assert got == {"dragon_pong": 2}

    def test_dragon_pair_is_no_pong(self) -> None:
        assert items_of(hand("CC 456m 789p 23s 555s", "4s", PLAIN_MELD)) == {}

    def test_i1_dragons_have_no_round_bonus(self) -> None:
        """I1: the seeds' 合圈序 under 箭字坎 never applies; whatever the round, 1 per pong."""
        for rnd in "ESWN":
            got = items_of(hand("CCC 456m 789p 23s 55s", "4s", PLAIN_MELD, round_wind=rnd))
            assert got == {"dragon_pong": 1}


class TestConcealedAndSelfDraw:
    CONCEALED = "123m 456m 789p 23s 55s 678s"

    def test_concealed_on_discard(self) -> None:
        assert items_of(hand(self.CONCEALED, "4s"))["concealed"] == 1

    def test_concealed_kong_keeps_concealed(self) -> None:
        got = items_of(hand("456m 789p 23s 55s 678s", "4s", ("akong:9999m",)))
        assert "concealed" in got

    @pytest.mark.parametrize("meld", ["chi:123m", "pong:999m", "kong:9999m"])
    def test_exposed_meld_breaks_concealed(self, meld: str) -> None:
        got = items_of(hand("456m 789p 23s 55s 678s", "4s", (meld,)))
        assert "concealed" not in got

    def test_concealed_self_draw_is_three_with_concealed(self) -> None:
        """門清一摸三: 門清 1 + 不求.自摸 2, and 自摸 is replaced."""
        got = items_of(hand(self.CONCEALED, "4s", win="self_draw"))
        assert got == {"concealed": 1, "concealed_self_draw": 2}

    def test_open_self_draw_is_plain_self_draw(self) -> None:
        got = items_of(hand("456m 789p 23s 55s 678s", "4s", PLAIN_MELD, win="self_draw"))
        assert got == {"self_draw": 1}


class TestMelded:
    FIVE_EXPOSED = ("chi:123m", "pong:777p", "chi:456s", "kong:9999m", "chi:234p")

    def test_all_melded_on_discard(self) -> None:
        got = items_of(hand("8s", "8s", self.FIVE_EXPOSED))
        assert got == {"all_melded": 2, "single_wait": 1}

    def test_all_melded_self_drawn_is_half_melded(self) -> None:
        got = items_of(hand("8s", "8s", self.FIVE_EXPOSED, win="self_draw"))
        assert got == {"half_melded": 1, "single_wait": 1, "self_draw": 1}

    def test_i5_concealed_kong_breaks_all_melded(self) -> None:
        melds = ("chi:123m", "pong:777p", "chi:456s", "akong:9999m", "chi:234p")
        got = items_of(hand("8s", "8s", melds))
        assert "all_melded" not in got and "half_melded" not in got
        assert got == {"single_wait": 1}

    def test_i5_half_melded_allows_concealed_kong(self) -> None:
        melds = ("chi:123m", "pong:777p", "chi:456s", "akong:9999m", "chi:234p")
        got = items_of(hand("8s", "8s", melds, win="self_draw"))
        assert got == {"half_melded": 1, "single_wait": 1, "self_draw": 1}

    def test_half_melded_needs_an_exposed_meld(self) -> None:
        melds = ("akong:1111m", "akong:7777p", "akong:5555s", "akong:9999m", "akong:2222p")
        got = items_of(hand("8s", "8s", melds, win="self_draw"))
        assert "half_melded" not in got
        assert got["concealed_self_draw"] == 2 and got["five_concealed_pongs"] == 13

    def test_four_melds_is_not_melded(self) -> None:
        got = items_of(hand("8s 345p", "8s", self.FIVE_EXPOSED[:4]))
        assert "all_melded" not in got


class TestPingHu:
    PING = "123m 67m 456p 99p 234s 789s"

    def test_ping_hu_with_concealed(self) -> None:
        assert items_of(hand(self.PING, "8m")) == {"ping_hu": 2, "concealed": 1}

    def test_ping_hu_open(self) -> None:
        got = items_of(hand("67m 456p 99p 234s 789s", "8m", PLAIN_MELD))
        assert got == {"ping_hu": 2}

    def test_not_self_drawn(self) -> None:
        assert "ping_hu" not in items_of(hand(self.PING, "8m", win="self_draw"))

    def test_not_with_a_flower(self) -> None:
        assert "ping_hu" not in items_of(hand(self.PING, "8m", flowers=["h3"]))

    def test_not_with_honour_pair(self) -> None:
        got = items_of(hand("123m 67m 456p NN 234s 789s", "8m"))
        assert "ping_hu" not in got

    def test_not_with_a_triplet(self) -> None:
        got = items_of(hand("123m 67m 456p 99p 222s 789s", "8m"))
        assert "ping_hu" not in got

    def test_i8_not_on_a_single_wait(self) -> None:
        """I8: 中洞 (closed wait) is 獨聽, so no 平胡."""
        got = items_of(hand("123m 68m 456p 99p 234s 789s", "7m"))
        assert got == {"single_wait": 1, "concealed": 1}

    def test_i8_whole_hand_wait_counts(self) -> None:
        """A 6m8m 中洞 that also waits via another reading (5m 8m 7m...) is not single."""
        # 5668m waits 7m (5-6-7 + 68? no) — use 4566m: waits 3m, 6m, 4m? whole-hand waits > 1.
        got = items_of(hand("123m 4566m 456p 234s 789s", "3m"))
        assert "single_wait" not in got and got["ping_hu"] == 2


class TestAllPongs:
    def test_all_pongs(self) -> None:
        got = items_of(hand("999m 11s 33s", "3s", ("pong:222m", "pong:777p", "kong:5555p")))
        assert got == {"all_pongs": 4}

    def test_one_sequence_breaks_it(self) -> None:
        got = items_of(hand("789m 11s 33s", "3s", ("pong:222m", "pong:777p", "kong:5555p")))
        assert "all_pongs" not in got


class TestSingleWait:
    @pytest.mark.parametrize(
        ("shape", "winning"),
        [("13m 55s", "2m"), ("12m 55s", "3m"), ("89m 55s", "7m"), ("N 234s", "N")],
        ids=["中洞", "邊張-low", "邊張-high", "單釣"],
    )
    def test_single_wait_shapes(self, shape: str, winning: str) -> None:
        got = items_of(hand(f"{shape} 456p 789p 678s", winning, PLAIN_MELD))
        assert got["single_wait"] == 1

    def test_two_sided_is_not_single(self) -> None:
        got = items_of(hand("23m 456p 789p 55s 234s", "4m", PLAIN_MELD))
        assert "single_wait" not in got

    def test_i3_fake_wait_counts_as_single(self) -> None:
        """1234m waits 1m and 4m; with 111m ponged, no 1m can arrive (假聽): a single wait."""
        got = items_of(hand("1234m 789p 234s 678s", "4m", ("pong:111m",)))
        assert got["single_wait"] == 1

    def test_i3_without_the_pong_it_is_two_waits(self) -> None:
        got = items_of(hand("1234m 789p 234s 678s", "4m", ("pong:999p",)))
        assert "single_wait" not in got


def test_robbing_kong() -> None:
    got = items_of(hand("23m 456p 789p 55s 234s", "4m", PLAIN_MELD, win="robbing_kong"))
    assert got == {"robbing_kong": 1, "ping_hu": 2}  # 搶槓 is not a self-draw


class TestFlushes:
    def test_full_flush(self) -> None:
        got = items_of(hand("234s 567s 99s 34s", "5s", ("chi:123s", "pong:888s")))
        assert got["full_flush"] == 12 and "half_flush" not in got

    def test_half_flush(self) -> None:
        got = items_of(hand("234s 567s NN 34s", "5s", ("chi:123s", "pong:888s")))
        assert got == {"half_flush": 4}

    def test_i6_two_suits_no_flush(self) -> None:
        got = items_of(hand("234s 567s NN 34s", "5s", ("chi:123s", "pong:888p")))
        assert "half_flush" not in got and "full_flush" not in got

    def test_i6_all_honours_is_no_flush(self) -> None:
        got = items_of(hand("EEE WWW N", "N", ("pong:CCC", "pong:FFF", "pong:SSS")))
        assert "half_flush" not in got and "full_flush" not in got and got["all_honors"] == 16


class TestConcealedPongs:
    def test_three_concealed_self_drawn(self) -> None:
        got = items_of(hand("111p 999s 22m 44m 456p", "4m", PLAIN_MELD, win="self_draw"))
        assert got["three_concealed_pongs"] == 2

    def test_i2_discard_finishes_an_open_triplet(self) -> None:
        """I2: the 4m triplet completed by a discard is not concealed: two, not three."""
        got = items_of(hand("111p 999s 22m 44m 456p", "4m", PLAIN_MELD))
        assert "three_concealed_pongs" not in got

    def test_i2_discard_credited_to_a_sequence_keeps_the_triplet(self) -> None:
        """3m can finish 333m or 345m: reading it into the sequence keeps 333m concealed."""
        got = items_of(hand("111p 999s 33345m 55s", "3m", ("chi:789p",)))
        assert got["three_concealed_pongs"] == 2

    def test_concealed_kong_counts(self) -> None:
        got = items_of(hand("111p 999s 2m 456p", "2m", ("chi:123m", "akong:7777s")))
        assert got["three_concealed_pongs"] == 2

    def test_four_replaces_three(self) -> None:
        got = items_of(hand("111p 999s 555m 22m 44m", "4m", PLAIN_MELD, win="self_draw"))
        assert got["four_concealed_pongs"] == 5 and "three_concealed_pongs" not in got

    def test_five_replaces_four_concealed_and_all_pongs(self) -> None:
        """On a discard only a 單釣 keeps all five triplets concealed (I2)."""
        got = items_of(hand("111p 999s 555m 888m EEE 4s", "4s", win="discard"))
        assert got == {"five_concealed_pongs": 13, "single_wait": 1}

    def test_five_self_drawn_adds_concealed_self_draw(self) -> None:
        got = items_of(hand("111p 999s 555m 777m 22m 44m", "4m", win="self_draw"))
        assert got == {"five_concealed_pongs": 13, "concealed_self_draw": 2}

    def test_five_profile_value(self) -> None:
        got = items_of(
            hand("111p 999s 555m 777m 22m 44m", "4m", win="self_draw"),
            Profile(five_concealed_pongs=12),
        )
        assert got["five_concealed_pongs"] == 12


class TestWindsAndDragons:
    def test_big_four_winds_drops_wind_pongs(self) -> None:
        got = items_of(hand("EEE SSS WWW NNN 123m 5m", "5m", seat_wind="E", round_wind="E"))
        assert got["big_four_winds"] == 16
        assert "seat_wind_pong" not in got and "round_wind_pong" not in got
        assert got["half_flush"] == 4

    def test_small_four_winds_keeps_wind_pongs(self) -> None:
        got = items_of(hand("SSS WWW NN 123m 55m", "5m", ("pong:EEE",), seat_wind="S"))
        assert got["small_four_winds"] == 8
        assert got["seat_wind_pong"] == 1 and got["round_wind_pong"] == 1

    def test_small_four_winds_pair_gives_no_pong_bonus(self) -> None:
        """The seat wind as the pair of 小四喜 scores no 風字坎."""
        got = items_of(hand("EEE WWW SS 123m 55m", "5m", ("pong:NNN",), seat_wind="S"))
        assert got["small_four_winds"] == 8 and "seat_wind_pong" not in got

    def test_big_three_dragons(self) -> None:
        got = items_of(hand("CCC FFF PPP 123m 5m", "5m", PLAIN_MELD))
        assert got["big_three_dragons"] == 8 and "dragon_pong" not in got

    def test_small_three_dragons(self) -> None:
        got = items_of(hand("CCC FFF PP 123m 55m", "5m", PLAIN_MELD))
        assert got["small_three_dragons"] == 4 and "dragon_pong" not in got


class TestAllHonours:
    def test_with_small_three_dragons_is_16(self) -> None:
        """Note A: 字一色 16 + 小三元 4 − 4 = 16 (plus the wind pongs)."""
        got = items_of(hand("SSS WWW P", "P", ("pong:CCC", "pong:FFF", "pong:NNN")))
        assert got["all_honors"] == 16 and got["all_honors_overlap"] == -4
        assert got["small_three_dragons"] == 4
        assert "all_pongs" not in got
        assert got["seat_wind_pong"] == 1 and got["round_wind_pong"] == 1

    def test_with_big_three_dragons_is_20(self) -> None:
        got = items_of(hand("CCC FFF PPP SSS W", "W", ("pong:EEE",)))
        assert got["big_three_dragons"] + got["all_honors"] + got["all_honors_overlap"] == 20

    def test_with_big_four_winds(self) -> None:
        got = items_of(hand("EEE SSS WWW NNN CCC F", "F", seat_wind="E", round_wind="E"))
        assert got["big_four_winds"] == 16 and got["all_honors"] == 16
        assert got["all_honors_overlap"] == -4


class TestDrawItems:
    OPEN = "23m 456p 789p 55s 234s"

    def test_kong_bloom(self) -> None:
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, win="self_draw", replacement=True))
        assert got == {"self_draw": 1, "kong_bloom": 1}

    def test_last_tile(self) -> None:
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, win="self_draw", last_tile=True))
        assert got == {"self_draw": 1, "last_tile": 1}

    def test_bloom_and_last_tile_together(self) -> None:
        got = items_of(
            hand(self.OPEN, "4m", PLAIN_MELD, win="self_draw", last_tile=True, replacement=True)
        )
        assert got == {"self_draw": 1, "kong_bloom": 1, "last_tile": 1}


class TestFlowers:
    OPEN = "23m 456p 789p 55s 234s"

    def test_seat_flowers_one_per_colour(self) -> None:
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, flowers=["h2", "h6", "h1"]))
        assert got == {"seat_flower": 2}

    def test_i7_position_from_seat_wind(self) -> None:
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, seat_wind="N", flowers=["h4", "h2"]))
        assert got == {"seat_flower": 1}

    def test_flower_kong_replaces_that_colours_seat_flower(self) -> None:
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, flowers=["h5", "h6", "h7", "h8", "h2"]))
        assert got == {"flower_kong": 2, "seat_flower": 1}

    def test_two_flower_kongs_are_all_flowers(self) -> None:
        flowers = [f"h{k}" for k in range(1, 9)]
        got = items_of(hand(self.OPEN, "4m", PLAIN_MELD, flowers=flowers))
        assert got == {"all_flowers": 8}


EIGHT_FLOWERS = tuple(f"h{k}" for k in range(1, 9))


class TestFlowerWins:
    EIGHT = list(EIGHT_FLOWERS)  # noqa: RUF012

    def test_eight_immortals_alone(self) -> None:
        got = items_of({"flower_win": "eight_immortals", "flowers": self.EIGHT})
        assert got == {"eight_immortals": 8}

    def test_seven_rob_one_alone(self) -> None:
        got = items_of(
            {"flower_win": "seven_rob_one", "flowers": self.EIGHT, "robbed_flower": "h3"}
        )
        assert got == {"seven_rob_one": 8}

    def test_unrevealed_hand_is_not_scored_without_replacement(self) -> None:
        data = hand("23m 456p 789p 55s 234s", "4m", PLAIN_MELD, win="self_draw")
        got = items_of({**data, "flower_win": "eight_immortals", "flowers": self.EIGHT})
        assert got == {"eight_immortals": 8}

    def test_replacement_completing_adds_the_hands_own(self) -> None:
        data = hand("23m 456p 789p 55s 234s", "4m", PLAIN_MELD, win="self_draw", replacement=True)
        got = items_of({**data, "flower_win": "eight_immortals", "flowers": self.EIGHT})
        assert got == {"eight_immortals": 8, "self_draw": 1, "kong_bloom": 1, "all_flowers": 8}

    def test_case_two_leaves_the_robbed_flower_out(self) -> None:
        data = hand("23m 456p 789p 55s 234s", "4m", PLAIN_MELD, win="self_draw", replacement=True)
        data.update(flower_win="seven_rob_one", flowers=self.EIGHT, robbed_flower="h1")
        got = items_of(data)
        # Without h1: the plants are a 花槓 (2); seasons h2 matches seat 南 (1).
        assert got == {
            "seven_rob_one": 8,
            "self_draw": 1,
            "kong_bloom": 1,
            "flower_kong": 2,
            "seat_flower": 1,
        }

    def test_replacement_not_completing_is_the_8_alone(self) -> None:
        data = hand("23m 456p 789p 55s 234s", "9m", PLAIN_MELD, win="self_draw", replacement=True)
        got = items_of({**data, "flower_win": "eight_immortals", "flowers": self.EIGHT})
        assert got == {"eight_immortals": 8}


class TestDeclarationsAndTiming:
    CONCEALED = "123m 456m 777p 23s 55s 678s"  # the 777p triplet keeps 平胡 out

    def test_heavenly_ready_excludes_concealed(self) -> None:
        got = items_of(hand(self.CONCEALED, "4s", declared="heavenly_ready"))
        assert got == {"heavenly_ready": 8}

    def test_heavenly_ready_self_draw_keeps_concealed_self_draw(self) -> None:
        got = items_of(hand(self.CONCEALED, "4s", declared="heavenly_ready", win="self_draw"))
        assert got == {"heavenly_ready": 8, "concealed_self_draw": 2}

    def test_earthly_ready_and_profile(self) -> None:
        data = hand(self.CONCEALED, "4s", declared="earthly_ready")
        assert items_of(data) == {"earthly_ready": 4}
        assert items_of(data, Profile(earthly_ready=6)) == {"earthly_ready": 6}

    def test_dealer_may_declare_earthly_ready(self) -> None:
        got = items_of(hand(self.CONCEALED, "4s", declared="earthly_ready", dealer=True))
        assert got == {"earthly_ready": 4}

    def test_heavenly_win_exclusions(self) -> None:
        """天胡: no 自摸, 門清, 不求, 獨聽, 平胡 or 槓上開花; others (三暗坎) add."""
        got = items_of(
            hand("111p 999s 555m 13m 55s 456s", "2m", win="self_draw", dealer=True,
                 timing="heavenly_win", seat_wind="E")
        )  # fmt: skip
        assert got == {"heavenly_win": 16, "three_concealed_pongs": 2}

    def test_earthly_win_self_drawn_after_heavenly_ready(self) -> None:
        got = items_of(
            hand(self.CONCEALED, "4s", win="self_draw", declared="heavenly_ready",
                 timing="earthly_win")
        )  # fmt: skip
        assert got == {"earthly_win": 16, "concealed_self_draw": 2}

    def test_earthly_win_on_a_first_discard(self) -> None:
        got = items_of(hand(self.CONCEALED, "4s", timing="earthly_win"))
        assert got == {"earthly_win": 16}

    def test_human_win(self) -> None:
        got = items_of(hand(self.CONCEALED, "4s", declared="earthly_ready", timing="human_win"))
        assert got == {"human_win": 8}


class TestLikGu:
    def test_off_by_default(self) -> None:
        from table_service.rules import parse_hand, score

        result = score(parse_hand(hand("11m 33m 55p 77p 99s EE CC FF", "F")))
        assert not result.valid

    def test_on_with_profile(self) -> None:
        data = hand("11m 33m 55p 77p 99s EE CC FF", "F", flowers=["h2"])
        got = items_of(data, Profile(lik_gu=True))
        assert got == {"lik_gu": 8, "dragon_pong": 1, "seat_flower": 1}

    def test_keeps_flush_and_self_draw(self) -> None:
        data = hand("11s 22s 33s 55s 66s 77s 99s NN", "N", win="self_draw")
        got = items_of(data, Profile(lik_gu=True))
        # It also reads as 123s 123s 567s 567s NNN 99s (7 台); the 嚦咕嚦咕 reading has 14.
        assert got["lik_gu"] == 8 and got["half_flush"] == 4 and got["concealed_self_draw"] == 2
        assert "concealed" not in got and "single_wait" not in got
