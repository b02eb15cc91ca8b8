"""The dashboard in a real browser: a real service (uvicorn in-process on a free port) fed a
recorded game through the fake bridge; the scoreboard shows four seats and tiles drawn as
SVG, names as text, a hand's banner live; every violation and fault code has its rule in
words (zh and en, from the service's rulebook), every tile code a drawing, every character
a vendored font; the other pages load and the hand can be stepped through; no console
error, no CSP violation; and once the server goes, the page says it is reconnecting.

Needs Playwright for Python and a Chromium (Debian's `chromium` at /usr/bin/chromium, or
$MJTABLE_TEST_CHROMIUM); skipped without them. The service and the browser: kit.py.
"""

from __future__ import annotations

from typing import Any

from dashboard.tools.vendor_fonts import uncovered_by_vendored
from table_service.mirror.records import FAULT_CODES, VIOLATION_CODES
from table_service.rules.items import ITEM_IDS
from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Site, needs_browser

pytestmark = needs_browser

XSS_NAME = "<img src=x onerror=alert(1)>"
PLAYERS = ["阿明", "Bea", "陳小華", XSS_NAME]


async def test_the_scoreboard_in_a_browser(site: Site, chrome: Chrome) -> None:
    missing = uncovered_by_vendored()
    assert not missing, f"no vendored font has {missing!r}: run dashboard/tools/vendor_fonts.py"
    events = events_of(game_of(hands=1), "t1")
    await site.start_session("t1", PLAYERS, profile="seed001")
    kinds = [e.body.kind for e in events]
    middle = next(i for i, kind in enumerate(kinds) if i > 120 and kind == "tile_discarded")
    await site.play("t1", events[: middle + 1])  # the hand under way, discards on the table

    page = await chrome.open(f"{site.url}/table.html?t=t1")
    await page.wait_for_selector("body:not(.is-stale) .board .center")
    assert await page.locator(".board .seat").count() == 4
    assert await page.text_content(".center-profile") == "規則 seed001"  # the rules it plays
    await page.wait_for_selector(".river svg.tile:not(.tile-back)")
    tile: dict[str, Any] = await page.evaluate(
        """() => { const t = document.querySelector(".river svg.tile");
        return {tag: t.tagName, ns: t.namespaceURI, code: t.dataset.code,
                parts: t.querySelectorAll("rect, circle, path, text").length}; }"""
    )
    assert tile["tag"] == "svg" and tile["ns"] == "http://www.w3.org/2000/svg"
    assert tile["parts"] >= 3, tile  # drawn, not a code in a box
    names = await page.locator(".seat-name").all_text_contents()
    assert sorted(names) == sorted(PLAYERS)  # in table order, each as text
    assert await page.locator(".board img").count() == 0
    assert await page.locator(".seat.is-turn, .center-claim").count() >= 1

    await site.play("t1", events[middle + 1 :])  # the hand ends, live
    await page.wait_for_selector(".banner-hand", timeout=20_000)
    banner = await page.text_content(".banner-hand") or ""
    assert "第1手" in banner

    missing = await page.evaluate(
        """async ([violations, faults, items]) => {
        const v = await import("/js/vocabulary.js");
        const tiles = await import("/js/tiles.js");
        const words = await v.loadVocabulary();  // the rulebook, from GET /api/vocabulary
        const named = (table, code, keys) => keys.every((k) => table.get(code)?.[k]?.length > 0);
        const both = ["zh", "en", "zh_meaning", "en_meaning"];
        return [
          ...violations.filter((c) => !named(words.violations, c, both)),
          ...faults.filter((c) => !named(words.faults, c, both)),
          ...items.filter((c) => !named(words.items, c, ["zh", "en"])),
          ...[...tiles.TILE_CODES, "back"].filter(
            (c) => tiles.tile(c).querySelectorAll("rect, circle, path, text").length < 3),
        ]; }""",
        [list(VIOLATION_CODES), list(FAULT_CODES), list(ITEM_IDS)],
    )
    assert missing == [], f"no words or no drawing for {missing}"

    fonts = await page.evaluate(
        """async () => { await document.fonts.ready; return [...document.fonts]
        .filter((f) => f.family.includes("Noto Sans TC") && f.status === "loaded").length; }"""
    )
    assert fonts >= 1, "the vendored CJK font was not used"

    ready = {
        "index.html": ".club-card",
        "session.html?id=1": ".hands .btn",
        "referee.html": ".correction-form",
    }
    for other, selector in ready.items():
        extra = await chrome.open(f"{site.url}/{other}", viewport={"width": 1280, "height": 720})
        await extra.wait_for_selector("body:not(.is-stale)")
        await extra.wait_for_selector(selector)
        if other.startswith("session"):  # the hand, step by step, to its end
            await extra.click(".hands .btn")
            await extra.wait_for_selector(".stepper .board")
            await extra.keyboard.press("End")
            shown = ".stepper .hand-concealed svg.tile:not(.tile-back)"
            assert await extra.locator(shown).count() > 0  # face up, over
        await extra.wait_for_timeout(300)
        assert await chrome.reported() == []
        await extra.close()

    assert await chrome.reported() == []
    # The server is gone: the page must not pass its picture off as live.
    await site.stop()
    await page.wait_for_selector("body.is-stale", timeout=10_000)
    assert await page.locator("#stale-label").is_visible()
