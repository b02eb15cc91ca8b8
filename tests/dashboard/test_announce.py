"""語音報分: the table page calls each hand's result aloud in Mandarin when a person has
turned it on (the screen remembers), in the words a caller at a table uses: the winner,
自摸 or who let the tile go (放槍), the 台 and their items, the dealer's 台 apart (§5); a
詐胡 pays the three others; a 荒局 keeps the deal with the dealer (連莊).

The browser's speech synthesis is replaced, in the page, by one that keeps what it was
asked to say: Chromium here has no voices, and the test needs the words."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Site, needs_browser

pytestmark = needs_browser

PLAYERS = ["阿明", "Bea", "陳小華", "林美玲"]
STATE = {"players": PLAYERS, "hand": {"seats": [{"wind": w} for w in "ESWN"]}}
NO_NAMES = {"players": None, "hand": {"seats": [{"wind": w} for w in "SWNE"]}}

SAID = """async ([record, state]) => {
  const { resultSentence } = await import("/js/announce.js");
  return resultSentence(record, state); }"""

# What speechSynthesis was asked to say, kept on the page (before its scripts run).
LISTEN = """
window.__said = [];
class Utterance { constructor(text) { this.text = text; this.lang = ""; } }
window.SpeechSynthesisUtterance = Utterance;
Object.defineProperty(window, "speechSynthesis", { value: {
  speak: (u) => window.__said.push({ text: u.text, lang: u.lang }),
  cancel: () => {},
  getVoices: () => [],
} });
"""

MENTSU = {"id": "menqing", "name": "門清", "tai": 1}
SELF = {"id": "self_drawn", "name": "不求人", "tai": 1}
PINGHU = {"id": "pinghu", "name": "平胡", "tai": 2}


def record(**fields: Any) -> dict[str, Any]:
    base = {"result": "win", "kind": "discard", "seat": 0, "payer": 2, "dealer": 0,
            "tai": 0, "dealer_tai": 0, "streak": 0, "items": []}  # fmt: skip
    return base | fields


@pytest.mark.parametrize(
    ("hand", "state", "sentence"),
    [
        (
            record(seat=1, payer=2, tai=3, items=[MENTSU, PINGHU]),
            STATE,
            "Bea胡牌，陳小華放槍。三台：門清一台，平胡兩台。",
        ),
        (
            record(
                kind="self_draw", payer=None, tai=2, dealer_tai=3, streak=1, items=[MENTSU, SELF]
            ),
            STATE,
            "阿明自摸。兩台：門清一台，不求人一台；莊家連一拉一三台。",
        ),
        (
            record(result="false_win", kind="false_win", seat=3, payer=None, tai=12),
            STATE,
            "林美玲詐胡，賠三家，牌面十二台。",
        ),
        (
            record(result="drawn", kind=None, seat=None, payer=None, dealer=2),
            STATE,
            "荒局，陳小華連莊。",
        ),
        (
            record(
                kind="robbing_kong",
                seat=0,
                payer=1,
                tai=21,
                items=[{"id": "x", "name": "搶槓", "tai": 21}],
            ),
            NO_NAMES,
            "南家搶槓胡，西家付。二十一台：搶槓二十一台。",
        ),
        (
            record(result="flower_win", kind="seven_rob_one", seat=2, payer=3, tai=8),
            STATE,
            "陳小華七搶一，林美玲付。八台。",
        ),
    ],
    ids=["discard", "self_draw", "false_win", "drawn", "no_names", "seven_rob_one"],
)
async def test_each_result_is_said_as_a_caller_says_it(
    site: Site, chrome: Chrome, hand: dict[str, Any], state: dict[str, Any], sentence: str
) -> None:
    page = await chrome.open(f"{site.url}/table.html?t=s0")
    assert await page.evaluate(SAID, [hand, state]) == sentence


async def test_a_screen_turned_on_calls_the_hand_that_ends(site: Site, chrome: Chrome) -> None:
    """Off by default (a hand ends in silence); on by its button, kept across a reload;
    then the hand that ends live is called once, in zh-TW, with the stored record's
    winner, 台 and items."""
    events = events_of(game_of(hands=3), "s1")  # the third hand: the dealer self-draws
    ended = len(events) - 40
    await site.start_session("s1", PLAYERS)
    await site.play("s1", events[:ended])
    page = await chrome.open(f"{site.url}/table.html?t=s1")
    await page.add_init_script(LISTEN)
    await page.reload()
    button = page.locator("#speak")
    assert await button.get_attribute("aria-pressed") == "false"
    await button.click()
    assert await button.get_attribute("aria-pressed") == "true"
    assert await button.text_content() == "語音報分：開"
    await page.reload()  # remembered by this screen
    assert await page.locator("#speak").get_attribute("aria-pressed") == "true"

    await site.play("s1", events[ended:])
    await page.wait_for_selector(".banner-hand", timeout=10_000)
    await page.wait_for_function("() => window.__said.length > 0")
    [last] = await site.get("/api/tables/s1/hands", limit=1)
    hand = await site.get(f"/api/hands/{last['id']}")
    assert (hand["result"], hand["kind"], hand["streak"]) == ("win", "self_draw", 1)
    said = await page.evaluate("window.__said")
    assert [s["lang"] for s in said] == ["zh-TW"]
    text = said[0]["text"]
    winner = PLAYERS[hand["seat"]]
    assert text.startswith(f"{winner}自摸。{number(hand['tai'])}台：")
    for item in hand["items"]:
        assert f"{item['name']}{number(item['tai'])}台" in text
    assert text.endswith(f"；莊家連一拉一{number(hand['dealer_tai'])}台。")
    assert await chrome.reported() == []


async def test_a_screen_left_off_says_nothing(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "s2")
    await site.start_session("s2", PLAYERS)
    await site.play("s2", events[:-30])
    page = await chrome.open(f"{site.url}/table.html?t=s2")
    await page.add_init_script(LISTEN)
    await page.reload()
    await site.play("s2", events[-30:])
    await page.wait_for_selector(".banner-hand", timeout=10_000)
    assert await page.evaluate("window.__said") == []


def number(n: int) -> str:
    """A count as a caller says it (兩 for 2 alone), for n < 100."""
    digits = "零一二三四五六七八九"
    if n == 2:
        return "兩"
    if n < 10:
        return digits[n]
    tens, ones = divmod(n, 10)
    return f"{digits[tens] if tens > 1 else ''}十{digits[ones] if ones else ''}"
