"""`mjtable score` and `mjtable settle` as a user runs them: real processes, real files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.rules.kit_cli import mjtable
from tests.rules.kit_notation import hand

GOOD = hand("23m 456p 789p 55s 234s", "4m", ("chi:123m",))
NOT_A_WIN = hand("23m 456p 789p 55s 234s", "9m", ("chi:123m",))


def test_score_file_and_stdin_agree(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    from_file = mjtable("score", str(path))
    from_stdin = mjtable("score", "-", stdin=json.dumps(GOOD))
    assert from_file.returncode == from_stdin.returncode == 0
    assert json.loads(from_file.stdout) == json.loads(from_stdin.stdout)
    result = json.loads(from_file.stdout)
    assert result["valid"] is True and result["tai"] == 2
    assert result["items"][0]["name"] == "平胡"


def test_not_a_win_exits_zero_with_reason() -> None:
    done = mjtable("score", "-", stdin=json.dumps(NOT_A_WIN))
    assert done.returncode == 0
    result = json.loads(done.stdout)
    assert result["valid"] is False and result["tai"] == 0 and result["reason"]


def test_malformed_exits_two_with_one_line_naming_the_field() -> None:
    done = mjtable("score", "-", stdin=json.dumps({**GOOD, "winning_tile": "0p"}))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip() == "winning_tile: unknown tile code '0p'"


def test_not_json_exits_two() -> None:
    done = mjtable("score", "-", stdin="{nope")
    assert done.returncode == 2 and done.stderr.startswith("input: not valid JSON")


def test_jsonl_batch_goes_on_after_a_bad_line(tmp_path: Path) -> None:
    lines = [json.dumps(GOOD), "{broken", json.dumps({**GOOD, "win": "x"}), json.dumps(NOT_A_WIN)]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = mjtable("score", "--jsonl", str(path))
    assert done.returncode == 0
    out = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["valid"] is True
    assert out[1]["error"].startswith("line 2: not valid JSON")
    assert out[2]["error"].startswith("line 3: win:")
    assert out[3]["valid"] is False


def test_profile_changes_values(tmp_path: Path) -> None:
    data: dict[str, Any] = hand("123m 456m 777p 23s 55s 678s", "4s", declared="earthly_ready")
    profile = tmp_path / "club.toml"
    profile.write_text("earthly_ready = 6\n", encoding="utf-8")
    done = mjtable("score", "--profile", str(profile), "-", stdin=json.dumps(data))
    assert json.loads(done.stdout)["tai"] == 6


def test_bad_profile_names_the_key(tmp_path: Path) -> None:
    profile = tmp_path / "club.toml"
    profile.write_text("earthly_ready = 5\n", encoding="utf-8")
    done = mjtable("score", "--profile", str(profile), "-", stdin=json.dumps(GOOD))
    assert done.returncode == 2 and "earthly_ready: expected one of 4, 6" in done.stderr
    profile.write_text("five_concealed = 12\n", encoding="utf-8")
    done = mjtable("score", "--profile", str(profile), "-", stdin=json.dumps(GOOD))
    assert done.returncode == 2 and "five_concealed: unknown profile key" in done.stderr


def test_settle_and_its_errors() -> None:
    request = {"dealer": 0, "streak": 0, "kind": "discard", "winner": 1, "payer": 3, "tai": 5}
    done = mjtable("settle", "-", stdin=json.dumps(request))
    assert done.returncode == 0
    assert json.loads(done.stdout)["net"] == [0, 200, 0, -200]
    done = mjtable("settle", "-", stdin=json.dumps({**request, "payer": 1}))
    assert done.returncode == 2 and done.stderr.startswith("payer:")


def test_help_says_what_it_needs() -> None:
    done = mjtable("score", "--help")
    assert done.returncode == 0 and "--jsonl" in done.stdout and "--profile" in done.stdout
