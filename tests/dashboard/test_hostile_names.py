"""Hostile player names in Chromium against the real service (README, "The dashboard":
names are text, never HTML): a session started
through the API with names that are markup; every page shows them as text (visible,
character for character), runs none of them (`window.__pwned` stays undefined, no element
they would make exists) and meets no CSP violation and no console error."""

from __future__ import annotations

from typing import Any

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Site, needs_browser

pytestmark = needs_browser

HOSTILE = [
    "<img src=x onerror=window.__pwned=1>",
    "<script>window.__pwned=2</script>",
    '"><svg onload=window.__pwned=3>',
    "<iframe srcdoc='<script>parent.__pwned=4</script>'></iframe>",
]
# What any of them would have made, had it been parsed as markup.
INJECTED = """() => document.querySelectorAll(
  'img[src="x"], iframe, svg[onload], [onerror], script:not([src])').length"""


async def test_hostile_names_are_shown_as_text(site: Site, chrome: Chrome) -> None:
    game = game_of(hands=2)  # the first hand: seat 1 self-draws (three payments), breaches
    events = events_of(game, "x1")
    session_id = await site.start_session("x1", HOSTILE)
    await site.play("x1", events[: len(game[0].events)])
    assert await site.get("/api/violations", status="open"), "no violation to show"

    async def check(page: Any, names: list[str]) -> None:
        assert await page.evaluate("typeof window.__pwned") == "undefined"
        assert await page.evaluate(INJECTED) == 0
        for name in names:
            assert await page.get_by_text(name, exact=True).first.is_visible(), name

    # The scoreboard, opened after the hand: its banner, the names in its payments too.
    table = await chrome.open(f"{site.url}/table.html?t=x1")
    await table.wait_for_selector("body:not(.is-stale) .banner-hand .payment")
    await check(table, HOSTILE)
    payments = await table.locator(".banner-hand .pay-who").all_text_contents()
    assert payments == [f"{HOSTILE[p]} → {HOSTILE[1]}" for p in (0, 2, 3)], payments
    await site.play("x1", events[len(game[0].events) : len(game[0].events) + 200])  # live
    await table.wait_for_selector(".board .river svg.tile", timeout=5_000)
    await check(table, HOSTILE)

    club = await chrome.open(f"{site.url}/index.html")
    await club.wait_for_selector("body:not(.is-stale) .club-card")
    await check(club, [HOSTILE[1]])  # the leader (and the dealer's name on the card)

    session = await chrome.open(f"{site.url}/session.html?id={session_id}")
    await session.wait_for_selector("body:not(.is-stale) #chart .u-legend")
    await session.wait_for_selector(".hands .btn")
    await check(session, HOSTILE)  # the players, the standings, the chart's legend
    await session.click(".hands .btn")  # the hand stepped through: its board has them too
    await session.wait_for_selector(".stepper .board")
    await session.keyboard.press("End")
    names = await session.locator(".stepper .seat-name").all_text_contents()
    assert sorted(names) == sorted(HOSTILE)
    await check(session, [])

    referee = await chrome.open(f"{site.url}/referee.html")
    await referee.wait_for_selector("body:not(.is-stale) .correction-form")
    await referee.wait_for_function(  # the open violations, each with its offender's name
        "(names) => [...document.querySelectorAll('td.who')].some("
        "(td) => names.some((n) => td.textContent.includes(n)))",
        arg=HOSTILE,
        timeout=5_000,
    )
    await check(referee, [])

    await table.wait_for_timeout(200)  # a late violation report would still be counted
    for page in (table, club, session, referee):
        assert await page.evaluate("typeof window.__pwned") == "undefined"
    assert await chrome.reported() == []
