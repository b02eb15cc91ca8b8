"""`mjtable replay` as a process: the worked examples, its errors, stdin."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "data" / "examples-replay"
MJTABLE = str(Path(sys.executable).with_name("mjtable"))


def replay(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MJTABLE, "replay", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_the_worked_examples_pass_check_py() -> None:
    """The examples of replay-format.md, judged by their own checker (copied from shared/)."""
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "check.py"), "--mjtable", MJTABLE, str(EXAMPLES)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout
    assert "3/3 pass" in run.stdout


def test_stdin_and_the_summary_last() -> None:
    text = (EXAMPLES / "EX01.jsonl").read_text(encoding="utf-8")
    run = replay("-", stdin=text)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["type"] for r in records] == ["hand", "summary"]
    assert records[-1]["totals"] == [-240, 240, 0, 0]
    assert records[-1]["events"] == len(text.splitlines()) - 1  # the session line is no event


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: expected a JSON object"),
        ('{"table": "t", "seq": 1}', "line 2: "),
        ('{"session": {"players": ["a"]}}', "line 2: session: players"),
        ('{"session": {"profile": "house"}}', "line 2: session: profile"),
        ('{"session": {}, "extra": 1}', "line 2: extra: unknown key"),
    ],
)
def test_an_unreadable_line_exits_2_naming_it(tmp_path: Path, line: str, message: str) -> None:
    first = (EXAMPLES / "EX01.jsonl").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{first}\n{line}\n", encoding="utf-8")
    run = replay(str(path))
    assert run.returncode == 2
    assert run.stderr.strip().startswith(message), run.stderr
    assert "Traceback" not in run.stderr
    assert "summary" not in run.stdout  # nothing judged after the bad line


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"table": "t\xff", "seq": 1}', "line 2: not UTF-8: byte 0xff at column 13"),
        (b"\xc3(", "line 2: not UTF-8: byte 0xc3 at column 1"),
        (b"[" * 100_000 + b"]" * 100_000, "line 2: JSON nested deeper than any event"),
    ],
    ids=["bad-byte", "cut-sequence", "deep"],
)
@pytest.mark.parametrize("via", ["file", "stdin"])
def test_bytes_no_reader_can_take_exit_2_naming_their_line(
    tmp_path: Path, line: bytes, message: str, via: str
) -> None:
    first = (EXAMPLES / "EX01.jsonl").read_bytes().splitlines()[0]
    data = first + b"\n" + line + b"\n"
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    args = [str(path)] if via == "file" else ["-"]
    run = subprocess.run(
        [MJTABLE, "replay", *args], input=None if via == "file" else data,
        capture_output=True, timeout=60,
    )  # fmt: skip
    stderr = run.stderr.decode()
    assert run.returncode == 2 and "Traceback" not in stderr, stderr
    assert stderr.strip() == message


def test_a_body_with_an_unknown_tile_is_a_fault_and_keeps_its_seq(tmp_path: Path) -> None:
    lines = (EXAMPLES / "EX01.jsonl").read_text(encoding="utf-8").splitlines()[:6]
    bad = json.loads(lines[5])
    bad["body"]["tile"] = 200
    path = tmp_path / "tile.jsonl"
    path.write_text("\n".join([*lines[:5], json.dumps(bad)]) + "\n", encoding="utf-8")
    run = replay(str(path))
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    faults = [r for r in records if r["type"] == "fault"]
    assert [(f["seq"], f["code"]) for f in faults] == [(bad["seq"], "unknown_tile")]
    assert records[-1]["gaps"] == 0


def test_a_missing_file_exits_2() -> None:
    run = replay("/nonexistent/events.jsonl")
    assert run.returncode == 2 and "events.jsonl" in run.stderr
