"""Every page audited with axe-core in Chromium, on a TV (1920×1080) and a phone (390×844),
with the system asking for a dark and for a light scheme: no serious or critical
violation (colour contrast, names of controls, table headers, …). The pages are audited
with what a club's evening puts on them: a session under way with its hands and
violations, the referee's desk and the admin's form holding a token, their rows drawn."""

from __future__ import annotations

from typing import Any

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import HD, PHONE, Chrome, Site, keep_token, needs_browser

try:
    from axe_playwright_python.async_playwright import Axe
except ImportError:  # a machine without the test extras: needs_browser skips first
    Axe = None  # type: ignore[assignment,misc]

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林美玲"]
SERIOUS = ("serious", "critical")


def pages(site: Site, session_id: int, player_id: int) -> list[tuple[str, str, str, str | None]]:
    """(name, address, what shows it is drawn, the token the page keeps or None)."""
    return [
        ("table", "/table.html?t=a1", "body:not(.is-stale) .board .center", None),
        ("club", "/", ".club-card", None),
        ("session", f"/session.html?id={session_id}", "table.hands", None),
        ("sessions", "/session.html", "a[href*='session.html?id=']", None),
        ("referee", "/referee.html", "#violations tr.violation-row .btn--dismiss",
         site.api.referee),
        ("admin", "/admin.html?t=a1", ".admin-tables tr[data-table='a1']", site.api.admin),
        ("players", "/players.html", ".leaderboard tbody tr", None),
        ("player", f"/player.html?id={player_id}", ".figure", None),
        # a2's session waits for its first shuffle: the TV's codes, a player's phone
        ("seating", "/table.html?t=a2", "#seating:not([hidden]) .seating-seat img", None),
        ("sit", f"/sit.html?table=a2&seat=1&code={seat_code(site, 'a2', 1)}", ".sit-player",
         None),
    ]  # fmt: skip


def seat_code(site: Site, table: str, seat: int) -> str:
    runner = site.api.service.runner(table)
    code = runner.seat_code(seat) if runner is not None else None
    assert code is not None, f"{table} has no session waiting for players"
    return code


def found(results: Any) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at "
        + "; ".join(", ".join(n["target"]) for n in v["nodes"][:4])
        for v in results.response["violations"]
        if v["impact"] in SERIOUS
    ]


async def test_no_page_has_a_serious_accessibility_violation(site: Site, chrome: Chrome) -> None:
    assert Axe is not None, "axe-playwright-python is in the test extras"
    events = events_of(game_of(hands=4), "a1")
    response = await site.api.client.post(
        "/api/players", json={"name": PLAYERS[0]}, headers=site.api.as_admin
    )
    assert response.status_code == 201, response.text
    player_id = response.json()["id"]
    session_id = await site.start_session("a1", PLAYERS, player_ids=[player_id, None, None, None])
    await site.play("a1", events[:-20])  # three hands over, the fourth under way
    await site.start_session("a2", ["甲", "乙", "丙", "丁"])
    assert await site.get("/api/violations", table="a1"), "the game has violations to show"
    axe = Axe()
    problems: list[str] = []
    for name, address, drawn, token in pages(site, session_id, player_id):
        for viewport in (HD, PHONE):
            page = await chrome.open(f"{site.url}{address}", viewport=viewport)
            if token is not None:  # the tab's kept token (api.js tokenStore)
                key = "mjtable.token" if name == "referee" else "mjtable.admin.token"
                await keep_token(page, key, token)
            await page.wait_for_selector(drawn, timeout=15_000)
            for scheme in ("dark", "light"):
                await page.emulate_media(color_scheme=scheme)
                where = f"{name} {viewport['width']}×{viewport['height']} {scheme}"
                problems += [f"{where}: {p}" for p in found(await axe.run(page))]
            await page.close()
    assert problems == []
    assert await chrome.reported() == []
