"""The scoreboard (`table.html`) in Chromium against the real service, fed the simulator's
events through the stand-in bridge (what dashboard/README.md promises):

- a draw and a discard appear, one event at a time, within a second, as the right tiles;
- a win's banner lists exactly the stored hand's 台 items, total, dealer 台 and payments
  (Chinese, then English after the toggle);
- the page goes stale when the service goes, and live again by itself when a new service
  comes up on the same port and database, showing what was played while it was down;
- a table whose bridge is offline is shown offline, and live again when it is back;
- on a phone, the board fits the screen.

With MJTABLE_SCREENSHOTS=1 they also write docs/screenshots/scoreboard-win.png and
scoreboard-phone.png.
"""

from __future__ import annotations

import asyncio
from typing import Any

from firmware_bridge.messages import Event
from table_service.rules.tiles import tile_code
from tests.api.kit import events_of, game_of
from tests.dashboard.kit import PHONE, Chrome, Site, needs_browser, river, shoot

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林美玲"]
WITHIN = 1.0  # seconds from the bridge's publication to the page showing it
LIVE = "body:not(.is-stale) .board .center"

SEAT_TURN = """([seat, step]) => {
  const el = document.querySelector(`.board .seat[data-seat="${seat}"]`);
  return el?.classList.contains("is-turn")
    && el.querySelector(".chip--turn")?.textContent.includes(step); }"""
DRAWN = "(t) => t.querySelectorAll('rect, circle, path, text').length"
RIVER_IS = """([seat, codes]) => {
  const tiles = [...document.querySelectorAll(
    `.board .seat[data-seat="${seat}"] .river svg.tile`)];
  return tiles.length === codes.length && tiles.every((t, i) => t.dataset.code === codes[i]); }"""


def mid_hand(events: list[Event], after: int = 100) -> int:
    """The index of a draw in play at or after `after`: a tile_drawn whose seat discards
    next (the wall's count, tiles_left, in between)."""

    def plain_draw(i: int) -> bool:
        drawn: Any = events[i].body
        if drawn.kind != "tile_drawn":
            return False
        following: list[Any] = [e.body for e in events[i + 1 : i + 4]]
        following = [body for body in following if body.kind != "tiles_left"]
        return following[0].kind == "tile_discarded" and following[0].seat == drawn.seat

    return next(i for i in range(after, len(events) - 3) if plain_draw(i))


async def test_a_draw_and_a_discard_appear_within_a_second(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "d1")
    await site.start_session("d1", PLAYERS)
    start = mid_hand(events)
    await site.play("d1", events[:start])
    page = await chrome.open(f"{site.url}/table.html?t=d1")
    await page.wait_for_selector(LIVE)

    loop = asyncio.get_running_loop()
    discards = 0
    timings: list[float] = []
    for event in events[start:]:  # one event at a time, each seen before the next
        body: Any = event.body
        began = loop.time()
        if body.kind == "tile_drawn":
            await site.publish("d1", [event])
            await page.wait_for_function(SEAT_TURN, arg=[body.seat, "打牌"], timeout=WITHIN * 1000)
        elif body.kind == "tile_discarded":
            state = await site.get("/api/tables/d1")  # every event before it is stored
            before = state["hand"]["seats"][body.seat]["discards"]  # (a claim takes one away)
            code = tile_code(body.tile)
            began = loop.time()
            await site.publish("d1", [event])
            expected = [*before, code]
            await page.wait_for_function(RIVER_IS, arg=[body.seat, expected], timeout=WITHIN * 1000)
            timings.append(loop.time() - began)
            last = page.locator(f'.board .seat[data-seat="{body.seat}"] .river svg.tile').last
            assert await last.get_attribute("data-code") == code
            assert await last.get_attribute("role") == "img"
            assert await last.get_attribute("aria-label") == tile_name(code)
            assert "tile-back" not in (await last.get_attribute("class") or "")
            parts = await last.evaluate(DRAWN)
            assert parts >= 3  # drawn, not a code in a box
            discards += 1
            if discards == 4:
                break
        else:
            await site.play("d1", [event])
        assert loop.time() - began < WITHIN + 0.5
    assert discards == 4 and max(timings) < WITHIN, timings
    assert await chrome.reported() == []


