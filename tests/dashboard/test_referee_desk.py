"""The referee's desk (`referee.html`) in Chromium against the real service: rows
stay where they are while violations arrive (the new ones are announced, a typed note is
kept by the violation's key), a violation is dismissed and undone as rulings (shown with
who ruled, when and why), the list filters and rules several rows at once, each row links
to its hand's stepper at its event, and a penalty and a ruling reach the table page, the
club card and the session page within a second, while a burst of rulings costs the
session page at most one read in its gap (300 ms).

A game of seed 19 (tests/api/kit.py): its first hand has two `out_of_turn` breaches, its
fourth four more (hands 2 and 3 have none).
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Page, Site, needs_browser

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林志玲"]
TABLE = "R1"

ROWS = """() => [...document.querySelectorAll("#violations tr.violation-row")].map((tr) => ({
  key: tr.dataset.key, status: tr.dataset.status,
  who: tr.querySelector("td.who").textContent,
  rule: tr.querySelector("td.rule strong").textContent,
  ruling: tr.querySelector("td.status").textContent,
  note: tr.querySelector(".note-input")?.value ?? null,
  link: tr.querySelector("a.step-link").getAttribute("href"),
  y: tr.getBoundingClientRect().top + window.scrollY,
}))"""


def row(page: Page, key: str) -> Any:
    return page.locator(f'#violations tr.violation-row[data-key="{key}"]')


def key_of(v: dict[str, Any]) -> str:
    return f"{v['table']}|{v['boot_id']}|{v['seq']}|{v['seat']}|{v['code']}"


async def referee_desk(site: Site, chrome: Chrome) -> Page:
    """The desk with the referee's token pasted in, its rows drawn."""
    page = await chrome.open(f"{site.url}/referee.html")
    await page.wait_for_selector("body:not(.is-stale) .token-form")
    assert await page.locator(".read-only-note").is_visible()  # no token: says so
    assert await page.locator("#violations .btn--dismiss").count() == 0
    await page.fill("input[name=token]", site.api.referee)
    await page.click(".token-form button[type=submit]")
    await page.wait_for_selector(".token-state--set")
    await page.wait_for_selector("#violations tr.violation-row .btn--dismiss")
    assert not await page.locator(".read-only-note").is_visible()
    return page


async def violations(site: Site) -> list[dict[str, Any]]:
    return list(await site.api.get_as(site.api.as_referee, "/api/violations", table=TABLE))


