"""Sitting down in Chromium against the real service: before the session's first shuffle
the TV shows a QR code per seat; a player opens the seat's page on a phone, finds their
name and takes the seat; the TV shows them there at once; the scan used once is refused
the second time; at the first shuffle the codes leave the TV and the phone says the seats
stand."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import PHONE, Chrome, Site, needs_browser, snap

pytestmark = needs_browser


def seat_url(site: Site, table: str, seat: int) -> str:
    """The address the seat's QR carries (tests/api/test_seats.py checks the QR itself)."""
    runner = site.api.service.runner(table)
    assert runner is not None
    code = runner.seat_code(seat)
    assert code is not None
    return f"{site.url}/sit.html?" + urlencode({"table": table, "seat": seat, "code": code})


async def test_a_player_takes_a_seat_from_the_tvs_code(site: Site, chrome: Chrome) -> None:
    added = await site.api.client.post(
        "/api/players", json={"name": "阿明", "nickname": "Ming"}, headers=site.api.as_admin
    )
    assert added.status_code == 201
    await site.start_session("q1", ["0", "1", "2", "3"])
    tv = await chrome.open(f"{site.url}/table.html?t=q1")
    await tv.wait_for_selector("#seating:not([hidden]) .seating-seat img")
    assert await tv.locator(".seating-seat img").count() == 4
    await tv.wait_for_function(
        "() => [...document.querySelectorAll('.seating-seat img')]"
        ".every((img) => img.complete && img.naturalWidth > 0)"
    )  # each QR is an image the service drew
    assert await tv.locator(".seating-name").all_inner_texts() == ["0", "1", "2", "3"]

    url = seat_url(site, "q1", 1)
    phone = await chrome.open(url, viewport=PHONE)
    await phone.wait_for_selector(".sit-player")
    assert await phone.text_content("#where") == "q1 號桌 · 1號位"
    await phone.fill("input[type=search]", "min")  # the nickname finds him too
    assert await phone.locator(".sit-player").all_inner_texts() == ["阿明 (Ming)"]
    await snap(phone, "sit-phone")
    await phone.click(".sit-player")
    await phone.wait_for_function(
        "() => document.querySelector('#status').textContent === '阿明 已坐在1號位'"
    )
    await tv.wait_for_function(
        "() => document.querySelectorAll('.seating-name')[1]?.textContent === '阿明'"
    )
    await snap(tv, "sit-tv")
    seats = await site.get("/api/tables/q1/seats")
    assert seats["seats"][1]["name"] == "阿明" and seats["seats"][1]["player_id"]

    again = await chrome.open(url, viewport=PHONE)  # the same scan, used already
    await again.wait_for_selector("form.sit-guest")
    await again.fill("form.sit-guest input[name=name]", "Visitor")
    await again.click("form.sit-guest button")
    await again.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('重新掃描')"
    )
    assert (await site.get("/api/tables/q1/seats"))["seats"][1]["name"] == "阿明"

    # the first shuffle: the codes leave the TV, the phone says the seats stand
    events = events_of(game_of(), "q1")
    shuffle = next(i for i, e in enumerate(events) if e.body.kind == "shuffle_started") + 1
    await site.play("q1", events[:shuffle])
    await tv.wait_for_selector("#seating", state="hidden")
    await again.reload()
    await again.wait_for_function(
        "() => document.querySelector('#status').textContent.includes('座位不能再換')"
    )
    assert await chrome.reported(ignore=["status of 403"]) == []  # the used scan's answer
