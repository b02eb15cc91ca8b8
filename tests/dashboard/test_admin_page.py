"""The admin's session form (`admin.html`) in Chromium against the real service: without a
token the page is read only and says so; with the admin's token pasted it starts a session
at a table that plays without one of an admin's (asked for during a hand, it begins at the
next shuffle, the deal left to the table: where the hand under way left its dealer, streak
and round, the start seat the table's), shows the service's
own error for a bad body and starts nothing, keeps what was typed while the table plays on
(the page is live), and ends the session after asking (the table then has none). The
pages' links stay on a phone.

A game of seed 19 (tests/api/kit.py): its first hand is played to its end and the second
one begun, so a hand is under way when the page opens; the third hand is the session's.
"""

from __future__ import annotations

import json
from typing import Any

from table_service.rules.profile import load_preset
from tests.api.kit import events_of, game_of
from tests.dashboard.kit import PHONE, Chrome, Site, needs_browser, snap

pytestmark = needs_browser

TABLE = "M1"
PLAYERS = ["阿明", "Bea", "<b>陳小華</b>", "林志玲"]
DEAL = ("dealer", "streak", "round_wind", "start_seat")
SEATED = """([seat, name]) =>
  document.querySelector(`.seat-row[data-seat="${seat}"] strong`)?.textContent === name"""


async def table_state(site: Site) -> dict[str, Any]:
    return dict(await site.get(f"/api/tables/{TABLE}"))