async def test_the_desk_keeps_a_typed_note_while_violations_arrive(
    site: Site, chrome: Chrome
) -> None:
    game = game_of(19, 4)
    events = events_of(game, TABLE)
    first_three = sum(len(hand.events) for hand in game[:3])
    await site.start_session(TABLE, PLAYERS)
    await site.play(TABLE, events[:first_three])
    before = await violations(site)
    assert len(before) >= 2, before

    page = await referee_desk(site, chrome)
    rows = await page.evaluate(ROWS)
    assert {r["key"] for r in rows} == {key_of(v) for v in before}
    # The rulebook's words, the player and the seat's wind: no "seat 2"
    first = rows[-1]  # the oldest at the bottom
    assert first["rule"] == "搶摸", first  # out_of_turn, as the rulebook names it
    assert any(name in first["who"] for name in PLAYERS) and "家" in first["who"], first
    assert "號位" not in first["who"] and "seat" not in first["who"]
    assert first["link"].startswith("session.html?id=") and "&hand=1&at=" in first["link"]

    # A note typed into a row (the cursor stays in it) ...
    target = rows[0]["key"]
    note = row(page, target).locator(".note-input")
    await note.click()
    await page.keyboard.type("看錄影再說")
    # ... while the fourth hand is played and flags more violations
    await site.play(TABLE, events[first_three : first_three + 300])
    after = await violations(site)
    assert len(after) > len(before), after
    news = page.locator(".btn--news")
    await news.wait_for(state="visible", timeout=5_000)
    fresh = len(after) - len(before)
    await page.wait_for_function(  # every one of them counted (the page reloads on news)
        "(text) => document.querySelector('.btn--news').textContent === text",
        arg=f"新違規 {fresh} 項：顯示",
        timeout=5_000,
    )
    await page.wait_for_timeout(600)  # a reload after the news would come by now
    now = await page.evaluate(ROWS)
    assert [(r["key"], r["y"]) for r in now] == [(r["key"], r["y"]) for r in rows]  # unmoved
    assert await note.input_value() == "看錄影再說"
    assert await page.evaluate("document.activeElement.classList.contains('note-input')")
    await page.keyboard.type("。")  # still typing in the same input
    assert await note.input_value() == "看錄影再說。"

    # Another referee dismisses that very violation: its row waits until the typing is done
    mine = next(v for v in before if key_of(v) == target)
    verdict = {
        "kind": "verdict", "boot_id": mine["boot_id"], "seq": mine["seq"], "seat": mine["seat"],
        "code": mine["code"], "decision": "overturn", "reason": "另一位裁判",
    }  # fmt: skip
    response = await site.api.client.post(
        f"/api/tables/{TABLE}/rulings", json=verdict, headers=site.api.as_referee
    )
    assert response.status_code == 201, response.text
    await page.wait_for_function(  # the page has read the ruling (its recent rulings list it)
        "() => document.querySelector('#recent').textContent.includes('另一位裁判')",
        timeout=5_000,
    )
    assert await row(page, target).get_attribute("data-status") == "open"  # not redrawn yet
    assert await page.evaluate("document.activeElement.classList.contains('note-input')")
    await page.keyboard.type("！")
    assert await note.input_value() == "看錄影再說。！"

    # Shown on asking: the new ones on top, the note still in its row
    await page.locator("h1").click()  # the cursor leaves the row: it is drawn as ruled
    await page.wait_for_selector(f'tr.violation-row[data-key="{target}"][data-status="dismissed"]')
    assert await row(page, target).locator(".note-input").input_value() == "看錄影再說。！"
    assert [r["key"] for r in await page.evaluate(ROWS)] == [r["key"] for r in rows]
    await news.click()
    await page.wait_for_function(
        "(n) => document.querySelectorAll('#violations tr.violation-row').length === n",
        arg=len(after),
    )
    shown = await page.evaluate(ROWS)
    assert {r["key"] for r in shown[:fresh]} == {key_of(v) for v in after} - {
        key_of(v) for v in before
    }
    assert [r["key"] for r in shown[fresh:]] == [r["key"] for r in rows]
    assert all(r["link"].startswith("table.html?t=") for r in shown[:fresh])  # hand in play
    assert await news.is_hidden()
    assert await row(page, target).locator(".note-input").input_value() == "看錄影再說。！"
    # A reload of the page keeps it too (by the violation's key, in this tab)
    await page.reload()
    await page.wait_for_selector(f'#violations tr.violation-row[data-key="{target}"]')
    assert await row(page, target).locator(".note-input").input_value() == "看錄影再說。！"

    # Filters: by code, by table and hand (the first hand's two only)
    await page.select_option(".filter-table", TABLE)
    await page.select_option(".filter-hand", label="場次 1 第1手")
    hand_one = await page.evaluate(ROWS)
    assert {r["key"] for r in hand_one} == {key_of(v) for v in before}
    await page.select_option(".filter-hand", "")
    codes = {v["code"] for v in after}
    code = next(c for c in sorted(codes) if c != "out_of_turn")
    await page.select_option(".filter-code", code)
    by_code = await page.evaluate(ROWS)
    assert by_code and {r["key"] for r in by_code} == {
        key_of(v) for v in after if v["code"] == code
    }
    assert await chrome.reported() == []


