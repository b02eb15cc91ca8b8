"""The club view (`index.html`) and the session view (`session.html`) in Chromium against the
real service (as dashboard/README.md describes them): a dozen tables fed the simulator's
games (fixed seeds) through their stand-in bridges, some playing, some idle, some offline,
some with open violations; every card shows its table's state and count of open
violations; a session of several hands has its chart, one line per player, ending at the
standings' totals.

With MJTABLE_SCREENSHOTS=1 it also writes docs/screenshots/club.png and session-chart.png.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Site, needs_browser, shoot

pytestmark = needs_browser

SURNAMES = "陳林黃張李王吳劉蔡楊許鄭"
GIVEN = "志明淑芬家豪怡君俊傑雅婷建宏美玲宗翰佳穎冠宇欣怡"  # twelve given names of two characters
STATE_WORDS = {"playing": "對局中", "idle": "閒置", "offline": "離線"}


@dataclass(frozen=True)
class Table:
    name: str
    seed: int
    hands: int  # hands played to their end
    more: int = 0  # events of the next hand after them (0: the table waits between hands)
    offline: bool = False  # the bridge goes offline after them

    @property
    def state(self) -> str:
        if self.offline:
            return "offline"
        return "playing" if self.more else "idle"

    def players(self, i: int) -> list[str]:
        given = [(3 * i + s) % 12 for s in range(4)]
        return [SURNAMES[(i + 5 * s) % 12] + GIVEN[2 * g : 2 * g + 2] for s, g in enumerate(given)]


TABLES = [
    Table("A1", 19, 6),  # the session shown in the chart: six hands, a 荒局 and a 詐胡
    Table("A2", 3, 1, 150),
    Table("A3", 7, 1, 60),
    Table("A4", 11, 2),
    Table("A5", 12, 0, 200),
    Table("A6", 21, 1, 100, offline=True),
    Table("B1", 25, 1, 170),
    Table("B2", 5, 0, 120),
    Table("B3", 8, 1, offline=True),
    Table("B4", 13, 1, 30),
    Table("B5", 17, 0, 180, offline=True),
    Table("B6", 23, 2, 10),
]


async def setup_tables(site: Site) -> dict[str, int]:
    """Every table's session and events; their session ids."""
    sessions = {}
    for i, table in enumerate(TABLES):
        sessions[table.name] = await site.start_session(table.name, table.players(i))

    async def feed(table: Table) -> None:
        game = game_of(table.seed, table.hands + (1 if table.more else 0))
        events = events_of(game, table.name)
        played = sum(len(hand.events) for hand in game[: table.hands]) + table.more
        assert table.more < len(game[-1].events) - 20, table  # the next hand still in play
        await site.play(table.name, events[:played])
        if table.offline:
            await (await site.bridge(table.name)).offline()

    for table in TABLES:  # one at a time: a broker's default queue (Mosquitto: 1000) for a
        await feed(table)  # subscriber that falls behind drops QoS 1 messages silently
    return sessions


