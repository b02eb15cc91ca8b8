"""An 暗槓 on the scoreboard (`table.html`), in Chromium against the real service: while the
hand is played the page draws it as four face-down tiles and no face of it anywhere (the
public state has its kind alone, live over the WebSocket and on a fresh load); the hand's
end turns it up.

The events are a scripted hand (tests/mirror/kit_script.py) published by the stand-in bridge:
seat 1 draws the fourth 3p, kongs it concealed, and wins on the replacement."""

from __future__ import annotations

from typing import Any

from tests.dashboard.kit import Chrome, Site, needs_browser
from tests.mirror.kit_script import Script, quiet

pytestmark = needs_browser

TABLE = "k1"
KONG_E = "3p 3p 3p 2m 3m 4m 6m 7m 8m 2s 3s 4s 7p 8p E E"  # seat 1: waits 6p 9p, a 3p triplet
LIVE = "body:not(.is-stale) .board .center"

KONG = """() => [...document.querySelectorAll(
  '.board .seat[data-seat="1"] .meld--kong_concealed svg.tile')].map((t) => t.dataset.code)"""
KONG_IS = f"""(codes) => {{ const seen = ({KONG})();
  return seen.length === codes.length && seen.every((c, i) => c === codes[i]); }}"""
# Every tile face the page draws of the 暗槓's kind (the board, banners, toasts).
FACES_OF = """(code) => document.querySelectorAll(`svg.tile[data-code="${code}"]`).length"""


async def test_a_concealed_kong_is_drawn_face_down_until_the_hand_ends(
    site: Site, chrome: Chrome
) -> None:
    await site.start_session(TABLE, ["東家", "南家", "西家", "北家"])
    t = Script(quiet({1: KONG_E}, extra="7p"), table=TABLE)
    t.discard(0, "7p")
    await site.play(TABLE, t.events)
    page = await chrome.open(f"{site.url}/table.html?t={TABLE}")
    await page.wait_for_selector(LIVE)

    sent = len(t.events)
    t.draw(1, "3p")
    t.kong(1, "3p", "concealed")
    t.replacement(1, "9p")
    await site.play(TABLE, t.events[sent:])  # live: the state comes over the WebSocket
    await page.wait_for_function(KONG_IS, arg=["back"] * 4)
    assert await page.evaluate(FACES_OF, "3p") == 0

    state: Any = await site.get(f"/api/tables/{TABLE}")
    assert state["hand"]["phase"] == "play"
    assert state["hand"]["seats"][1]["melds"] == [{"kind": "kong_concealed"}]

    await page.reload()  # a fresh load: the snapshot on connect
    await page.wait_for_selector(LIVE)
    await page.wait_for_function(KONG_IS, arg=["back"] * 4)
    assert await page.evaluate(FACES_OF, "3p") == 0

    sent = len(t.events)
    t.win(1)  # 槓上開花: the hand is over
    await site.play(TABLE, t.events[sent:])
    await page.wait_for_function(KONG_IS, arg=["back", "3p", "3p", "back"])
    state = await site.get(f"/api/tables/{TABLE}")
    assert state["hand"]["phase"] == "over"
    (meld,) = state["hand"]["seats"][1]["melds"]
    assert meld["tiles"] == ["3p"] * 4
    assert await chrome.reported() == []