def tile_name(code: str) -> str:
    """A tile's Chinese name, as its accessible name: 五萬, 東, 紅中, 春."""
    honours = {"E": "東", "S": "南", "W": "西", "N": "北", "C": "紅中", "F": "發財", "P": "白板"}
    if code in honours:
        return honours[code]
    if code[0] == "h":
        return "春夏秋冬梅蘭菊竹"[int(code[1]) - 1]
    return "一二三四五六七八九"[int(code[0]) - 1] + {"m": "萬", "p": "筒", "s": "索"}[code[1]]


def banner_js() -> str:
    return """() => {
      const b = document.querySelector(".banner-hand");
      const text = (el) => (el ? el.textContent.replace(/\\s+/g, " ").trim() : null);
      const rows = [...b.querySelectorAll("table.items tr")];
      const cells = (tr) => [...tr.cells].map((td) => text(td.firstChild ?? td));
      return {
        items: rows.filter((tr) => !tr.className).map(cells),
        total: rows.filter((tr) => tr.classList.contains("item-total")).map(cells),
        dealer: rows.filter((tr) => tr.classList.contains("item-dealer")).map((tr) =>
          [text(tr.cells[0].firstChild), text(tr.querySelector(".item-sub")), text(tr.cells[1])]),
        payments: [...b.querySelectorAll(".payment")].map((li) =>
          [text(li.querySelector(".pay-who")), text(li.querySelector(".pay-amount"))]),
        winner: text(b.querySelector(".banner-winner")),
        tile: b.querySelector(".banner-tile svg.tile")?.dataset.code ?? null,
      }; }"""


def expected_banner(hand: dict[str, Any], en: bool) -> dict[str, Any]:
    """What the banner must list, from GET /api/hands/{id}."""
    tai = "{} tai" if en else "{} 台"
    dealer = [
        "Dealer tai (apart)" if en else "莊家台（另計）",
        " + ".join(
            [f"{'Dealer' if en else '作莊'} {tai.format(1)}"]
            + (
                [f"{hand['streak']}-hand streak {tai.format(2 * hand['streak'])}"]
                if en
                else [f"連{hand['streak']}拉{hand['streak']} {tai.format(2 * hand['streak'])}"]
            )
            * (hand["streak"] > 0)
        ),
        tai.format(hand["dealer_tai"]),
    ]
    return {
        "items": [[i["en"] if en else i["name"], tai.format(i["tai"])] for i in hand["items"]],
        "total": [["Total" if en else "合計", tai.format(hand["tai"])]],
        "dealer": [dealer] if hand["dealer_tai"] else [],
        "payments": [
            [f"{PLAYERS[p['from']]} → {PLAYERS[p['to']]}", f"{p['amount']:,}"]
            for p in hand["payments"]
        ],
        "winner": PLAYERS[hand["seat"]],
        "tile": hand["winning_tile"],
    }


async def test_a_win_shows_its_items_and_payments(site: Site, chrome: Chrome) -> None:
    game = game_of(hands=3)  # the third hand: the dealer self-draws, 5 items, on a streak of 1
    events = events_of(game, "w1")
    ended = len(events) - 40  # the last hand in play, its end still to come
    await site.start_session("w1", PLAYERS)
    await site.play("w1", events[:ended])
    page = await chrome.open(f"{site.url}/table.html?t=w1")
    await page.wait_for_selector(LIVE)
    assert await page.locator(".banner-hand").count() == 0

    await site.play("w1", events[ended:])  # the hand ends, live
    await page.wait_for_selector(".banner-hand", timeout=10_000)
    [last] = await site.get("/api/tables/w1/hands", limit=1)
    hand = await site.get(f"/api/hands/{last['id']}")
    assert hand["hand_no"] == 3 and hand["result"] == "win"
    assert len(hand["items"]) >= 3 and hand["dealer_tai"] == 3 and len(hand["payments"]) == 3

    shown = await page.evaluate(banner_js())
    assert shown == expected_banner(hand, en=False)
    banner = await page.text_content(".banner-hand") or ""
    assert "第3手" in banner and "自摸" in banner
    await shoot(page, "scoreboard-win")

    await page.click("#lang")
    await page.wait_for_function(
        "() => document.querySelector('.banner-hand')?.textContent.includes('Total')"
    )
    shown = await page.evaluate(banner_js())
    assert shown == expected_banner(hand, en=True)
    banner = await page.text_content(".banner-hand") or ""
    assert "Hand 3" in banner and "Self-draw" in banner
    assert await chrome.reported() == []


