"""The table and club pages on a 55" TV read from 3 m (1920×1080): tiles large enough to
read, none cut off at the fullest moment of a hand, the seat winds' rule said on the board,
the results, violations and faults in a rail of their own that never covers a seat, the
win's hand laid down in its banner; the club's cards filling the screen for 1 table or 50."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import HD, Chrome, Site, needs_browser, shoot

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林美玲"]
LIVE = "body:not(.is-stale) .board .center"
# The three hands of game_of(hands=3) end at these events (each the hand's last); the
# hand's two out-of-turn draws come at 176 and 207.
ENDS = (331, 617, 940)
FIRST_TV_HEIGHT = 30  # px: a tile's height on the first TV layout, as the room measured it

# Every tile on the board: its kind, height, and whether it lies whole inside its seat's
# panel and the window (nothing cut off).
TILES = """() => [...document.querySelectorAll(".board .seat svg.tile")].map((el) => {
  const r = el.getBoundingClientRect();
  const box = el.closest(".seat").getBoundingClientRect();
  const kind = ["river", "meld", "hand", "flower"].find((k) => el.classList.contains("tile--" + k));
  const inside = r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5 && r.left >= box.left - 0.5
    && r.right <= box.right + 0.5 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
  return {kind, height: r.height, inside, seat: el.closest(".seat").dataset.seat};
})"""
# The boxes of the seats and of every banner shown, to find any overlap.
BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  return {
    seats: [...document.querySelectorAll(".board .seat")].map(box),
    banners: [...document.querySelectorAll(".toast, .banner")].map(box),
  }; }"""


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


async def test_the_fullest_board_of_each_hand_is_read_whole_across_the_room(
    site: Site, chrome: Chrome
) -> None:
    events = events_of(game_of(hands=3), "tv")
    await site.start_session("tv", PLAYERS)
    played = 0
    for end in ENDS:
        await site.play("tv", events[played:end])  # up to the hand's last event: every discard
        played = end
        page = await chrome.open(f"{site.url}/table.html?t=tv", viewport=HD)
        await page.wait_for_selector(LIVE, timeout=15_000)
        tiles: list[dict[str, Any]] = await page.evaluate(TILES)
        assert len(tiles) > 60
        for kind in ("river", "meld", "hand"):
            heights = [t["height"] for t in tiles if t["kind"] == kind]
            assert heights and min(heights) >= 2 * FIRST_TV_HEIGHT, (kind, min(heights))
        assert min(t["height"] for t in tiles if t["kind"] == "river") >= 66
        cut = [t for t in tiles if not t["inside"]]
        assert cut == [], f"hand ending at {end}: {len(cut)} tiles cut off, e.g. {cut[:3]}"
        assert await page.text_content(".center-winds") == "開門位為東，依序南西北"
        if end == ENDS[0]:
            await shoot(page, "scoreboard-tv")
        await page.close()
    assert await chrome.reported() == []