async def test_dismiss_undo_and_several_at_once(site: Site, chrome: Chrome) -> None:
    game = game_of(19, 4)
    events = events_of(game, TABLE)
    await site.start_session(TABLE, PLAYERS)
    await site.play(TABLE, events)  # four hands, six breaches or more
    page = await referee_desk(site, chrome)
    rows = await page.evaluate(ROWS)
    assert len(rows) >= 4, rows
    target = rows[-1]["key"]
    line = row(page, target)
    await line.locator(".note-input").fill("感應器誤讀，非玩家動作")
    await line.locator(".btn--dismiss").click()
    await page.wait_for_selector(f'tr.violation-row[data-key="{target}"][data-status="dismissed"]')
    ruling = await line.locator("td.status").inner_text()
    assert "已駁回" in ruling and "感應器誤讀，非玩家動作" in ruling, ruling
    assert f"權杖 #{site.api.referee_id}" in ruling, ruling
    assert await line.locator(".btn--undo").count() == 1
    assert await line.locator(".note-input").input_value() == ""  # used as the reason
    stored = next(v for v in await violations(site) if key_of(v) == target)
    assert (
        stored["status"] == "dismissed" and stored["decision"]["note"] == "感應器誤讀，非玩家動作"
    )
    assert [r["key"] for r in await page.evaluate(ROWS)] == [r["key"] for r in rows]  # in place

    await line.locator(".note-input").fill("判錯了")
    await line.locator(".btn--undo").click()
    await page.wait_for_selector(f'tr.violation-row[data-key="{target}"][data-status="open"]')
    assert await line.locator(".btn--dismiss").count() == 1
    stored = next(v for v in await violations(site) if key_of(v) == target)
    assert stored["status"] == "open", stored
    rulings = await site.get("/api/rulings", table=TABLE)
    assert rulings[0]["kind"] == "undo" and rulings[0]["body"]["reason"] == "判錯了"
    assert rulings[1]["withdrawn_by"] == rulings[0]["id"]

    # Two rows confirmed at once, with one reason
    two = [rows[0]["key"], rows[1]["key"]]
    for key in two:
        await row(page, key).locator(".row-tick").check()
    assert await page.text_content(".bulk-count") == "已選 2 項"
    await page.fill(".bulk-reason", "兩次都看到了")
    await page.click(".bulk-confirm")
    for key in two:
        await page.wait_for_selector(f'tr.violation-row[data-key="{key}"][data-status="confirmed"]')
    stored = {key_of(v): v for v in await violations(site)}
    for key in two:
        assert stored[key]["status"] == "confirmed"
        assert stored[key]["decision"]["note"] == "兩次都看到了"
    assert await page.text_content(".bulk-count") == "已選 0 項"

    # The stepper link: the session page opens that hand at the violation's event
    link = await line.locator("a.step-link").get_attribute("href")
    assert link and "&hand=" in link
    stepper = await chrome.open(f"{site.url}/{link}")
    await stepper.wait_for_selector(".stepper .board")
    flag = await stepper.locator(".stepper-caption .caption-flag--violation").all_inner_texts()
    assert any("搶摸" in text or rows[-1]["rule"] in text for text in flag), flag
    assert await chrome.reported() == []