async def test_the_admin_starts_and_ends_a_session(site: Site, chrome: Chrome) -> None:
    game = game_of(19, 3)
    events = events_of(game, TABLE)
    first = len(game[0].events)
    second = first + len(game[1].events)
    await site.play(TABLE, events[: first + 40])  # hand 1 over, hand 2 under way
    before = await table_state(site)
    default_session = before["session_id"]  # the table's own, of no players
    assert before["hand"] is not None

    # No token: read only, and it says so
    page = await chrome.open(f"{site.url}/admin.html")
    await page.wait_for_selector("body:not(.is-stale) .admin-form")
    await page.wait_for_selector(f'.admin-tables tr[data-table="{TABLE}"]')
    assert await page.locator(".read-only-note").is_visible()
    assert await page.locator("input[name=player0]").is_disabled()  # the fieldset
    assert await page.locator(".btn--end").is_disabled()
    assert await page.locator(".mid-hand--now").is_visible()  # a hand is under way
    # The table's deal is what will be used: shown, the fields not sent
    deal_line = await page.text_content(".deal-table") or ""
    assert f"{before['streak']}" in deal_line and f"{before['start_seat']}號位" in deal_line
    assert await page.locator("select[name=dealer]").is_disabled()
    assert await page.input_value("select[name=dealer]") == str(before["dealer"])
    assert await page.input_value("select[name=round_wind]") == before["round_wind"]

    # The admin's token pasted: the form is live
    await page.fill("input[name=token]", site.api.admin)
    await page.click(".token-form button[type=submit]")
    await page.wait_for_selector(".token-state--set")
    assert not await page.locator(".read-only-note").is_visible()
    assert await page.locator("input[name=player0]").is_enabled()

    # A bad body (a player with no name), typed while the table plays on: the service's
    # words by the form, nothing started, nothing typed lost
    for seat in (0, 2, 3):
        await page.fill(f"input[name=player{seat}]", PLAYERS[seat])
    await page.fill("input[name=base]", "50")
    await page.click("input[name=player1]")
    await page.keyboard.type("  ")  # blank: trimmed to no name
    await site.play(TABLE, events[first + 40 : first + 200])  # news while the cursor is in
    await page.wait_for_timeout(400)
    assert await page.evaluate("() => document.activeElement.name") == "player1"
    assert await page.input_value("input[name=player0]") == PLAYERS[0]
    assert await page.input_value("input[name=base]") == "50"
    await page.click(".admin-form button[type=submit]")
    await page.wait_for_selector("#message.message--error")
    bad = {"players": [PLAYERS[0], "", PLAYERS[2], PLAYERS[3]], "base": 50, "per_tai": 20}
    response = await site.api.client.post(
        f"/api/tables/{TABLE}/session", json={**bad, "profile": "mjonline"},
        headers=site.api.as_admin,
    )  # fmt: skip
    assert response.status_code == 422, response.text
    said = await page.text_content("#message") or ""
    assert response.json()["error"] in said, said
    assert (await table_state(site))["session_id"] == default_session  # nothing started
    assert await page.input_value("input[name=player2]") == PLAYERS[2]

    # Four names, the deal left to the table, a hand under way: the session begins with
    # the next hand, where this one leaves the deal
    before = await table_state(site)
    assert before["hand"]["phase"] == "play"
    await page.fill("input[name=player1]", PLAYERS[1])
    await page.click(".admin-form button[type=submit]")
    await page.wait_for_selector("#message.message--ok a")
    assert "下一局" in (await page.text_content("#message") or "")
    link = await page.get_attribute("#message a", "href") or ""
    assert link.startswith("session.html?id=")
    started = int(link.split("=")[1])
    assert started != default_session
    await page.locator(f'#current .session-next a[href="session.html?id={started}"]').wait_for()
    assert (await table_state(site))["session_id"] == default_session  # until the shuffle
    await site.play(TABLE, events[first + 200 : second + 1])  # hand 2 over, hand 3 shuffled
    assert (await table_state(site))["session_id"] == started
    runs = page.locator(f'#current .session-status--runs a[href="session.html?id={started}"]')
    await runs.wait_for()
    assert await page.locator("#current .session-next").count() == 0
    hand_2 = (await site.get(f"/api/tables/{TABLE}/hands"))[0]
    assert hand_2["session_id"] == default_session and hand_2["hand_no"] == 2
    session = (await site.get(f"/api/sessions/{started}"))["session"]
    assert session["players"] == PLAYERS and session["base"] == 50 and session["per_tai"] == 20
    assert session["profile_label"] == "mjonline"
    assert session["start_seat"] == before["start_seat"]
    assert session["dealer"] is None  # no hand of its own yet: the table's, when it has one
    row = page.locator(f'.admin-tables tr[data-table="{TABLE}"]')
    await row.locator(f'a[href="session.html?id={started}"]').wait_for()
    players = await row.locator(".admin-players").text_content() or ""
    assert PLAYERS[2] in players  # a name with markup is its characters
    assert await page.locator(".admin-tables b").count() == 0
    await page.locator(f'#current a[href="session.html?id={started}"]').wait_for()
    await snap(page, "admin-started")

    # Both languages
    await page.click("#lang")
    await page.wait_for_function("() => document.title.startsWith('Sessions (admin)')")
    assert await page.text_content(".admin-form button[type=submit]") == "Start session"
    assert await page.input_value("input[name=player3]") == PLAYERS[3]
    await page.click("#lang")
    await page.wait_for_function("() => document.title.startsWith('場次管理')")

    # Ended after asking: the table has no session, and the service invents none
    await page.click(".btn--end")
    await page.wait_for_selector(".confirm-end")
    await page.click(".btn--end-no")  # not this time
    assert await page.locator(".confirm-end").count() == 0
    assert (await table_state(site))["session_id"] == started
    await page.click(".btn--end")
    await snap(page, "admin-ending")
    await page.click(".btn--end-yes")
    await page.wait_for_selector(".session-status--none")
    assert (await table_state(site))["session_id"] is None
    await row.locator(".no-session").wait_for()
    await site.play(TABLE, events[second + 1 :])  # played on: judged, stored, no session
    await page.wait_for_timeout(400)
    assert (await table_state(site))["session_id"] is None
    assert await page.locator(".session-status--none").is_visible()

    # On a phone: the pages' links are there, nothing wider than the screen
    phone = await chrome.open(f"{site.url}/admin.html?t={TABLE}", viewport=PHONE)
    await phone.wait_for_selector("body:not(.is-stale) .admin-form")
    await phone.wait_for_selector(".session-status--none")
    assert await phone.locator('.topbar nav a[href="referee.html"]').is_visible()
    assert await phone.locator('.topbar nav a[href="admin.html"]').is_visible()
    wide = await phone.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, wide
    await snap(phone, "admin-none")
    club = await chrome.open(f"{site.url}/", viewport=PHONE)
    await club.wait_for_selector(".club-card")
    assert await club.locator('.topbar nav a[href="admin.html"]').is_visible()
    # The browser logs the refused body's 422 itself; nothing else went wrong
    assert await chrome.reported(ignore=["status of 422"]) == []


