"""The UI fonts: every character the pages show of their own is in both (read from the fonts'
own cmaps), ui.css gives each exactly its characters, every font stack of the pages names
it before Noto Sans TC's slices, and every page preloads both and links ui.css, the one font
stylesheet that blocks its first paint. A page's own text then needs two small files, not
the ~20 slices per weight it touches (dashboard/tools/vendor_fonts.py). The slices' rules
(fonts.css, for players' names) are no page's link: the pages' shared script adds them once
the page has painted (dom.js, loadNameFonts, called by ui.js's setupPage). No browser needed.
"""

from __future__ import annotations

import re

import pytest
from fontTools.ttLib import TTFont

from dashboard.tools.vendor_fonts import (
    OUT,
    STATIC,
    UI_FAMILY,
    WEIGHTS,
    parse_ranges,
    ui_characters,
    ui_file,
)
from tests.dashboard.kit import ENTRY, PAGES, imports

REBUILD = ".venv/bin/python -m dashboard.tools.vendor_fonts --ui"
BUDGET = 100 * 1024  # bytes per weight: a phone on slow 4G fetches both before the text shows
FACE = re.compile(r"@font-face\s*{(.*?)}", re.S)


def cmap(weight: int) -> set[int]:
    return set(TTFont(OUT / ui_file(weight)).getBestCmap())


def shown(codes: set[int]) -> str:
    return "".join(chr(c) for c in sorted(codes))


@pytest.mark.parametrize("weight", WEIGHTS)
def test_the_ui_font_has_every_character_of_the_pages(weight: int) -> None:
    missing = ui_characters() - cmap(weight)
    assert not missing, f"{ui_file(weight)} lacks {shown(missing)!r}: run {REBUILD}"


@pytest.mark.parametrize("weight", WEIGHTS)
def test_the_ui_font_stays_small(weight: int) -> None:
    size = (OUT / ui_file(weight)).stat().st_size
    assert size < BUDGET, f"{ui_file(weight)} is {size / 1024:.0f} KiB"


@pytest.mark.parametrize("weight", WEIGHTS)
def test_the_ui_font_measures_as_the_latin_slice(weight: int) -> None:
    """The space's font is a browser's primary font: its line height, and the average
    width an input without a width is sized by (a merge of CJK cuts would say 918, not
    629: the admin's fields grew wider than a phone)."""
    ui = TTFont(OUT / ui_file(weight))
    latin = TTFont(OUT / f"noto-sans-tc-latin-{weight}-normal.woff2")
    for table, fields in {
        "OS/2": ("xAvgCharWidth", "sTypoAscender", "sTypoDescender", "sTypoLineGap",
                 "usWinAscent", "usWinDescent"),
        "hhea": ("ascent", "descent", "lineGap"),
        "head": ("unitsPerEm",),
    }.items():  # fmt: skip
        for field in fields:
            assert getattr(ui[table], field) == getattr(latin[table], field), (table, field)


def test_ui_css_gives_the_ui_fonts_exactly_their_characters() -> None:
    faces = FACE.findall((OUT / "ui.css").read_text(encoding="utf-8"))
    assert len(faces) == len(WEIGHTS)
    for weight, face in zip(WEIGHTS, faces, strict=True):
        assert f"font-family: '{UI_FAMILY}';" in face
        assert "font-display: swap;" in face
        assert f"font-weight: {weight};" in face
        assert f"src: url(./{ui_file(weight)}) format('woff2');" in face
        found = re.search(r"unicode-range:\s*([^;]+);", face)
        assert found, face
        declared = {c for lo, hi in parse_ranges(found.group(1)) for c in range(lo, hi + 1)}
        assert declared == cmap(weight)  # what it has, so the slices answer for the rest


def test_fonts_css_has_the_slices_only() -> None:
    faces = FACE.findall((OUT / "fonts.css").read_text(encoding="utf-8"))
    assert len(faces) >= 2 * len(WEIGHTS)  # the latin slice and some CJK ones, each weight
    assert all("font-family: 'Noto Sans TC';" in face for face in faces)
    assert all("font-display: swap;" in face for face in faces)  # a name shows meanwhile


def test_every_font_stack_names_the_ui_family_before_the_slices() -> None:
    stacks = 0
    for path in [*STATIC.glob("css/*.css"), *STATIC.glob("js/*.js")]:
        text = path.read_text(encoding="utf-8")
        for found in re.finditer(r"""(["'])Noto Sans TC\1""", text):
            stacks += 1
            before = text[: found.start()]
            assert re.search(rf"""(["']){UI_FAMILY}\1,\s*$""", before), (
                f"{path.name}: a font stack with Noto Sans TC but not {UI_FAMILY} first"
            )
    assert stacks >= 3  # dashboard.css, the tiles' SVG text, the session chart's axes


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_page_preloads_both_ui_fonts_and_links_ui_css_only(page) -> None:
    """The UI fonts are at hand for the first paint; the slices' stylesheet (57 KiB) does
    not hold it back."""
    html = page.read_text(encoding="utf-8")
    sheet = '<link rel="stylesheet" href="vendor/fonts/ui.css">'
    assert sheet in html, f"{page.name} does not link ui.css"
    for weight in WEIGHTS:
        link = (
            f'<link rel="preload" href="vendor/fonts/{ui_file(weight)}" as="font" '
            'type="font/woff2" crossorigin>'
        )
        assert link in html, f"{page.name} does not preload {ui_file(weight)}"
        assert html.index(link) < html.index(sheet)
    assert "fonts.css" not in html, f"{page.name} links fonts.css: it blocks the first paint"


def test_the_pages_load_the_slices_once_painted() -> None:
    """dom.js's loadNameFonts adds fonts.css past the first paint, ui.js's setupPage calls
    it, and every page's script calls setupPage (so a name still finds its slices)."""
    dom = (STATIC / "js" / "dom.js").read_text(encoding="utf-8")
    body = re.search(r"export function loadNameFonts\(\) {(.*?)\n}", dom, re.S)
    assert body, "dom.js has no loadNameFonts"
    assert '"../vendor/fonts/fonts.css", import.meta.url' in body.group(1)
    assert 'rel: "stylesheet"' in body.group(1)
    assert "requestAnimationFrame(" in body.group(1)  # past the first paint
    ui = (STATIC / "js" / "ui.js").read_text(encoding="utf-8")
    setup = re.search(r"export function setupPage\(render\) {(.*?)\n}", ui, re.S)
    assert setup and "loadNameFonts();" in setup.group(1)
    assert (OUT / "fonts.css").exists()
    for page in PAGES:
        entry = ENTRY.search(page.read_text(encoding="utf-8"))
        assert entry, page.name
        script = (STATIC / "js" / entry.group(1)).read_text(encoding="utf-8")
        assert "ui.js" in imports(entry.group(1)), page.name
        assert re.search(r"^setupPage\(", script, re.M), f"{entry.group(1)} never calls setupPage"
