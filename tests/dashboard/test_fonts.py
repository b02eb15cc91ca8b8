"""The UI fonts: every character the pages show of their own is in both (read from the fonts'
own cmaps), fonts.css gives each exactly its characters, every font stack of the pages names
it before Noto Sans TC's slices, and every page preloads both. A page's own text then needs
two small files, not the ~20 slices per weight it touches (dashboard/tools/vendor_fonts.py;
the slices stay for players' names). No browser needed.
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


def test_fonts_css_gives_the_ui_fonts_their_characters_first() -> None:
    faces = FACE.findall((OUT / "fonts.css").read_text(encoding="utf-8"))
    ui = faces[: len(WEIGHTS)]
    assert all(f"font-family: '{UI_FAMILY}';" in face for face in ui)
    assert not any(UI_FAMILY in face for face in faces[len(WEIGHTS) :])
    for weight, face in zip(WEIGHTS, ui, strict=True):
        assert f"font-weight: {weight};" in face
        assert f"src: url(./{ui_file(weight)}) format('woff2');" in face
        found = re.search(r"unicode-range:\s*([^;]+);", face)
        assert found, face
        declared = {c for lo, hi in parse_ranges(found.group(1)) for c in range(lo, hi + 1)}
        assert declared == cmap(weight)  # what it has, so the slices answer for the rest


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


def test_every_page_preloads_both_ui_fonts() -> None:
    pages = [p for p in STATIC.glob("*.html") if "vendor/fonts/fonts.css" in p.read_text("utf-8")]
    assert {p.name for p in pages} >= {"table.html", "index.html", "session.html"}
    for page in pages:
        html = page.read_text(encoding="utf-8")
        for weight in WEIGHTS:
            link = (
                f'<link rel="preload" href="vendor/fonts/{ui_file(weight)}" as="font" '
                'type="font/woff2" crossorigin>'
            )
            assert link in html, f"{page.name} does not preload {ui_file(weight)}"
            assert html.index(link) < html.index("vendor/fonts/fonts.css")
