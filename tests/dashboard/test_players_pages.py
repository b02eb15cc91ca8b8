"""The players' pages in Chromium against the real service: the leaderboard ranks the
club's players by the figure chosen (as their figures over the API say), and a player's
page shows every figure of theirs, the violations by their rulebook names, on a phone
without anything wider than the screen."""

from __future__ import annotations

from typing import Any

from table_sim.recording import record_game
from table_sim.violations import Violations
from tests.api.kit import timed_events
from tests.dashboard.kit import PHONE, Chrome, Site, needs_browser, snap

pytestmark = needs_browser

NAMES = ["阿明", "Bea", "陳小華", "林志玲"]


def money(n: int) -> str:
    """As the pages write money (i18n.js)."""
    return f"+{n:,}" if n > 0 else f"−{-n:,}" if n < 0 else "0"


async def test_the_leaderboard_and_a_players_page(site: Site, chrome: Chrome) -> None:
    ids = []
    for name in NAMES:
        response = await site.api.client.post(
            "/api/players", json={"name": name}, headers=site.api.as_admin
        )
        assert response.status_code == 201, response.text
        ids.append(response.json()["id"])
    await site.start_session("p1", NAMES, player_ids=ids)
    await site.play("p1", timed_events(record_game(3, 10, violations=Violations(0.03)), "p1"))
    stats: dict[int, Any] = {i: await site.get(f"/api/players/{i}/stats") for i in ids}
    by_net = sorted(ids, key=lambda i: (-stats[i]["net"], NAMES[ids.index(i)]))

    page = await chrome.open(f"{site.url}/players.html")
    await page.wait_for_selector(".leaderboard tbody tr")
    rows = await page.locator(".leaderboard tbody tr").all_inner_texts()
    assert [r.split("\t")[1] for r in rows] == [NAMES[ids.index(i)] for i in by_net]
    assert [r.split("\t")[2] for r in rows] == [money(stats[i]["net"]) for i in by_net]
    await page.select_option("select[name=figure]", "wins")
    most = max(stats[i]["wins"] for i in ids)
    first = "document.querySelector('.leaderboard tbody td:nth-child(3)')?.textContent"
    await page.wait_for_function(f"() => {first} === '{most}'")
    assert await page.text_content(".leaderboard th:nth-child(3)") == "胡牌"
    await page.fill("input[name=min_hands]", "11")  # ten hands each: nobody
    await page.press("input[name=min_hands]", "Enter")
    await page.wait_for_selector("#board p.muted")
    assert await page.locator(".player-list a").count() == 4
    await page.fill("input[name=min_hands]", "0")
    await page.press("input[name=min_hands]", "Enter")
    await page.wait_for_selector(".leaderboard tbody tr")
    assert await page.get_attribute("#csv", "href") == "/api/players.csv"
    await snap(page, "players")

    # A player's page: every figure as the API gives it
    top = by_net[0]
    await page.click(f'.player-list a[href="player.html?id={top}"]')
    await page.wait_for_selector(".figure")
    assert (await page.text_content("#name") or "").startswith(NAMES[ids.index(top)])
    figure = page.locator('.figure[data-figure="net"] .figure-value')
    assert await figure.text_content() == money(stats[top]["net"])
    for key in ("hands", "wins", "self_draws", "deal_ins", "false_wins", "dealer_hands"):
        shown = page.locator(f'.figure[data-figure="{key}"] .figure-value')
        assert await shown.text_content() == str(stats[top][key]), key
    await page.wait_for_selector("#net-chart canvas")
    legend = await page.text_content("#net-chart .u-legend") or ""
    assert "累計輸贏" in legend
    assert await page.locator("#tai-chart canvas").count() == 1
    # What only the sensors saw: readiness, pace, and the wait of each win
    for key, text in (("ready_rate", f"{stats[top]['ready_rate'] * 100:.1f}%"),
                      ("seconds_per_turn", f"{stats[top]['seconds_per_turn']:.1f} 秒"),
                      ("sensed_hands", "10")):  # fmt: skip
        shown = page.locator(f'#sensed .figure[data-figure="{key}"] .figure-value')
        assert await shown.text_content() == text, key
    waits = await page.eval_on_selector_all(
        ".player-waits li", "ls => ls.map(l => [l.dataset.wait, l.textContent])"
    )
    assert {w: int(t.rsplit("× ", 1)[1]) for w, t in waits} == stats[top]["wait_shapes"]
    await snap(page, "player")
    offender = next((i for i in ids if stats[i]["violations"]), None)
    assert offender is not None, "the game has violations"
    view = await chrome.open(f"{site.url}/player.html?id={offender}", viewport=PHONE)
    await view.wait_for_selector(".player-violations li")
    codes = await view.eval_on_selector_all(
        ".player-violations li", "ls => ls.map(l => l.dataset.code)"
    )
    assert sorted(codes) == sorted(stats[offender]["violations"])
    text = await view.text_content(".player-violations") or ""
    assert not any(code in text for code in codes)  # named in words, not by code
    wide = await view.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, wide
    missing = await chrome.open(f"{site.url}/player.html?id=999999")
    await missing.wait_for_selector("#figures p.muted")
    assert "999999" in (await missing.text_content("#figures") or "")
    assert await chrome.reported(ignore=["status of 404"]) == []
