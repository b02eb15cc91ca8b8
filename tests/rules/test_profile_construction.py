"""Rule profiles (taiwan16.md §7): construction, validation, presets, the resolved form.

Found by mutation testing (bench/mutation.py). A profile's error names its key and is
shown to club owners as it is (`mjtable profile`, the API), so each message is literal.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from table_service.rules import Profile, Rules
from table_service.rules.profile import (
    ProfileError,
    check_value,
    format_toml,
    profile_from_mapping,
    profile_from_toml,
    resolve,
    resolve_toml,
)


def error(make: Callable[[], object]) -> str:
    with pytest.raises(ProfileError) as info:
        make()
    return str(info.value)


def test_the_constructor_checks_stakes_and_seat_order() -> None:
    """Keyword arguments are checked like a file's keys, not only a file's."""
    assert error(lambda: Profile(base=-1)) == "base: expected a whole number ≥ 0, got -1"
    assert error(lambda: Profile(per_tai=-20)) == "per_tai: expected a whole number ≥ 0, got -20"
    assert error(lambda: Profile(seat_order="clockwise")) == (  # type: ignore[arg-type]
        'seat_order: expected one of "opening", "dealer", got \'clockwise\''
    )


def test_free_play_stakes_are_allowed() -> None:
    """底 and 台錢 are whole numbers ≥ 0: a club may play for points only."""
    free = Profile(base=0, per_tai=0)
    assert (free.stakes().base, free.stakes().per_tai) == (0, 0)
    assert profile_from_mapping({"base": 0, "per_tai": 0}).base == 0


def test_shorthands_next_to_a_rules_table() -> None:
    """A `[tai]` shorthand still counts beside `rules`; `rules` wins for 嚦咕嚦咕."""
    both = Profile(five_concealed_pongs=12, earthly_ready=6, rules=Rules())
    assert (both.tai_of("five_concealed_pongs"), both.tai_of("earthly_ready")) == (12, 6)
    assert Profile(lik_gu=True).rules.lik_gu is True
    assert Profile(lik_gu=True, rules=Rules()).rules.lik_gu is False
    assert Profile(lik_gu=False, rules=Rules(lik_gu=True)).rules.lik_gu is True


def test_shorthand_values_must_have_their_type() -> None:
    """1 is not true and 12.0 is not 12 in a profile file (TOML keeps them apart)."""
    assert error(lambda: Profile(lik_gu=1)) == "lik_gu: expected one of true, false, got 1"  # type: ignore[arg-type]
    assert error(lambda: Profile(five_concealed_pongs=12.0)) == (  # type: ignore[arg-type]
        "five_concealed_pongs: expected one of 12, 13, got 12.0"
    )
    assert error(lambda: Profile(earthly_ready=5)) == "earthly_ready: expected one of 4, 6, got 5"


def test_tai_values_at_their_bounds() -> None:
    """A [tai] value is 0–100; the overlap item (note A) is −100–0."""
    assert Profile(tai={"full_flush": 100}).tai_of("full_flush") == 100
    assert Profile(tai={"full_flush": 0}).tai_of("full_flush") == 0
    assert Profile(tai={"all_honors_overlap": -100}).tai_of("all_honors_overlap") == -100
    assert error(lambda: Profile(tai={"full_flush": 101})) == (
        "tai.full_flush: expected a whole number 0–100, got 101"
    )
    assert error(lambda: Profile(tai={"all_honors_overlap": 1})) == (
        "tai.all_honors_overlap: expected a whole number -100–0, got 1"
    )


def test_unknown_keys_list_what_is_known() -> None:
    assert error(lambda: check_value("rules.nope", True)) == (
        "rules.nope: unknown switch (known: lik_gu, ping_hu_wait, ping_hu_honour_pair, "
        "ping_hu_flowers, ping_hu_with_concealed, half_melded, all_melded_single_wait, "
        "five_concealed_exclusive, all_honors_overlap, all_honors_with_all_pongs, "
        "flower_kong_keeps_seat_flower, special_wins_need_declaration, "
        "kong_bloom_with_heavenly_win, pass_water_self_draw)"
    )
    message = error(lambda: check_value("tai.nope", 1))
    assert message.startswith(
        "tai.nope: unknown 台 item (known: seat_wind_pong, round_wind_pong, dragon_pong, "
    )
    assert message.endswith(", all_honors_overlap, lik_gu)")
    assert error(lambda: profile_from_mapping({"stake": 1})) == (
        "stake: unknown profile key (known: base, per_tai, seat_order, five_concealed_pongs, "
        "earthly_ready, lik_gu, preset, tai, rules)"
    )


def test_a_rules_table_in_a_file_is_read_whole() -> None:
    """Every switch of a file's [rules] reaches the profile, not only the shorthand's."""
    got = profile_from_toml('[rules]\nhalf_melded = false\nping_hu_wait = "any"\n')
    assert (got.rules.half_melded, got.rules.ping_hu_wait) == (False, "any")
    assert got.rules.special_wins_need_declaration is True  # the preset's, untouched


def test_keys_after_the_preset_and_after_a_table_are_read() -> None:
    got = profile_from_mapping({"preset": "seed001", "base": 5, "tai": {"dealer": 3}})
    assert (got.base, got.tai_of("dealer")) == (5, 3)
    got = profile_from_toml("[tai]\ndealer = 3\n[rules]\nlik_gu = true\n")
    assert (got.tai_of("dealer"), got.rules.lik_gu) == (3, True)
    got = profile_from_mapping({"tai": {"dealer": 3}, "base": 5})  # an API body in any order
    assert (got.base, got.tai_of("dealer")) == (5, 3)


def test_origins_name_the_default_preset_and_the_file() -> None:
    origins = resolve({"base": 5}).origins
    assert (origins["base"], origins["per_tai"]) == ("file", "preset mjonline")
    assert origins["rules.lik_gu"] == "preset mjonline"


def test_a_file_that_is_not_toml_is_named_a_profile() -> None:
    assert error(lambda: resolve_toml("x = [")) == (
        "profile: not valid TOML: Invalid value (at end of document)"
    )


def test_format_toml_groups_tables_and_aligns_notes() -> None:
    flat = {"base": 100, "tai.dealer": 1, "tai.streak": 2, "rules.lik_gu": True}
    assert format_toml(flat, notes={"tai.dealer": "作莊", "base": "底"}) == (
        "base = 100                              # 底\n"
        "\n"
        "[tai]\n"
        "dealer = 1                              # 作莊\n"
        "streak = 2\n"
        "\n"
        "[rules]\n"
        "lik_gu = true\n"
    )


def test_a_logged_profile_shows_its_values_not_its_caches() -> None:
    shown = repr(Profile())
    assert shown.startswith("Profile(base=100, per_tai=20, seat_order='opening', tai=((")
    assert "_hash" not in shown and "_by_id" not in shown