async def test_the_page_recovers_after_the_service_restarts(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "r1")
    await site.start_session("r1", PLAYERS)
    start = mid_hand(events, 150)
    await site.play("r1", events[:start])
    page = await chrome.open(f"{site.url}/table.html?t=r1")
    await page.wait_for_selector(LIVE)
    assert await page.locator("body").get_attribute("data-conn") == "live"
    assert not await page.locator("#stale-label").is_visible()
    before = [await river(page, seat) for seat in range(4)]
    await page.evaluate("window.__same_page = true")  # gone, were the page reloaded

    await site.stop()  # the uvicorn server and the Service task
    await page.wait_for_selector("body.is-stale", timeout=5_000)
    await page.wait_for_function("document.body.dataset.conn === 'reconnecting'")
    label = page.locator("#stale-label")
    assert await label.is_visible()
    assert "重新連線中" in (await label.text_content() or "")
    assert "即時" not in (await page.text_content("#conn") or "")

    down = events[start : mid_hand(events, start + 12)]  # played while the service is down
    assert sum(e.body.kind == "tile_discarded" for e in down) >= 3
    await site.publish("r1", down)
    await page.wait_for_timeout(300)
    assert await page.locator("body.is-stale").count() == 1  # still not live, still says so

    await site.start()  # a new service and server, the same port and database
    await site.until_stored("r1", down[-1])  # the bridge replayed what it missed
    state = await site.get("/api/tables/r1")
    expected = [state["hand"]["seats"][seat]["discards"] for seat in range(4)]
    assert expected != before  # the discards made while it was down
    await page.wait_for_selector(LIVE, timeout=15_000)  # by itself: no reload
    for seat in range(4):
        await page.wait_for_function(RIVER_IS, arg=[seat, expected[seat]], timeout=5_000)
    assert not await label.is_visible()
    assert await page.evaluate("window.__same_page") is True
    # Chromium logs the refused reconnections as errors: expected while the service is down.
    assert await chrome.reported(ignore=["WebSocket connection to", "ERR_CONNECTION"]) == []


async def test_an_offline_table_shows_offline(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "o1")
    await site.start_session("o1", PLAYERS)
    await site.play("o1", events[:150])
    page = await chrome.open(f"{site.url}/table.html?t=o1")
    await page.wait_for_selector(LIVE)
    offline = page.locator("#offline-label")
    assert not await offline.is_visible()

    bridge = await site.bridge("o1")
    await bridge.offline()
    await page.wait_for_selector("body.is-offline", timeout=5_000)
    assert await offline.is_visible()
    assert "牌桌離線" in (await offline.text_content() or "")
    assert await page.locator("body").get_attribute("data-conn") == "live"  # the page is live

    await bridge.online()
    await page.wait_for_selector("body:not(.is-offline)", timeout=5_000)
    assert not await offline.is_visible()
    await site.play("o1", events[150:160])  # and it plays on
    await page.wait_for_selector(LIVE)
    assert await chrome.reported() == []


async def test_the_scoreboard_fits_a_phone(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "p1")
    await site.start_session("p1", PLAYERS)
    await site.play("p1", events[: mid_hand(events, 180) + 2])
    page = await chrome.open(f"{site.url}/table.html?t=p1", viewport=PHONE)
    await page.wait_for_selector(LIVE)
    await page.wait_for_selector(".river svg.tile")
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways ({width} px)"
    for seat in range(4):
        box = await page.locator(f'.board .seat[data-seat="{seat}"]').bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, box
    names = await page.locator(".seat-name").all_text_contents()
    assert sorted(names) == sorted(PLAYERS)
    await shoot(page, "scoreboard-phone")
    assert await chrome.reported() == []
