"""The docs cite only what the repository has, and speak to people in rules, not tracker
numbers: every relative link of a Markdown page names a file or folder that exists, and
no page or module says "issue N" (a reader has no tracker to look it up in)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)\s]+)\)")
QUOTED_PATH = re.compile(r"`(\.\.?/[^`\s]+)`")
ISSUE = re.compile(r"\bissues? \d+", re.IGNORECASE)
PAGE = re.compile(r"[\w./-]*\w\.md\b")


def tracked(*patterns: str) -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [ROOT / name for name in out.splitlines() if (ROOT / name).is_file()]


def cited(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    links = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:|#", t)]
    return [t.split("#", 1)[0] for t in links + QUOTED_PATH.findall(text)]


@pytest.mark.parametrize("page", tracked("*.md"), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_the_repository_has(page: Path) -> None:
    missing = [t for t in cited(page) if t and not (page.parent / t).exists()]
    assert missing == [], f"{page.relative_to(ROOT)} cites files it does not have: {missing}"


def test_every_page_named_in_a_page_or_module_exists() -> None:
    """A page named in a docstring or a comment is a citation too: it must be in the tree."""
    have = {path.name for path in tracked()}
    unknown = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in tracked("*.py", "*.md")
        for name in PAGE.findall(path.read_text(encoding="utf-8"))
        if name.rsplit("/", 1)[-1] not in have
    }
    assert unknown == set()


def test_no_page_or_module_points_people_at_a_tracker_number() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in tracked("*.py", "*.md")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if ISSUE.search(line)
    ]
    assert found == []