async def test_results_and_violations_stand_beside_the_board_and_never_cover_a_seat(
    site: Site, chrome: Chrome
) -> None:
    events = events_of(game_of(hands=3), "tv")
    await site.start_session("tv", PLAYERS)
    await site.play("tv", events[:170])
    page = await chrome.open(f"{site.url}/table.html?t=tv", viewport=HD)
    await page.wait_for_selector(LIVE, timeout=15_000)

    await site.play("tv", events[170:215])  # two out-of-turn draws, live
    await page.wait_for_function("() => document.querySelectorAll('.toast').length >= 2")
    boxes = await page.evaluate(BOXES)
    assert len(boxes["seats"]) == 4 and len(boxes["banners"]) >= 2
    for banner in boxes["banners"]:
        assert not any(overlaps(banner, seat) for seat in boxes["seats"]), banner

    await site.play("tv", events[215 : ENDS[0] + 1])  # the hand is won
    await page.wait_for_selector(".banner-hand .banner-laid svg.tile", timeout=15_000)
    boxes = await page.evaluate(BOXES)
    for banner in boxes["banners"]:
        assert not any(overlaps(banner, seat) for seat in boxes["seats"]), banner
    [last] = await site.get("/api/tables/tv/hands", limit=1)
    state = await site.get("/api/tables/tv")
    winner = state["hand"]["seats"][last["seat"]]
    laid = await page.evaluate(
        """() => [...document.querySelectorAll(".banner-laid svg.tile")].map((t) =>
          [t.dataset.code ?? "back", t.classList.contains("tile--winning")])"""
    )
    in_melds = sum(len(m["tiles"]) for m in winner["melds"])
    assert len(laid) == in_melds + len(winner["laid_down"])  # every tile of the hand
    assert [code for code, winning in laid if winning] == [last["winning_tile"]]
    assert sorted(code for code, _ in laid) == sorted(
        [*winner["laid_down"], *(t for m in winner["melds"] for t in m["tiles"])]
    )
    await shoot(page, "scoreboard-tv-win")

    await site.play("tv", events[ENDS[0] + 1 : ENDS[0] + 40])  # the next hand is dealt
    await page.wait_for_selector(".banner-previous", timeout=15_000)
    assert "上一手" in (await page.text_content(".banner-hand") or "")  # kept, as the last hand's
    assert await chrome.reported() == []


# The club's cards: how much of the grid's box they cover, and their smallest size.
CARDS = """() => {
  const grid = document.querySelector(".club-grid").getBoundingClientRect();
  const cards = [...document.querySelectorAll(".club-card")].map((c) => c.getBoundingClientRect());
  const area = cards.reduce((a, r) => a + r.width * r.height, 0);
  return {count: cards.length, covered: area / (grid.width * grid.height),
    bottom: Math.max(...cards.map((r) => r.bottom)), height: window.innerHeight,
    smallest: Math.min(...cards.map((r) => Math.min(r.width, r.height))),
    names: Math.min(...[...document.querySelectorAll(".card-name")].map((n) =>
      parseFloat(getComputedStyle(n).fontSize)))}; }"""


async def test_the_club_page_fills_the_screen_for_one_table_four_or_fifty(
    site: Site, chrome: Chrome
) -> None:
    one = await club_of(site, chrome, 1)
    assert one["count"] == 1 and one["covered"] > 0.9, one  # one table: the whole screen
    four = await club_of(site, chrome, 4)
    assert four["covered"] > 0.85, four  # four tables: a quarter of the screen each
    fifty = await club_of(site, chrome, 50, shot="club-tv-50")
    assert fifty["covered"] > 0.75, fifty  # the gaps between 50 cards aside, all of it
    assert fifty["bottom"] <= fifty["height"], fifty  # and no scrolling
    assert fifty["smallest"] >= 150 and fifty["names"] >= 20, fifty  # read from across the room
    assert await chrome.reported() == []


async def club_of(site: Site, chrome: Chrome, n: int, shot: str | None = None) -> dict[str, Any]:
    """The club page at 1920×1080 once tables c1…cn have each begun a hand: its cards."""
    for k in range(1, n + 1):
        if not any(b.table == f"c{k}" for b in site.bridges):
            await site.publish(f"c{k}", events_of(game_of(hands=1), f"c{k}")[:6])
    await until_cards(site, n)
    page = await chrome.open(f"{site.url}/", viewport=HD)
    await page.wait_for_function(f"() => document.querySelectorAll('.club-card').length === {n}")
    cards: dict[str, Any] = await page.evaluate(CARDS)
    if shot:
        await shoot(page, shot)
    await page.close()
    return cards


async def until_cards(site: Site, n: int) -> None:
    """Until the service follows `n` tables."""
    for _ in range(300):
        if len(await site.get("/api/tables")) >= n:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"the service follows fewer than {n} tables")
