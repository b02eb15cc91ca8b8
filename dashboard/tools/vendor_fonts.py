"""Vendor the slices of Noto Sans TC the dashboard needs (no CDN; a club TV may have no CJK font).

    .venv/bin/python -m dashboard.tools.vendor_fonts [--tarball PATH] [--check]

From the npm package @fontsource/noto-sans-tc (SIL OFL 1.1), whose fonts come cut into
slices (`files/noto-sans-tc-<n>-<weight>-normal.woff2`), each covering the unicode-range its
CSS gives: collect every character the dashboard can show (its pages and scripts in
dashboard/static, outside vendor/; the Chinese names of the 台 items in
table_service/rules/items.py; the rulebook's Chinese names and meanings of the violation
and fault codes and the claims (table_service/rules/rulebook.py, sent by GET
/api/vocabulary); the Chinese words in the mirror's sentences for the referee;
printable ASCII for names and numbers), keep only the slices (weights 400 and 700) that
cover one of them, copy those and the licence into dashboard/static/vendor/fonts/, and
write fonts.css with their @font-face rules, unicode-range kept: a browser downloads only
the slices a page actually uses. `--check` exits 1 when the vendored files are stale.

The pages' own words would still touch some 20 slices per weight (~700 KiB on a first
visit), so the same characters (and printable ASCII) are also cut from the vendored slices
into one small font per weight, `ui-400.woff2` and `ui-700.woff2` (family 'Noto Sans TC
UI', first in every font stack, each page preloading both): a page's own text needs only
those two files, and a slice is fetched only for a character outside them (a player's
name). Their @font-face rules are written to ui.css, the one font stylesheet a page links
(render-blocking, 7 KiB); the slices' to fonts.css (57 KiB), which the pages' script
adds once the page has painted (dom.js, loadNameFonts): no page waits for it to show.
Built with fontTools (the `fonts` extra: `pip install -e '.[fonts]'`); `--ui` rebuilds
only the UI fonts, ui.css and fonts.css from the vendored slices (no tarball),
`--ui --check` exits 1 when they are stale.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import re
import sys
import tarfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "dashboard" / "static"
OUT = STATIC / "vendor" / "fonts"
TARBALL = Path("/tmp/npmx/fontsource-noto-sans-tc-5.3.0.tgz")
WEIGHTS = (400, 700)
FAMILY = "Noto Sans TC"
PREFIX = "noto-sans-tc-"
UI_FAMILY = "Noto Sans TC UI"
UI_PREFIX = "ui-"
ASCII = frozenset(range(0x20, 0x7F))  # printable ASCII: names, numbers, English

_FACE = re.compile(r"@font-face\s*{(.*?)}", re.S)
_SRC = re.compile(r"url\(\./files/([^)]+?\.woff2)\)")
_RANGE = re.compile(r"unicode-range:\s*([^;]+);")
_WEIGHT = re.compile(r"font-weight:\s*(\d+);")
_STRING = re.compile(r"""(["'])((?:\\.|(?!\1).)*)\1""")


@dataclass(frozen=True)
class Slice:
    file: str  # e.g. noto-sans-tc-113-400-normal.woff2
    weight: int
    ranges: tuple[tuple[int, int], ...]
    unicode_range: str  # as the package's CSS writes it

    def covers(self, code: int) -> bool:
        return any(lo <= code <= hi for lo, hi in self.ranges)


def parse_ranges(text: str) -> tuple[tuple[int, int], ...]:
    """`U+4e00-4e0f,U+ff01` → ((0x4e00, 0x4e0f), (0xff01, 0xff01))."""
    ranges = []
    for part in text.split(","):
        part = part.strip().upper().removeprefix("U+")
        if not part:
            continue
        if "?" in part:  # U+4?? wildcards
            ranges.append((int(part.replace("?", "0"), 16), int(part.replace("?", "F"), 16)))
        elif "-" in part:
            lo, hi = part.split("-")
            ranges.append((int(lo, 16), int(hi, 16)))
        else:
            ranges.append((int(part, 16), int(part, 16)))
    return tuple(ranges)


def parse_css(css: str) -> list[Slice]:
    slices = []
    for block in _FACE.findall(css):
        src, rng, weight = _SRC.search(block), _RANGE.search(block), _WEIGHT.search(block)
        if src and rng and weight:
            ranges = parse_ranges(rng.group(1))
            slices.append(Slice(src.group(1), int(weight.group(1)), ranges, rng.group(1).strip()))
    return slices


def dashboard_text() -> str:
    """Every page and script of the dashboard (vendored libraries left out)."""
    parts = []
    for path in sorted(STATIC.rglob("*")):
        if path.suffix in (".html", ".js") and "vendor" not in path.relative_to(STATIC).parts:
            parts.append(path.read_text(encoding="utf-8"))
    return "\n".join(parts)


def python_strings(path: Path) -> str:
    """The string literals of a Python file (its Chinese words)."""
    return "\n".join(m.group(2) for m in _STRING.finditer(path.read_text(encoding="utf-8")))


def item_names() -> str:
    """The 台 items' Chinese names, as the API sends them."""
    try:
        sys.path.insert(0, str(ROOT))
        from table_service.rules.items import DEALER_ITEMS, ITEMS

        return "".join(item.name for item in (*ITEMS, *DEALER_ITEMS))
    except Exception:  # the tool still runs without the project's dependencies
        return python_strings(ROOT / "table_service" / "rules" / "items.py")


def rulebook_words() -> str:
    """The rulebook's Chinese (the codes' names and meanings, the claims), as the API sends it."""
    try:
        sys.path.insert(0, str(ROOT))
        from table_service.rules.rulebook import CLAIMS, RULEBOOK

        return "".join(r.zh + r.zh_meaning for r in RULEBOOK) + "".join(c.zh for c in CLAIMS)
    except Exception:  # the tool still runs without the project's dependencies
        return python_strings(ROOT / "table_service" / "rules" / "rulebook.py")


def mirror_words() -> str:
    """Chinese words in the mirror's sentences (a violation's `detail`, shown to the referee)."""
    folder = ROOT / "table_service" / "mirror"
    return "\n".join(python_strings(p) for p in sorted(folder.glob("*.py")))


def needed_characters() -> set[int]:
    """The characters beyond ASCII the dashboard shows: CJK, and the punctuation, arrows
    and shapes it uses with them (anything else is left to the system's fonts). ASCII (names,
    numbers, English) comes from the `latin` slice, which is always kept."""
    text = dashboard_text() + item_names() + rulebook_words() + mirror_words()
    return {ord(c) for c in text if ord(c) > 0x7E and _wanted(ord(c))}


def _wanted(code: int) -> bool:
    return (
        0x3000 <= code <= 0x303F  # CJK punctuation
        or 0x3400 <= code <= 0x9FFF  # CJK ideographs
        or 0xF900 <= code <= 0xFAFF
        or 0xFF00 <= code <= 0xFFEF  # fullwidth forms
        or 0x2000 <= code <= 0x206F  # general punctuation (… — ・ ‧)
        or 0x2190 <= code <= 0x21FF  # arrows (→)
        or 0x25A0 <= code <= 0x25FF  # geometric shapes (◀ ▶ ■)
        or code in (0x00B7, 0x00D7, 0x2212, 0x30FB)  # · × − ・
    )


def read_package(
    tarball: Path, weights: tuple[int, ...] = WEIGHTS
) -> tuple[dict[str, bytes], list[Slice], bytes, str]:
    """The package's woff2 files (by name), its slices of WEIGHTS, its licence, its version."""
    files: dict[str, bytes] = {}
    css: dict[int, str] = {}
    licence = b""
    version = "?"
    with tarfile.open(tarball, "r:gz") as tar:
        for member in tar.getmembers():
            name = member.name.removeprefix("package/")
            if not member.isfile():
                continue
            wanted_css = name in {f"{w}.css" for w in weights}
            wanted_file = name.startswith("files/") and name.endswith("-normal.woff2")
            if not (wanted_css or wanted_file or name in ("LICENSE", "package.json")):
                continue
            data = tar.extractfile(member).read()  # type: ignore[union-attr]
            if wanted_css:
                css[int(name.removesuffix(".css"))] = data.decode()
            elif wanted_file:
                files[name.removeprefix("files/")] = data
            elif name == "LICENSE":
                licence = data
            else:
                found = re.search(rb'"version":\s*"([^"]+)"', data)
                version = found.group(1).decode() if found else "?"
    slices = [s for w in weights for s in parse_css(css[w]) if s.weight == w]
    return files, slices, licence, version


def cover(needed: set[int], slices: list[Slice]) -> list[Slice]:
    """The latin slice, then (greedy set cover) the fewest slices that cover the rest of
    `needed` (a few characters sit in more than one slice). The CJK slices also list some
    ASCII: the latin slice comes last in fonts.css, so a browser takes ASCII from it (of
    the rules that cover a character, the last one defined is tried first)."""
    latin = [s for s in slices if s.file == f"{PREFIX}latin-{s.weight}-normal.woff2"]
    left = {c for c in needed if not any(s.covers(c) for s in latin)}
    chosen = list(latin)
    while left:
        best = max(slices, key=lambda s: sum(1 for c in left if s.covers(c)))
        gained = {c for c in left if best.covers(c)}
        if not gained:
            break  # what is left is in no slice (reported as uncovered)
        chosen.append(best)
        left -= gained
    return chosen


def ui_file(weight: int) -> str:
    return f"{UI_PREFIX}{weight}.woff2"


def ui_characters() -> set[int]:
    """What the UI fonts hold: every character the dashboard shows of its own (and of the
    rules' words), and printable ASCII."""
    return needed_characters() | ASCII


def unicode_range(codes: Iterable[int]) -> str:
    """{0x41, 0x42, 0x43, 0x4e00} → `U+41-43,U+4e00` (as the package's CSS writes them)."""
    parts: list[str] = []
    run: list[int] = []
    for code in sorted(set(codes)):
        if run and code == run[-1] + 1:
            run.append(code)
            continue
        if run:
            parts.append(_span(run[0], run[-1]))
        run = [code]
    if run:
        parts.append(_span(run[0], run[-1]))
    return ",".join(parts)


def _span(lo: int, hi: int) -> str:
    return f"U+{lo:x}" if lo == hi else f"U+{lo:x}-{hi:x}"


def build_ui_font(slices: list[Slice], files: Mapping[str, bytes], characters: set[int]) -> bytes:
    """One woff2 holding `characters`, cut from the slices of one weight: each character
    from the slice a browser would take it from (the last in fonts.css whose range and
    glyphs have it: the latin slice for ASCII), the cuts merged into one font."""
    from fontTools import subset  # the `fonts` extra
    from fontTools.merge import Merger
    from fontTools.ttLib import TTFont

    left = set(characters)
    cuts: list[io.BytesIO] = []
    stamps = (0, 0)
    average = None
    for s in reversed(slices):
        font = TTFont(io.BytesIO(files[s.file]))
        stamps = (font["head"].created, font["head"].modified)
        mine = {c for c in left if s.covers(c) and c in font.getBestCmap()}
        if not mine:
            continue
        left -= mine
        if 0x20 in mine:  # the space's font is a browser's primary font (an input's width)
            average = font["OS/2"].xAvgCharWidth
        options = subset.Options(hinting=False, name_IDs=["*"], name_languages=["*"])
        options.drop_tables += ["vhea", "vmtx", "BASE", "STAT"]  # no vertical text here
        cutter = subset.Subsetter(options)
        cutter.populate(unicodes=mine)
        cutter.subset(font)
        font.flavor = None
        cut = io.BytesIO()
        font.save(cut)
        cut.seek(0)
        cuts.append(cut)
    if left:
        shown = "".join(chr(c) for c in sorted(left))
        print(f"not in the vendored slices (left out of the UI font): {shown}", file=sys.stderr)
    merged = Merger().merge(cuts)
    merged.flavor = "woff2"
    merged.recalcTimestamp = False  # the same characters, the same bytes (--check)
    merged["head"].created, merged["head"].modified = stamps  # the slices' own
    if average is not None:  # as the slice it came from says, not the CJK glyphs' mean
        merged["OS/2"].xAvgCharWidth = average
    out = io.BytesIO()
    merged.save(out)
    return out.getvalue()


def ui_fonts(
    chosen: list[Slice], files: Mapping[str, bytes], weights: tuple[int, ...]
) -> dict[str, bytes]:
    """The UI font of each weight (see build_ui_font)."""
    wanted = ui_characters()
    return {
        ui_file(w): build_ui_font([s for s in chosen if s.weight == w], files, wanted)
        for w in weights
    }


def face(family: str, weight: int, file: str, rng: str) -> list[str]:
    return [
        "@font-face {",
        f"  font-family: '{family}';",
        "  font-style: normal;",
        "  font-display: swap;",
        f"  font-weight: {weight};",
        f"  src: url(./{file}) format('woff2');",
        f"  unicode-range: {rng};",
        "}",
        "",
    ]


def render_ui_css(ui: Mapping[int, str], version: str) -> str:
    """ui.css: the UI fonts' rules (`ui`: weight → unicode-range), the one font stylesheet
    a page links."""
    lines = [
        f"/* {UI_FAMILY}: cut from Noto Sans TC (SIL Open Font License 1.1, OFL.txt;",
        f"   @fontsource/noto-sans-tc {version}), every character the dashboard shows of its own",
        "   and printable ASCII, one file per weight: all a page's own text needs. Linked by",
        "   every page (render-blocking: it is small); the slices' rules, for players' names,",
        "   are in fonts.css, added once the page has painted (js/dom.js, loadNameFonts).",
        "   Generated by dashboard/tools/vendor_fonts.py; do not edit. */",
        "",
    ]
    for weight, rng in ui.items():
        lines += face(UI_FAMILY, weight, ui_file(weight), rng)
    return "\n".join(lines)


def render_css(chosen: list[Slice], version: str, characters: int) -> str:
    """fonts.css: the slices' rules (the UI fonts' are in ui.css)."""
    lines = [
        f"/* {FAMILY} (SIL Open Font License 1.1, OFL.txt), from @fontsource/noto-sans-tc "
        f"{version}:",
        f"   only the slices covering the {characters} characters beyond ASCII the dashboard uses,",
        "   and the latin slice (last, so ASCII comes from it). A page's own text is in the UI",
        f"   fonts ('{UI_FAMILY}', ui.css); these are for what is not (players' names), and",
        "   the pages' script adds this stylesheet once the page has painted (js/dom.js).",
        "   Generated by dashboard/tools/vendor_fonts.py; do not edit. */",
        "",
    ]
    for s in chosen:
        lines += face(FAMILY, s.weight, s.file, s.unicode_range)
    return "\n".join(lines)


def plan(
    tarball: Path, weights: tuple[int, ...] = WEIGHTS
) -> tuple[dict[str, bytes], str, list[Slice], set[int]]:
    files, slices, licence, version = read_package(tarball, weights)
    needed = needed_characters()
    chosen = [s for w in weights for s in cover(needed, [s for s in slices if s.weight == w])]
    chosen.sort(key=lambda s: (s.weight, _slice_number(s.file)))
    uncovered = {c for c in needed if not any(s.covers(c) for s in slices)}
    out = {s.file: files[s.file] for s in chosen}
    out["OFL.txt"] = licence
    out.update(ui_fonts(chosen, files, weights))
    ui = {w: ui_range(out[ui_file(w)]) for w in weights}
    out["ui.css"] = render_ui_css(ui, version).encode()
    out["fonts.css"] = render_css(chosen, version, len(needed)).encode()
    return out, version, chosen, uncovered


def ui_range(woff2: bytes) -> str:
    """A UI font's unicode-range: exactly the characters its cmap has."""
    from fontTools.ttLib import TTFont

    return unicode_range(TTFont(io.BytesIO(woff2)).getBestCmap())


def vendored_slices() -> tuple[list[Slice], str]:
    """The slices fonts.css declares (only the Noto Sans TC rules), in its order, each
    with its unicode-range as written, and the package's version its header names."""
    css = (OUT / "fonts.css").read_text(encoding="utf-8")
    found = re.search(r"@fontsource/noto-sans-tc (\S+):", css)
    slices = [
        Slice(
            m.group(1).removeprefix("./"),
            int(w.group(1)),
            parse_ranges(r.group(1)),
            r.group(1).strip(),
        )
        for block in _FACE.findall(css)
        if (m := re.search(r"url\(([^)]+)\)", block))
        and (w := _WEIGHT.search(block))
        and (r := _RANGE.search(block))
        and f"'{FAMILY}'" in block
    ]
    return slices, found.group(1) if found else "?"


def plan_ui(weights: tuple[int, ...] = WEIGHTS) -> dict[str, bytes]:
    """The UI fonts, ui.css and fonts.css, from the vendored slices (no tarball)."""
    chosen, version = vendored_slices()
    chosen = [s for s in chosen if s.weight in weights]
    files = {s.file: (OUT / s.file).read_bytes() for s in chosen}
    out = ui_fonts(chosen, files, weights)
    ui = {w: ui_range(out[ui_file(w)]) for w in weights}
    out["ui.css"] = render_ui_css(ui, version).encode()
    out["fonts.css"] = render_css(chosen, version, len(needed_characters())).encode()
    return out


def uncovered_by_vendored(weights: tuple[int, ...] = WEIGHTS) -> str:
    """The characters the dashboard uses that no vendored slice covers, in some weight
    (reads fonts.css only: no tarball needed; a test keeps the fonts in step)."""
    slices, _ = vendored_slices()
    missing: set[int] = set()
    for weight in weights:
        mine = [s for s in slices if s.weight == weight and (OUT / s.file).exists()]
        missing |= {c for c in needed_characters() if not any(s.covers(c) for s in mine)}
    return "".join(chr(c) for c in sorted(missing))


def _slice_number(file: str) -> tuple[int, str]:
    middle = file.removeprefix(PREFIX).split("-")[0]
    return (int(middle), "") if middle.isdigit() else (10_000, middle)  # latin after the CJK


def report_ui(out: Mapping[str, bytes], weights: tuple[int, ...]) -> None:
    sizes = ", ".join(f"{ui_file(w)} {len(out[ui_file(w)]) / 1024:.0f} KiB" for w in weights)
    print(f"UI fonts ({len(ui_characters())} characters): {sizes}")


def main_ui(weights: tuple[int, ...], check: bool) -> int:
    """--ui: the UI fonts, ui.css and fonts.css from the vendored slices."""
    out = plan_ui(weights)
    if check:
        stale = [n for n, d in out.items() if not (OUT / n).exists() or (OUT / n).read_bytes() != d]
        print(f"stale: {', '.join(stale)}" if stale else "up to date")
        return 1 if stale else 0
    for name, data in out.items():
        (OUT / name).write_bytes(data)
    report_ui(out, weights)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tarball", type=Path, default=TARBALL)
    parser.add_argument("--check", action="store_true", help="exit 1 when the files are stale")
    parser.add_argument(
        "--ui",
        action="store_true",
        help="only the UI fonts, ui.css and fonts.css, from the vendored slices (no tarball)",
    )
    parser.add_argument(
        "--weights",
        default=",".join(map(str, WEIGHTS)),
        help="the weights to vendor (default 400,700; 700 alone halves the size)",
    )
    args = parser.parse_args(argv)
    weights = tuple(int(w) for w in args.weights.split(","))
    if args.ui:
        return main_ui(weights, args.check)
    out, version, chosen, uncovered = plan(args.tarball, weights)
    existing = {p.name for p in OUT.glob("*")} if OUT.exists() else set()
    if args.check:
        stale = existing != set(out) or any(
            hashlib.sha256((OUT / n).read_bytes()).digest() != hashlib.sha256(d).digest()
            for n, d in out.items()
            if (OUT / n).exists()
        )
        print("stale" if stale else "up to date")
        return 1 if stale else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name in existing - set(out):
        if name.startswith((PREFIX, UI_PREFIX)) or name in ("fonts.css", "ui.css", "OFL.txt"):
            (OUT / name).unlink()
    for name, data in out.items():
        (OUT / name).write_bytes(data)
    fonts = sum(len(out[s.file]) for s in chosen)
    by_weight = {w: sum(len(out[s.file]) for s in chosen if s.weight == w) for w in weights}
    print(
        f"@fontsource/noto-sans-tc {version}: {len(chosen)} slices, {fonts / 1024:.0f} KiB "
        f"({', '.join(f'{w}: {b / 1024:.0f} KiB' for w, b in by_weight.items())}) "
        f"into {OUT.relative_to(ROOT)}"
    )
    report_ui(out, weights)
    if uncovered:
        shown = "".join(chr(c) for c in sorted(uncovered))
        print(f"not in the font (left to the system's): {shown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
