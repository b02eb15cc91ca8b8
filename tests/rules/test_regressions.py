"""The four bugs a mutation spot-check (README, "Mutation testing") found the suite blind
to, each pinned.

Every expectation is worked by hand from taiwan16.md (the section is named in the
docstring) and written as a literal. Hands are in `notation.py`'s notation: unless
given, the winner sits 南 (position 2) in the 西 round and wins on a discard.
"""

from __future__ import annotations

import pytest

from table_service.rules import (
    HandOutcome,
    Profile,
    SettleInputError,
    parse_hand,
    score,
    settle,
    settle_json,
)
from table_service.rules.tiles import parse_kind
from tests.rules.kit_notation import hand, items_of

LIK_GU = Profile(lik_gu=True)


def kinds(*codes: str) -> tuple[int, ...]:
    return tuple(parse_kind(c) for c in codes)


class TestSmallThreeDragonsPair:
    """§4 小三元 4: two dragon sets and a dragon pair, whichever dragon the pair is."""

    def test_red_dragon_pair(self) -> None:
        """小三元 with 中 as the pair: 4, and no 箭字坎 for 發 and 白 (§4)."""
        got = items_of(hand("FFF PPP CC 123m 55s", "5s", ("chi:789p",)))
        assert got == {"small_three_dragons": 4}

    def test_green_dragon_pair(self) -> None:
        """小三元 with 發 as the pair: 4 (§4)."""
        got = items_of(hand("CCC PPP FF 123m 55s", "5s", ("chi:789p",)))
        assert got == {"small_three_dragons": 4}

    def test_wind_pair_is_no_small_three_dragons(self) -> None:
        """Two dragon pongs and a 北 pair: 箭字坎 1 each, no 小三元 (§4)."""
        got = items_of(hand("CCC FFF NN 123m 55s", "5s", ("chi:789p",)))
        assert got == {"dragon_pong": 2}


class TestHeavenlyWinOnAReplacement:
    """§4 reading note: 天胡 has no 槓上開花 (the first 補花 is part of the deal)."""

    DATA = hand(
        "111p 999s 555m 13m 55s 456s", "2m", win="self_draw", dealer=True,
        timing="heavenly_win", seat_wind="E", replacement=True,
    )  # fmt: skip

    def test_no_kong_bloom(self) -> None:
        """天胡 16 + 三暗坎 2 = 18, the replacement adding nothing (§4)."""
        result = score(parse_hand(self.DATA))
        assert result.tai == 18
        assert {i.id: i.tai for i in result.items} == {
            "heavenly_win": 16,
            "three_concealed_pongs": 2,
        }


class TestSevenRobOneSelfDrawBoundary:
    """§5 七搶一 case (2): the robbed seat's payment holds the 8 台 of 七搶一."""

    def test_exactly_eight_is_accepted(self) -> None:
        """台 8 (a hand of its own worth 0): the robbed pays 8 台, the others 底 alone (§5, §6)."""
        got = settle_json(
            {"kind": "seven_rob_one_self_draw", "winner": 1, "payer": 2, "dealer": 1, "tai": 8}
        )
        pays = {(p["from"], p["to"]): p["amount"] for p in got["payments"]}  # type: ignore[attr-defined]
        # Winner 1 is the dealer: 作莊 1 on every payment.
        assert pays == {(2, 1): 100 + 9 * 20, (0, 1): 120, (3, 1): 120}

    def test_seven_is_refused(self) -> None:
        """台 7 cannot hold the 8 of 七搶一: an error naming `tai` (§5)."""
        with pytest.raises(SettleInputError) as caught:
            settle_json(
                {"kind": "seven_rob_one_self_draw", "winner": 1, "payer": 2, "dealer": 0, "tai": 7}
            )
        assert caught.value.field == "tai"

    def test_split(self) -> None:
        """台 9 = 自摸 1 + 七搶一 8: robbed pays 9 台, the other two 1 台 (§5)."""
        payments = settle(
            HandOutcome(kind="seven_rob_one_self_draw", winner=0, payer=3, tai=9, dealer=2)
        )
        got = {(p.payer, p.payee): (p.amount, p.tai) for p in payments}
        assert got == {(3, 0): (280, 9), (1, 0): (120, 1), (2, 0): (140, 1)}


class TestLikGuWaits:
    """§4 嚦咕嚦咕: seven pairs of different kinds and a triplet of an eighth kind."""

    def test_eight_pairs_wait_on_each_pair(self) -> None:
        """Eight pairs: any of the eight makes the triplet, so all eight are waits (§4)."""
        data = hand("11m 33m 55p 77p 99s EE CC FF", "F", win="self_draw")
        result = score(parse_hand(data), LIK_GU)
        assert result.waits == kinds("1m", "3m", "5p", "7p", "9s", "E", "C", "F")
        # 嚦咕嚦咕 8 + 箭字坎 (發) 1 + 不求.自摸 2.
        assert result.tai == 11

    def test_pair_to_triplet_win_on_a_suit_tile(self) -> None:
        """Winning 1m on eight pairs makes 111m the triplet: 嚦咕嚦咕 8 alone (§4)."""
        got = items_of(hand("11m 33m 55p 77p 99s EE CC FF", "1m"), LIK_GU)
        assert got == {"lik_gu": 8}

    def test_single_tile_waits_to_pair(self) -> None:
        """Six pairs, a triplet and a single wait on the single alone (§4)."""
        data = hand("11m 33m 55p 77p 99s EE CCC F", "F")
        result = score(parse_hand(data), LIK_GU)
        assert result.waits == kinds("F")
        assert {i.id: i.tai for i in result.items} == {"lik_gu": 8, "dragon_pong": 1}
