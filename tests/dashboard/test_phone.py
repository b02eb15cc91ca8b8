"""Every page on a phone (390×844) and a TV (1920×1080), with what a club's evening puts on
them: nothing wider than the screen or than its own section (nothing cut off), names and
short labels on one line (no name broken a character per line), the pages' links and the
table's session link at every width, and a long session folded to its latest hands."""

from __future__ import annotations

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import HD, PHONE, Chrome, Site, keep_token, needs_browser

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林美玲"]

# Each element's text, as lines: the line boxes its text nodes' client rects stand on.
LINES = """(selector) => [...document.querySelectorAll(selector)]
  .filter((el) => el.offsetParent !== null && el.textContent.trim())
  .map((el) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const bottoms = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) {
        if (r.width > 0 && !bottoms.some((b) => Math.abs(b - r.bottom) < 6)) bottoms.push(r.bottom);
      }
    }
    return [el.textContent.trim(), bottoms.length];
  })"""
OVERFLOW = """() => {
  const wide = [];
  if (document.documentElement.scrollWidth > window.innerWidth) wide.push("the page");
  for (const el of document.querySelectorAll(".doc-section, .topbar, .board, .club-grid")) {
    if (el.scrollWidth > el.clientWidth + 1) wide.push(el.className);
  }
  return wide; }"""
VISIBLE = """(selector) => [...document.querySelectorAll(selector)].filter((el) => {
  const r = el.getBoundingClientRect();
  return el.offsetParent !== null && r.width > 0 && r.right <= window.innerWidth && r.left >= 0;
}).length"""

ONE_LINE = {  # the short texts that must never wrap, by page
    "session": [".standings td.player", ".hands td:nth-child(3)", ".player-chip",
                ".topbar nav a"],
    "referee": [".violations-table td.who", ".topbar nav a"],
    "club": [".topbar nav a"],
    "table": [".topbar-meta a", "#speak", "#lang"],
}  # fmt: skip


async def test_every_page_fits_a_phone_and_a_tv(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=12), "p1")
    session_id = await site.start_session("p1", PLAYERS)
    await site.play("p1", events[:-20])
    pages = [
        ("table", "/table.html?t=p1", "body:not(.is-stale) .board .center", None),
        ("club", "/", ".club-card", None),
        ("session", f"/session.html?id={session_id}", "table.hands", None),
        ("referee", "/referee.html", "#violations tr.violation-row",
         ("mjtable.token", site.api.referee)),
    ]  # fmt: skip
    problems: list[str] = []
    for viewport in (PHONE, HD):
        for name, address, drawn, token in pages:
            page = await chrome.open(f"{site.url}{address}", viewport=viewport)
            if token is not None:
                await keep_token(page, *token)
            await page.wait_for_selector(drawn, timeout=15_000)
            where = f"{name} at {viewport['width']}"
            problems += [
                f"{where}: {what} is wider than its box" for what in await page.evaluate(OVERFLOW)
            ]
            for selector in ONE_LINE[name]:
                for text, lines in await page.evaluate(LINES, selector):
                    if lines != 1:
                        problems.append(f"{where}: {selector} {text!r} is on {lines} lines")
            if name != "table":
                if await page.evaluate(VISIBLE, ".topbar nav a") < 3:
                    problems.append(f"{where}: the pages' links are not all on screen")
            elif await page.evaluate(VISIBLE, ".topbar-meta a[href*='session.html']") != 1:
                problems.append(f"{where}: the session link is not on screen")
            await page.close()
    assert problems == []
    assert await chrome.reported() == []


async def test_a_long_session_shows_its_latest_hands_and_unfolds(
    site: Site, chrome: Chrome
) -> None:
    events = events_of(game_of(hands=12), "p2")
    session_id = await site.start_session("p2", PLAYERS)
    await site.play("p2", events)
    hands = await site.get("/api/tables/p2/hands", session_id=session_id, limit=1000)
    assert len(hands) > 10
    page = await chrome.open(f"{site.url}/session.html?id={session_id}", viewport=PHONE)
    await page.wait_for_selector("table.hands")
    numbers = await page.eval_on_selector_all(
        "table.hands tbody tr",
        "(rows) => rows.map((r) => Number(r.cells[0].firstChild.textContent))",
    )
    latest = sorted(h["hand_no"] for h in hands)[-10:]
    assert numbers == latest
    button = page.locator(".btn--unfold")
    assert f"{len(hands)}" in (await button.text_content() or "")
    await button.click()
    await page.wait_for_function(
        f"() => document.querySelectorAll('table.hands tbody tr').length === {len(hands)}"
    )
    assert await page.locator(".btn--unfold").count() == 0