async def test_the_admin_changes_the_rules_a_session_is_scored_by(
    site: Site, chrome: Chrome
) -> None:
    """The rules under the preset: every §7 choice and 台 value starts at the chosen
    preset's, what the admin changes is counted and sent as changes to that preset, and
    the session page names the switches in words."""
    game = game_of(19, 1)
    await site.play(TABLE, events_of(game, TABLE))  # one hand, over: a session starts at once
    listed = []  # two of the four are the club's players: the form offers them
    for name in PLAYERS[:2]:
        response = await site.api.client.post(
            "/api/players", json={"name": name}, headers=site.api.as_admin
        )
        assert response.status_code == 201, response.text
        listed.append(response.json()["id"])
    page = await chrome.open(f"{site.url}/admin.html?t={TABLE}")
    await page.wait_for_selector("body:not(.is-stale) .admin-rules")
    await page.fill("input[name=token]", site.api.admin)
    await page.click(".token-form button[type=submit]")
    await page.wait_for_selector(".token-state--set")
    offered = await page.eval_on_selector_all(
        "#listed-players option", "os => os.map(o => o.value)"
    )
    assert sorted(offered) == sorted(PLAYERS[:2])
    for seat, name in enumerate(PLAYERS):
        await page.fill(f"input[name=player{seat}]", name)
    await page.click(".admin-rules summary")
    assert await page.input_value("input[name='tai.earthly_ready']") == "4"  # mjonline's
    await page.select_option("select[name=profile]", "seed001")
    assert await page.input_value("input[name='tai.earthly_ready']") == "6"  # seed001's
    assert "與預設相同" in (await page.text_content(".rules-changed") or "")
    label = page.locator("label.check", has_text="過水後自摸有效")
    await label.locator("input").check()
    await page.select_option("select[name='rules.ping_hu_wait']", "two_sided_tile")
    await page.fill("input[name='tai.full_flush']", "8")
    await page.wait_for_function(
        "() => document.querySelector('.rules-changed').textContent.includes('3 項')"
    )
    assert await page.locator(".admin-rules .is-changed").count() == 3
    await snap(page, "admin-rules")
    posted = page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/session"))
    async with posted as request:
        await page.click(".admin-form button[type=submit]")
    assert json.loads((await request.value).post_data or "")["profile"] == {
        "preset": "seed001",
        "rules": {"pass_water_self_draw": True, "ping_hu_wait": "two_sided_tile"},
        "tai": {"full_flush": 8},
    }  # the changes alone: the preset gives the rest
    await page.wait_for_selector("#message.message--ok a")
    link = await page.get_attribute("#message a", "href") or ""
    started = int(link.split("=")[1])
    assert (await table_state(site))["session_id"] == started
    session = (await site.get(f"/api/sessions/{started}"))["session"]
    assert session["player_ids"] == [*listed, None, None]  # the others are guests
    assert session["profile"]["preset"] == "seed001"
    assert session["profile_label"] == "seed001 (changed)"
    expected = load_preset("seed001").to_mapping()  # the preset, and the three changes
    expected["rules"] |= {"pass_water_self_draw": True, "ping_hu_wait": "two_sided_tile"}
    expected["tai"] |= {"full_flush": 8}
    played = session["rules"]
    assert {k: played[k] for k in ("seat_order", "tai", "rules")} == {
        k: expected[k] for k in ("seat_order", "tai", "rules")
    }

    # The session page names each switch and its value in words
    view = await chrome.open(f"{site.url}/session.html?id={started}")
    await view.wait_for_selector(".session-rules")
    await view.click(".session-rules summary")
    row = view.locator(".rules-table tr", has_text="過水後自摸有效")
    assert (await row.locator("td").text_content()) == "是"
    wait = view.locator(".rules-table tr", has_text="平胡的聽牌條件")
    assert (await wait.locator("td").text_content()) == "胡牌張是兩面順子的外張"
    assert await chrome.reported() == []


async def test_the_admin_seats_players_by_hand_before_the_first_shuffle(
    site: Site, chrome: Chrome
) -> None:
    """A session waiting for its first shuffle: the admin's page lists its seats, and a name
    typed at a seat seats that player of the club's list (any other name: a guest); once
    the shuffle comes the seats leave the page."""
    response = await site.api.client.post(
        "/api/players", json={"name": "阿明"}, headers=site.api.as_admin
    )
    assert response.status_code == 201, response.text
    ming = response.json()["id"]
    await site.start_session(TABLE, ["0", "1", "2", "3"])
    page = await chrome.open(f"{site.url}/admin.html?t={TABLE}")
    await page.fill("input[name=token]", site.api.admin)
    await page.click(".token-form button[type=submit]")
    await page.wait_for_selector(".admin-seating .seat-row button:not([disabled])")
    assert await page.locator(".admin-seating .seat-row").count() == 4
    await page.fill('.seat-row[data-seat="2"] input[name=name]', "阿明")
    await page.click('.seat-row[data-seat="2"] button')
    await page.wait_for_function(SEATED, arg=[2, "阿明"])
    await page.fill('.seat-row[data-seat="0"] input[name=name]', "Visitor")
    await page.click('.seat-row[data-seat="0"] button')
    await page.wait_for_function(SEATED, arg=[0, "Visitor"])
    await snap(page, "admin-seats")
    seats = (await site.get(f"/api/tables/{TABLE}/seats"))["seats"]
    assert [(s["name"], s["player_id"]) for s in seats] == [
        ("Visitor", None), ("1", None), ("阿明", ming), ("3", None)
    ]  # fmt: skip
    events = events_of(game_of(19, 1), TABLE)
    shuffle = next(i for i, e in enumerate(events) if e.body.kind == "shuffle_started") + 1
    await site.play(TABLE, events[:shuffle])
    await page.wait_for_selector(".admin-seating", state="detached")
    assert await chrome.reported() == []
