"""A session keeps the profile it was played under, written out whole: every key, so a
hand is judged again by the rules it was played under (README, "Rule profiles")."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.mirror.session import SessionStart


@pytest.mark.parametrize(
    "profile",
    [
        "mjonline",
        "seed001",
        {"preset": "seed001", "tai": {"full_flush": 8}},
        {"lik_gu": True, "rules": {"ping_hu_wait": "any"}, "seat_order": "dealer"},
    ],
)
def test_the_recorded_start_scores_exactly_as_the_given_one(profile: str | dict[str, Any]) -> None:
    given = SessionStart(profile=profile, base=50, per_tai=10)
    recorded = given.recorded()
    assert isinstance(recorded.profile, dict)
    again = SessionStart.model_validate(recorded.model_dump(mode="json"))  # as stored, read back
    assert again.rule_profile() == given.rule_profile()
    assert again.rule_profile().label == given.rule_profile().label
    assert again.recorded() == recorded  # recording twice changes nothing


def test_a_recorded_profile_outlives_a_change_of_its_preset() -> None:
    """Written out whole, a session recorded under an older mjonline (地聽 6 台, say) is
    scored by what was recorded, and its name says it is no longer today's preset."""
    recorded = SessionStart(profile="mjonline").recorded()
    assert isinstance(recorded.profile, dict)
    old = {**recorded.profile, "tai": {**recorded.profile["tai"], "earthly_ready": 6}}
    session = SessionStart(profile=old)
    assert session.rule_profile().tai_of("earthly_ready") == 6
    assert SessionStart(profile="mjonline").rule_profile().tai_of("earthly_ready") == 4
    assert session.rule_profile().label == "mjonline (changed)"
    assert SessionStart(profile=recorded.profile).rule_profile().label == "mjonline"


def test_the_stakes_stay_beside_the_profile() -> None:
    recorded = SessionStart(profile="seed001", base=30, per_tai=5).recorded()
    assert isinstance(recorded.profile, dict)
    assert "base" not in recorded.profile and "per_tai" not in recorded.profile
    assert (recorded.base, recorded.per_tai) == (30, 5)
