"""Rule profiles (taiwan16.md §7): validation, presets, the resolved form, any profile scores."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from table_service.rules import (
    DEFAULT_PROFILE,
    HandInputError,
    Profile,
    ProfileError,
    Rules,
    load_preset,
    parse_hand,
    preset_names,
    profile_from_mapping,
    profile_from_toml,
    score,
)
from table_service.rules.profile import KEYS, resolve, resolve_preset, resolve_toml
from table_service.rules.scoring import dealer_tai
from tests.rules.kit_cli import mjtable
from tests.rules.kit_notation import hand
from tests.rules.kit_strategies import JSONISH, profiles, winning_hands
from tests.rules.kit_strategies import KEYS as HAND_KEYS

PROFILES = Path(__file__).resolve().parents[2] / "profiles"


class TestValidation:
    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ({"five_concealed": 12}, r"^five_concealed: unknown profile key"),
            ({"tai": {"full_flsh": 8}}, r"^tai\.full_flsh: unknown 台 item"),
            ({"rules": {"ping_hu": True}}, r"^rules\.ping_hu: unknown switch"),
            ({"tai": {"full_flush": "8"}}, r"^tai\.full_flush: expected a whole number 0–100, got '8'"),  # noqa: E501
            ({"tai": {"full_flush": True}}, r"^tai\.full_flush: expected a whole number 0–100, got True"),  # noqa: E501
            ({"tai": {"full_flush": -1}}, r"^tai\.full_flush: expected a whole number 0–100, got -1"),  # noqa: E501
            ({"tai": {"full_flush": 101}}, r"^tai\.full_flush: .* got 101"),
            ({"tai": {"all_honors_overlap": 4}}, r"^tai\.all_honors_overlap: expected a whole number -100–0, got 4"),  # noqa: E501
            ({"tai": 8}, r"^tai: expected a table of tai values, got 8"),
            ({"rules": {"half_melded": 1}}, r"^rules\.half_melded: expected true or false, got 1"),
            ({"rules": {"ping_hu_wait": "two_sided"}}, r"^rules\.ping_hu_wait: expected one of .*\"not_pair\".*, got 'two_sided'"),  # noqa: E501
            ({"earthly_ready": 5}, r"^earthly_ready: expected one of 4, 6, got 5"),
            ({"five_concealed_pongs": 12.0}, r"^five_concealed_pongs: expected one of 12, 13, got 12.0"),  # noqa: E501
            ({"lik_gu": "yes"}, r"^lik_gu: expected one of true, false, got 'yes'"),
            ({"seat_order": "west"}, r"^seat_order: expected one of \"opening\", \"dealer\", got 'west'"),  # noqa: E501
            ({"base": -5}, r"^base: expected a whole number ≥ 0, got -5"),
            ({"preset": "club"}, r"^preset: unknown preset 'club' \(known: mjonline, seed001\)"),
            ({"preset": 1}, r"^preset: expected a preset's name, got 1"),
        ],
    )  # fmt: skip
    def test_error_names_key_and_value(self, data: dict[str, Any], message: str) -> None:
        with pytest.raises(ProfileError, match=message):
            profile_from_mapping(data)

    def test_constructor_validates_too(self) -> None:
        with pytest.raises(ProfileError, match=r"^rules\.ping_hu_wait: .* got 'nope'"):
            Profile(rules=Rules(ping_hu_wait="nope"))  # type: ignore[arg-type]
        with pytest.raises(ProfileError, match=r"^tai\.nope: unknown 台 item"):
            Profile(tai={"nope": 1})

    def test_not_toml(self) -> None:
        with pytest.raises(ProfileError, match=r"^profile: not valid TOML"):
            profile_from_toml("tai = [")


class TestPresets:
    def test_names(self) -> None:
        assert preset_names() == ("mjonline", "seed001")

    def test_mjonline_is_the_default_and_lists_every_key(self) -> None:
        assert load_preset("mjonline") == DEFAULT_PROFILE == Profile()
        text = Path(__file__).resolve().parents[2] / "table_service/rules/profiles/mjonline.toml"
        assert profile_from_toml(text.read_text(encoding="utf-8")) == DEFAULT_PROFILE
        assert set(resolve_preset("mjonline").origins.values()) == {"preset mjonline"}

    def test_seed001_changes_two_values(self) -> None:
        seed = load_preset("seed001")
        assert seed == Profile(five_concealed_pongs=12, earthly_ready=6)
        assert seed.label == "seed001"
        changed = {
            k for k, v in resolve_preset("seed001").origins.items() if v != "preset mjonline"
        }
        assert changed == {"tai.five_concealed_pongs", "tai.earthly_ready"}

    def test_a_file_starts_from_a_preset_and_overrides_it(self) -> None:
        text = 'preset = "seed001"\nearthly_ready = 4\n[tai]\nfull_flush = 8\n'
        profile, origins = resolve_toml(text)
        assert profile.tai_of("earthly_ready") == 4
        assert profile.tai_of("five_concealed_pongs") == 12
        assert profile.tai_of("full_flush") == 8
        assert origins["tai.earthly_ready"] == origins["tai.full_flush"] == "file"
        assert origins["tai.five_concealed_pongs"] == "preset seed001"
        assert origins["rules.lik_gu"] == "preset mjonline"

    def test_table_wins_over_shorthand_in_a_file(self) -> None:
        profile = profile_from_toml("earthly_ready = 6\n[tai]\nearthly_ready = 5\n")
        assert profile.tai_of("earthly_ready") == 5

    def test_documentation_files_read(self) -> None:
        for path in PROFILES.glob("*.toml"):
            profile_from_toml(path.read_text(encoding="utf-8"))
        assert profile_from_toml((PROFILES / "seed001.toml").read_text()) == load_preset("seed001")


class TestResolvedForm:
    def test_round_trip(self) -> None:
        profile = profile_from_mapping(
            {"preset": "seed001", "base": 50, "tai": {"full_flush": 8},
             "rules": {"ping_hu_wait": "not_pair", "lik_gu": True}}
        )  # fmt: skip
        mapping = profile.to_mapping()
        assert profile_from_mapping(mapping) == profile
        assert profile_from_mapping(json.loads(json.dumps(mapping))) == profile
        assert profile_from_toml(profile.to_toml()) == profile
        assert list(profile.flat()) == list(KEYS)

    @settings(max_examples=100)
    @given(profiles())
    def test_any_profile_round_trips(self, profile: Profile) -> None:
        again = profile_from_mapping(profile.to_mapping())
        assert again == profile and hash(again) == hash(profile)
        assert profile_from_toml(profile.to_toml()) == profile

    def test_labels(self) -> None:
        assert Profile().label == "mjonline"
        assert resolve({"preset": "seed001"}).profile.label == "seed001"
        assert resolve({"tai": {"full_flush": 8}}).profile.label == "custom"
        assert resolve({"tai": {"full_flush": 8}}, "club").profile.label == "club"
        assert Profile(label="x") == Profile()  # a label takes no part in equality

    def test_pickles_and_copies(self) -> None:
        profile = load_preset("seed001")
        for again in (pickle.loads(pickle.dumps(profile)), copy.deepcopy(profile)):
            assert again == profile and again.label == "seed001"
            assert hash(again) == hash(profile)

    def test_immutable(self) -> None:
        with pytest.raises(AttributeError, match="cannot assign to field"):
            Profile().base = 5  # type: ignore[misc]


class TestAnyProfile:
    @settings(max_examples=300)
    @given(winning_hands(), profiles())
    def test_winning_hand_scores_valid(self, data: dict[str, Any], profile: Profile) -> None:
        hand_ = parse_hand(data, profile.rules)
        result = score(hand_, profile)
        assert result.valid, (data, result.reason)
        assert result.tai == sum(i.tai for i in result.items)
        assert all(i.tai != 0 for i in result.items)
        assert result.dealer_tai == dealer_tai(hand_, profile)

    @settings(max_examples=300)
    @given(profiles(), winning_hands(), JSONISH, HAND_KEYS)
    def test_no_input_crashes_the_scorer(
        self, profile: Profile, good: dict[str, Any], garbage: Any, key: str
    ) -> None:
        for candidate in (garbage, {**good, key: garbage}):
            try:
                result = score(parse_hand(candidate, profile.rules), profile)
            except HandInputError as exc:
                assert exc.field and str(exc).startswith(exc.field)
            else:
                assert result.valid in (True, False)
                assert result.tai == sum(i.tai for i in result.items)


class TestStakes:
    def test_profile_values_reach_settlement(self) -> None:
        from table_service.rules import HandOutcome, settle

        profile = Profile(base=50, per_tai=10, tai={"dealer": 2, "streak": 1})
        outcome = HandOutcome(
            kind="discard", winner=1, tai=3, dealer=1, streak=2, payer=0, stakes=profile.stakes()
        )
        (payment,) = settle(outcome)
        assert (payment.dealer_tai, payment.amount) == (4, 50 + (3 + 4) * 10)


class TestCli:
    def test_show_marks_origins(self, tmp_path: Path) -> None:
        path = tmp_path / "club.toml"
        path.write_text('preset = "seed001"\n[tai]\nfull_flush = 8\n', encoding="utf-8")
        done = mjtable("profile", "show", str(path))
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == f"# profile club: {path}"
        assert "full_flush = 8                          # file" in lines
        assert "five_concealed_pongs = 12               # preset seed001" in lines
        assert "base = 100                              # preset mjonline" in lines
        assert "[tai]" in lines and "[rules]" in lines
        assert profile_from_toml(done.stdout) == profile_from_toml(path.read_text())

    def test_show_default(self) -> None:
        done = mjtable("profile", "show")
        assert done.returncode == 0
        assert profile_from_toml(done.stdout) == DEFAULT_PROFILE
        assert 'ping_hu_wait = "whole_hand"             # preset mjonline' in done.stdout

    def test_diff(self) -> None:
        done = mjtable("profile", "diff", "mjonline", "seed001")
        assert done.returncode == 1
        assert done.stdout.splitlines() == [
            "key                       mjonline  seed001",
            "tai.five_concealed_pongs  13        12",
            "tai.earthly_ready         4         6",
        ]
        same = mjtable("profile", "diff", "seed001", str(PROFILES / "seed001.toml"))
        assert (same.returncode, same.stdout) == (0, "")

    def test_bad_profiles_exit_2(self, tmp_path: Path) -> None:
        done = mjtable("profile", "show", "club")
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr == (
            "profile club: unknown preset 'club' (known: mjonline, seed001; or a .toml file's path)\n"  # noqa: E501
        )
        path = tmp_path / "club.toml"
        path.write_text('preset = "club"\n', encoding="utf-8")
        done = mjtable("profile", "diff", "mjonline", str(path))
        assert done.returncode == 2
        assert done.stderr == (
            f"profile {path}: preset: unknown preset 'club' (known: mjonline, seed001)\n"
        )
        done = mjtable("profile", "show", str(tmp_path / "missing.toml"))
        assert done.returncode == 2 and done.stderr.startswith("profile: cannot read")

    def test_score_takes_a_preset_name(self) -> None:
        data = hand("123m 456m 777p 23s 55s 678s", "4s", declared="earthly_ready")
        done = mjtable("score", "--profile", "seed001", "-", stdin=json.dumps(data))
        assert done.returncode == 0 and json.loads(done.stdout)["tai"] == 6
        done = mjtable("score", "--profile", "seed01", "-", stdin=json.dumps(data))
        assert done.returncode == 2 and "unknown preset 'seed01'" in done.stderr

    def test_score_with_switches(self, tmp_path: Path) -> None:
        path = tmp_path / "club.toml"
        path.write_text("[rules]\nspecial_wins_need_declaration = false\n", encoding="utf-8")
        data = hand("123p 456p 234s 678s 23m 55s", "4m", timing="human_win")
        done = mjtable("score", "-", stdin=json.dumps(data))
        assert done.returncode == 2 and done.stderr.startswith("timing:")
        done = mjtable("score", "--profile", str(path), "-", stdin=json.dumps(data))
        assert done.returncode == 0 and json.loads(done.stdout)["tai"] == 10

    def test_settle_profile(self, tmp_path: Path) -> None:
        path = tmp_path / "club.toml"
        path.write_text("base = 50\nper_tai = 10\n[tai]\ndealer = 2\n", encoding="utf-8")
        request = {"dealer": 1, "streak": 0, "kind": "discard", "winner": 1, "payer": 3, "tai": 5}
        done = mjtable("settle", "--profile", str(path), "-", stdin=json.dumps(request))
        assert done.returncode == 0
        assert json.loads(done.stdout)["net"] == [0, 120, 0, -120]  # 50 + (5 + 2) × 10
        request["stakes"] = {"base": 100}
        done = mjtable("settle", "--profile", str(path), "-", stdin=json.dumps(request))
        assert json.loads(done.stdout)["net"] == [0, 170, 0, -170]
        done = mjtable("settle", "--profile", "nope", "-", stdin=json.dumps(request))
        assert done.returncode == 2

    def test_replay_and_sim_take_the_option(self) -> None:
        for command in ("replay", "sim"):
            done = mjtable(command, "--help")
            assert done.returncode == 0 and "--profile NAME|FILE" in done.stdout
        done = mjtable("replay", "--profile", "nope", "-", stdin="")
        assert done.returncode == 2 and "unknown preset 'nope'" in done.stderr
