"""Worked cases for session.py's survivors of bench/mutation.py: what a session's start
may say (replay-format.md; the API's session body), at each bound, and the words of its
refusals. Stakes may be 0 (a friendly game keeps the score and moves no money); seats and
the dealer are 0–3; the round wind is any of 東南西北; the stakes stand beside the profile,
never inside it; a profile names a shipped preset."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from table_service.mirror.session import PRESETS, SessionStart
from table_service.rules.table import Deal


def refused(**body: Any) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        SessionStart.model_validate(body)
    return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in caught.value.errors()]


def test_no_stakes_is_a_game_that_keeps_the_score() -> None:
    start = SessionStart(base=0, per_tai=0)
    profile = start.rule_profile()
    assert (profile.base, profile.per_tai) == (0, 0)
    assert refused(base=-1) == ["base: Input should be greater than or equal to 0"]
    assert refused(per_tai=-1) == ["per_tai: Input should be greater than or equal to 0"]


def test_the_start_seat_and_the_dealer_are_one_of_the_four_seats() -> None:
    start = SessionStart(start_seat=3, dealer=3, round_wind="W")
    assert start.deal().dealer == 3 and start.deal().first_dealer == 3
    assert start.deal().round_wind == 2  # 西
    assert refused(start_seat=4) == ["start_seat: Input should be less than or equal to 3"]
    assert refused(dealer=4) == ["dealer: Input should be less than or equal to 3"]


def test_a_start_is_a_fixed_value_that_takes_no_other_key() -> None:
    start = SessionStart()
    assert start.table is None  # a replay's start names no table unless it says one
    with pytest.raises(ValidationError):
        start.base = 5
    assert refused(colour="red") == ["colour: Extra inputs are not permitted"]


def test_the_stakes_stand_beside_the_profile_never_inside_it() -> None:
    for key in ("base", "per_tai"):
        assert refused(profile={key: 50}) == [
            f"profile: Value error, {key}: set the stakes beside the profile, not inside it"
        ]


def test_a_profile_names_a_shipped_preset() -> None:
    assert refused(profile={"preset": "nope"}) == [
        "profile: Value error, preset: unknown preset 'nope'"
    ]
    assert refused(profile={"preset": 3}) == ["profile: Value error, preset: unknown preset 3"]
    known = ", ".join(PRESETS)
    assert refused(profile="nope") == [
        f"profile: Value error, unknown profile 'nope' (known: {known})"
    ]


def test_the_published_schema_says_what_the_seat_and_the_streak_are() -> None:
    fields = SessionStart.model_json_schema()["properties"]
    assert fields["start_seat"]["description"] == "起莊位: where the round-wind marker sits"
    assert fields["streak"]["description"] == "連莊 N"
    winds = fields["round_wind"]["anyOf"]  # null: the table's own when the session begins
    assert {"enum": ["E", "S", "W", "N"], "type": "string"} in winds
    assert {"type": "null"} in winds


def test_a_start_naming_none_of_the_deal_for_a_new_table_deals_from_seat_0_at_east() -> None:
    """replay-format.md: the defaults are seat 0 as 起莊位 and dealer, N 0, 東; a start that
    leaves the deal open (null) takes the table's own, and a table that has never played
    stands there."""
    start = SessionStart(dealer=None, streak=None, round_wind=None, start_seat=None)
    assert start.deal() == Deal(0, 0, 0, 0)
