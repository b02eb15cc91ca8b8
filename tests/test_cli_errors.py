"""Every command's error exits, as a user meets them: exit 2 and a sentence naming what is
wrong (never a traceback); Ctrl-C is 130; a closed pipe ends quietly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

MJTABLE = [sys.executable, "-m", "mjtable"]
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MJTABLE, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "bad.toml").write_text("x = [\n")
    (tmp_path / "unreadable.json").write_text("{}")
    (tmp_path / "unreadable.json").chmod(0)
    (tmp_path / "negative.json").write_text(
        json.dumps(
            {
                "stakes": {"base": -5, "per_tai": 20},
                "dealer": 1,
                "streak": 0,
                "kind": "self_draw",
                "winner": 3,
                "tai": 4,
            }
        )
    )
    return tmp_path


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["score", "nope.json"], "input: cannot read nope.json: No such file or directory"),
        (["score", "--profile", "nope.toml", str(EXAMPLES / "hand.json")],
         "profile: cannot read nope.toml: No such file or directory"),
        (["score", "--profile", "bad.toml", str(EXAMPLES / "hand.json")],
         "profile bad.toml: profile: not valid TOML"),
        (["score", "--profile", "club9", str(EXAMPLES / "hand.json")],
         "profile club9: unknown preset 'club9'"),
        (["settle", "negative.json"], "base"),
        (["bridge", "--config", "nope.toml", "--port", "x", "--table", "t"],
         "bridge: config: no such file nope.toml"),
        (["bridge", "--config", "bad.toml"], "bridge: bad.toml: not valid TOML"),
        (["serve", "--config", "nope.toml"], "serve: config: no such file nope.toml"),
        (["serve", "--config", "bad.toml"], "serve: bad.toml: not valid TOML"),
        (["token", "list", "--config", "bad.toml"], "token: bad.toml: not valid TOML"),
        (["sim", "--tables", "0"], "--tables: at least 1"),
        (["sim", "soak", "--tables", "0"], "--tables: at least 1"),
        (["sim", "--faults", "gremlins"], "unknown fault 'gremlins'"),
        (["demo", "--tables", "0"], "demo: --tables: at least 1, got 0"),
        (["replay", "nope.jsonl"], "nope.jsonl: No such file or directory"),
        (["profile", "show", "club9"], "profile club9: unknown preset 'club9'"),
        (["bench", "--only", "nosuch"], "nosuch"),
    ],
)  # fmt: skip
def test_an_error_exits_2_and_says_what_is_wrong(files: Path, args: list[str], says: str) -> None:
    done = run(*args, cwd=files)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert says in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_input_exits_2(files: Path) -> None:
    done = run("score", "unreadable.json", cwd=files)
    assert done.returncode == 2 and "cannot read unreadable.json: Permission denied" in done.stderr


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`mjtable score --jsonl … | head -1`: the reader goes away; no traceback, exit 0."""
    hands = tmp_path / "many.jsonl"
    hands.write_text((EXAMPLES / "hands.jsonl").read_text() * 2000)
    proc = subprocess.Popen(
        [*MJTABLE, "score", "--jsonl", str(hands)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    assert json.loads(first)
    proc.stdout.close()  # as `head -1` does
    assert proc.wait(timeout=60) == 0
    assert "Traceback" not in proc.stderr.read()


def test_ctrl_c_exits_130_without_a_traceback(tmp_path: Path) -> None:
    """A long-running command stopped by the keyboard (SIGINT before it installs its own
    stop: `sim` runs until interrupted)."""
    proc = subprocess.Popen(
        [*MJTABLE, "sim", "--pty", str(tmp_path / "t.tty"), "--speed", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().strip() == str(tmp_path / "t.tty")  # it is running
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) == 130
    assert "Traceback" not in proc.stderr.read()