async def test_the_club_and_a_session_chart(site: Site, chrome: Chrome) -> None:
    sessions = await setup_tables(site)
    open_violations = Counter(v["table"] for v in await site.get("/api/violations", status="open"))
    assert sum(1 for t in TABLES if open_violations[t.name]) >= 3, open_violations

    page = await chrome.open(f"{site.url}/index.html")
    await page.wait_for_selector("body:not(.is-stale) .club-card")
    await page.wait_for_function(  # the bridges' availability has reached the service
        "(n) => document.querySelectorAll('.club-card--offline').length === n",
        arg=sum(t.offline for t in TABLES),
        timeout=5_000,
    )
    await page.wait_for_function(  # the open violations are counted (fetched after the snapshot)
        "(n) => document.querySelectorAll('.card-violations').length === n",
        arg=len(open_violations),
        timeout=5_000,
    )
    cards = await page.evaluate(
        """() => [...document.querySelectorAll(".club-card")].map((card) => ({
          name: card.querySelector(".card-name").textContent,
          state: [...card.classList].find((c) => /^club-card--(playing|idle|offline)$/.test(c))
            ?.slice("club-card--".length),
          words: card.querySelector(".card-status").textContent,
          violations: card.querySelector(".card-violations")?.textContent ?? "",
          href: card.getAttribute("href"),
        }))"""
    )
    assert [c["name"] for c in cards] == [t.name for t in TABLES]  # every table, in order
    for card, table in zip(cards, TABLES, strict=True):
        assert card["state"] == table.state, (card, table)
        assert card["words"] == STATE_WORDS[table.state], card
        count = open_violations[table.name]
        assert card["violations"] == (f"違規 {count}" if count else ""), card
        assert card["href"] == f"table.html?t={table.name}"
    summary = await page.text_content("#summary") or ""
    states = Counter(t.state for t in TABLES)
    for state, words in STATE_WORDS.items():
        assert f"{words} {states[state]}" in summary, summary
    assert f"{len(TABLES)} 桌" in summary and f"待裁決 {sum(open_violations.values())}" in summary
    for card in await page.locator(".club-card").all():  # one screen, no scrolling
        box = await card.bounding_box()
        assert box and box["y"] + box["height"] <= 1080, box
    await shoot(page, "club")

    # The session of six hands: its chart has one line per player, ending at their totals.
    session_id = sessions["A1"]
    detail = await site.get(f"/api/sessions/{session_id}")
    players = detail["session"]["players"]
    totals = {row["seat"]: row["total"] for row in detail["standings"]}
    ledger = await site.get(f"/api/sessions/{session_id}/ledger")
    last = {line["seat"]: line["total"] for line in ledger}  # each seat's last running total
    assert last == totals and any(totals.values())
    hands = await site.get("/api/tables/A1/hands", session_id=session_id)
    assert len(hands) == 6

    chart = await chrome.open(f"{site.url}/session.html?id={session_id}")
    await chart.wait_for_selector("body:not(.is-stale) #chart .u-over")
    await chart.wait_for_selector(".hands .btn")
    legend = chart.locator("#chart .u-legend .u-series")
    assert await legend.count() == 1 + 4  # the hands (x), then one line per player
    labels = await chart.locator("#chart .u-legend .u-series .u-label").all_text_contents()
    assert labels[1:] == players
    # Once live, the page loads the session again (new hands may have come): let it, so
    # the chart is not drawn anew under the cursor.
    await chart.wait_for_function(SECOND_LOAD, arg="/api/tables/A1", timeout=5_000)
    await chart.wait_for_timeout(150)
    over = await chart.locator("#chart .u-over").bounding_box()
    assert over is not None
    shown = None
    for _ in range(20):  # the cursor on the last hand: the legend gives each line's value
        await chart.mouse.move(over["x"] + over["width"] / 2, over["y"] + over["height"] / 2)
        await chart.mouse.move(over["x"] + over["width"] - 1, over["y"] + over["height"] / 2)
        shown = await chart.evaluate(LEGEND_AT, str(len(hands)))
        if shown is not None:
            break
        await chart.wait_for_timeout(100)
    assert shown == [money(totals[seat]) for seat in range(4)], (shown, totals)
    markers = await chart.evaluate(
        """() => [...document.querySelectorAll("#chart .u-legend .u-series .u-marker")]
          .slice(1).map((m) => getComputedStyle(m).borderColor)"""
    )
    assert len(set(markers)) == 4, markers  # four lines, four colours
    assert "規則 mjonline" in await chart.locator("#info").inner_text()
    await chart.locator("#rules summary").click()  # the rules played, every value written out
    rows = await chart.locator("#rules tr").all_inner_texts()
    assert "清一色 (full_flush)\t12" in rows, rows  # and each switch by its words
    assert "平胡的聽牌條件\t全手聽兩種以上" in rows, rows
    assert "過水後自摸有效（地方規則）\t否" in rows, rows
    await shoot(chart, "session-chart")
    # The CSV link downloads a file named by its session, not "export"
    started = time.strftime("%Y-%m-%d", time.gmtime(detail["session"]["started_at"]))
    async with chart.expect_download() as got:
        await chart.locator('#info a[href$="format=csv"]').click()
    csv_file = await got.value
    assert csv_file.suggested_filename == f"session-{session_id}-A1-{started}.csv"
    assert await chrome.reported() == []


SECOND_LOAD = """(path) => performance.getEntriesByType("resource")
  .filter((e) => new URL(e.name).pathname === path).length >= 2"""
# The legend's values of the four lines when the cursor is on hand `x`, else null.
LEGEND_AT = """(x) => {
  const values = [...document.querySelectorAll("#chart .u-legend .u-series .u-value")]
    .map((v) => v.textContent);
  return values[0] === x ? values.slice(1) : null; }"""


def money(n: int) -> str:
    """As the dashboard writes money: +1,240 / −360 / 0."""
    if n > 0:
        return f"+{n:,}"
    return f"−{-n:,}" if n < 0 else "0"
