"""Each page names every module its script imports (`<link rel="modulepreload">`), so a
browser fetches them all at once instead of one import level per round trip (three levels
on the table, club and session pages: ~0.5 s on a phone's 4G). The list must be the
script's imports exactly: a module missed costs the round trips again, one no longer
imported is fetched for nothing. No browser needed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.dashboard.kit import ENTRY, PAGES, imports

PRELOAD = re.compile(r'<link rel="modulepreload" href="js/([\w-]+\.js)">')


def test_the_pages_with_modules() -> None:
    names = {p.name for p in PAGES}
    assert {"table.html", "index.html", "session.html", "referee.html", "admin.html"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_page_preloads_exactly_its_scripts_imports(page: Path) -> None:
    html = page.read_text(encoding="utf-8")
    entry = ENTRY.search(html)
    assert entry
    preloaded = PRELOAD.findall(html)
    assert len(preloaded) == len(set(preloaded))
    assert set(preloaded) == imports(entry.group(1)), page.name
    assert all(html.index(entry.group(0)) < html.index(f'href="js/{m}"') for m in preloaded)
