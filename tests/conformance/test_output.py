"""What link-test prints for people: rules and the page's sections, never tracker numbers;
`--skip`; and the line that says how promptly the host itself acknowledged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from firmware_bridge.conformance import CHECKS, Result

ROOT = Path(__file__).resolve().parents[2]
ISSUE = re.compile(r"\bissues? \d+", re.IGNORECASE)
SOURCES = [
    *sorted((ROOT / "firmware_bridge" / "conformance").glob("*.py")),
    ROOT / "mjtable" / "commands" / "link_test.py",
]


def test_settled_rules_are_marked_with_their_section() -> None:
    marked = [check for check in CHECKS if check.since]
    assert marked, "the rules settled later (§3.11) are marked"
    for check in marked:
        assert check.since is not None and check.since.startswith("§"), check
        line = Result(check.name, check.section, check.title, "pass", since=check.since).line()
        assert f"[settled in {check.since}]" in line
        assert not ISSUE.search(line)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_tracker_numbers_in_the_suite(path: Path) -> None:
    found = [line for line in path.read_text(encoding="utf-8").splitlines() if ISSUE.search(line)]
    assert found == []


def test_skip_and_the_host_figures(capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--sim", "--only", "tail,gaps", "--skip", "gaps"]) == 0
    out = capsys.readouterr().out
    assert "tail" in out and "gaps" not in out
    assert re.search(r"host: \d+ acks sent, slowest [\d.]+ ms", out)


def test_skip_unknown_section_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--sim", "--skip", "nonsense"]) == 2
    assert "--skip: unknown section 'nonsense'" in capsys.readouterr().err