async def test_a_penalty_and_a_ruling_reach_every_page_within_a_second(
    site: Site, chrome: Chrome
) -> None:
    game = game_of(19, 2)
    events = events_of(game, TABLE)
    session_id = await site.start_session(TABLE, PLAYERS)
    await site.play(TABLE, events[: len(game[0].events)])
    table = await chrome.open(f"{site.url}/table.html?t={TABLE}")
    club = await chrome.open(f"{site.url}/index.html")
    session = await chrome.open(f"{site.url}/session.html?id={session_id}")
    await table.wait_for_selector("body:not(.is-stale) .board .seat .score")
    await club.wait_for_selector("body:not(.is-stale) .club-card")
    await session.wait_for_selector("body:not(.is-stale) .standings")
    page = await referee_desk(site, chrome)

    async def seen() -> dict[str, Any]:
        return {
            "table": await table.locator(".board .seat .score").all_text_contents(),
            "club": await club.locator(".club-card .card-money").all_text_contents(),
            "session": await session.locator(
                ".standings td.num.up, .standings td.num.down"
            ).all_text_contents(),
        }

    before = await seen()
    totals = {
        r["seat"]: r["total"] for r in (await site.get(f"/api/sessions/{session_id}"))["standings"]
    }
    # A penalty through the correction form: 陳小華 (seat 2) pays each other seat
    await page.select_option(".correction-form select[name=kind]", "penalty")
    await page.select_option(".correction-form select[name=seat]", "2")
    await page.fill(".correction-form input[name=tai]", "2")
    await page.fill(".correction-form input[name=reason]", "眼牌")
    await page.click(".correction-form button[type=submit]")
    await page.wait_for_selector("#correction-message.message--ok")
    after = {
        r["seat"]: r["total"] for r in (await site.get(f"/api/sessions/{session_id}"))["standings"]
    }
    assert after[2] < totals[2] and all(after[s] > totals[s] for s in (0, 1, 3)), (totals, after)
    for name, shown in (("table", table), ("club", club), ("session", session)):
        await shown.wait_for_function(MOVED, arg=[name, before[name]], timeout=1_000)
    assert (await seen())["table"] != before["table"]

    # A ruling (a violation dismissed on the desk): every page reads the records anew
    counts = {
        "table": (table, f"/api/tables/{TABLE}"),
        "club": (club, "/api/violations"),
        "session": (session, f"/api/sessions/{session_id}"),
    }
    loads = {name: await p.evaluate(LOADS, path) for name, (p, path) in counts.items()}
    key = (await page.evaluate(ROWS))[0]["key"]
    await row(page, key).locator(".btn--dismiss").click()
    for name, (p, path) in counts.items():
        await p.wait_for_function(
            "([path, n]) => " + LOADS_JS + " > n", arg=[path, loads[name]], timeout=1_000
        )
    # The session page keeps the trail: the penalty with who paid what, then the verdict
    await session.wait_for_function(
        '() => document.querySelectorAll(".grid-table.rulings tbody tr").length === 2',
        timeout=2_000,
    )
    kinds = await session.locator(".grid-table.rulings tbody td:nth-child(2)").all_text_contents()
    assert kinds == ["罰則", "違規裁決"]
    paid = (
        await session.locator(".grid-table.rulings tbody tr >> nth=0")
        .locator("li")
        .all_text_contents()
    )
    assert len(paid) == 4 and any(text.startswith("陳小華-") for text in paid), paid
    assert await chrome.reported() == []


async def test_a_burst_of_rulings_is_read_a_gap_apart_and_the_last_is_shown(
    site: Site, chrome: Chrome
) -> None:
    """Six penalties in a row: the session page never starts two reads within its gap
    (300 ms), yet ends showing all six."""
    game = game_of(19, 1)
    session_id = await site.start_session(TABLE, PLAYERS)
    await site.play(TABLE, events_of(game, TABLE))
    session = await chrome.open(f"{site.url}/session.html?id={session_id}")
    await session.wait_for_selector("body:not(.is-stale) .standings")
    path = f"/api/sessions/{session_id}"
    first = await session.evaluate(LOADS, path)

    async def penalty(seat: int) -> None:
        body = {"kind": "penalty", "seat": seat, "tai": 1, "reason": f"burst {seat}"}
        response = await site.api.client.post(
            f"/api/tables/{TABLE}/rulings", json=body, headers=site.api.as_referee
        )
        assert response.status_code == 201, response.text

    for seat in range(6):  # a news every 80 ms: each while the page reads or waits
        await penalty(seat % 4)
        await asyncio.sleep(0.08)
    await session.wait_for_function(
        '() => document.querySelectorAll(".grid-table.rulings tbody tr").length === 6',
        timeout=5_000,
    )
    starts = await session.evaluate(
        """(path) => performance.getEntriesByType("resource")
          .filter((e) => new URL(e.name).pathname === path).map((e) => e.startTime)""",
        path,
    )
    burst = starts[first:]
    assert burst, starts  # the news was read
    assert all(b - a >= 295 for a, b in itertools.pairwise(burst)), burst
    assert await chrome.reported() == []


LOADS_JS = """performance.getEntriesByType("resource")
  .filter((e) => new URL(e.name).pathname === path).length"""
LOADS = "(path) => " + LOADS_JS
MOVED = """([name, before]) => {
  const sel = { table: ".board .seat .score", club: ".club-card .card-money",
    session: ".standings td.num.up, .standings td.num.down" }[name];
  const now = [...document.querySelectorAll(sel)].map((e) => e.textContent);
  return JSON.stringify(now) !== JSON.stringify(before); }"""
