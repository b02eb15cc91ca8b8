"""The dashboard knows no rule of its own (README of dashboard/, "The scoreboard"): the rules'
words come from GET /api/vocabulary (the rulebook) and who may claim what from the public
state (`hand.claimable.claims`). In Chromium against the real service: the claim chips are
the state's claims by the rulebook's names, in both languages, and they follow the state
when the next seat draws; the referee's desk names a violation as the rulebook does. And no
script of the dashboard carries a violation or fault code's words, or a claim rule."""

from __future__ import annotations

import re
from typing import Any

from dashboard import STATIC
from table_service.mirror.records import FAULT_CODES, VIOLATION_CODES
from table_service.rules.rulebook import BY_CODE, CLAIMS
from tests.api.kit import events_of, game_of
from tests.dashboard.kit import Chrome, Site, needs_browser

CLAIM_CHIPS = """() => [0, 1, 2, 3].map((s) => document.querySelector(
  `.board .seat[data-seat="${s}"] .chip--claim`)?.textContent ?? null)"""
SAME = f"(want) => JSON.stringify(({CLAIM_CHIPS})()) === JSON.stringify(want)"
# Codes that are also words of the dashboard's own (a state field, a hand's result).
SHARED = {"passed_win", "false_win", "impossible", "gap", "conflict"}


def test_no_script_carries_rule_words_of_its_own() -> None:
    """The codes appear in no script (the vocabulary names them), nor a claim rule."""
    scripts = {p.name: p.read_text(encoding="utf-8") for p in (STATIC / "js").glob("*.js")}
    for code in (*VIOLATION_CODES, *FAULT_CODES):
        if code in SHARED:
            continue
        found = [name for name, text in scripts.items() if re.search(rf"\b{code}\b", text)]
        assert found == [], (code, found)
    for name, text in scripts.items():
        assert "winOnly" not in text and "drawable ?? 99" not in text, name
        assert not re.search(r"export const (VIOLATIONS|FAULTS|ITEMS)\b", text), name
    assert "/api/vocabulary" in scripts["vocabulary.js"]


def chips(state: dict[str, Any], lang: str) -> list[str | None]:
    """What each seat's claim chip must say, from the state's claims and the rulebook."""
    names = {c.id: (c.zh if lang == "zh" else c.en) for c in CLAIMS}
    out: list[str | None] = []
    for claims in state["hand"]["claimable"]["claims"]:
        words = ("・" if lang == "zh" else "/").join(names[c] for c in claims)
        out.append(None if not claims else (f"可{words}" if lang == "zh" else f"may {words}"))
    return out


@needs_browser[0]
@needs_browser[1]
async def test_the_claim_chips_are_the_states(site: Site, chrome: Chrome) -> None:
    events = events_of(game_of(hands=1), "c1")
    kinds = [e.body.kind for e in events]
    await site.start_session("c1", ["阿明", "Bea", "陳小華", "林美玲"])
    suited = [
        i for i, e in enumerate(events) if e.body.kind == "tile_discarded" and e.body.tile < 108
    ]
    at = next(i for i in suited if i > 120)  # a suited tile: its 下家 may 吃 it
    await site.play("c1", events[: at + 1])
    page = await chrome.open(f"{site.url}/table.html?t=c1")
    await page.wait_for_selector("body:not(.is-stale) .center-claim")

    state = await site.get("/api/tables/c1")
    open_ = state["hand"]["claimable"]
    assert open_["claims"][open_["from_seat"]] == []
    assert sum(1 for c in open_["claims"] if "chow" in c) == 1  # the 下家 alone
    await page.wait_for_function(SAME, arg=chips(state, "zh"))  # once the vocabulary is in
    assert await page.evaluate(CLAIM_CHIPS) == chips(state, "zh")
    await page.click("#lang")
    await page.wait_for_function(SAME, arg=chips(state, "en"))

    # The next seat draws: a 吃, 碰 or 槓 is late (D3); the others may still win on it.
    drew = next(i for i in range(at + 1, len(events)) if kinds[i] == "tile_drawn")
    await site.play("c1", events[at + 1 : drew + 1])
    state = await site.get("/api/tables/c1")
    claims = state["hand"]["claimable"]["claims"]
    assert all(c in ([], ["win"]) for c in claims), claims
    await page.wait_for_function(SAME, arg=chips(state, "en"))
    assert await chrome.reported() == []


@needs_browser[0]
@needs_browser[1]
async def test_the_referee_desk_names_a_violation_as_the_rulebook(
    site: Site, chrome: Chrome
) -> None:
    game = game_of(hands=2)
    await site.play("v1", events_of(game, "v1")[: len(game[0].events)])
    open_ = await site.get("/api/violations", status="open")
    assert open_, "no violation to show"
    rule = BY_CODE[open_[0]["code"]]
    referee = await chrome.open(f"{site.url}/referee.html")
    await referee.wait_for_selector("body:not(.is-stale) td.rule strong")
    titles = await referee.locator("td.rule strong").all_text_contents()
    assert rule.zh in titles, titles
    assert (
        rule.zh_meaning
        in (await referee.locator("td.rule").all_text_contents())[titles.index(rule.zh)]
    )
    await referee.click("#lang")
    await referee.wait_for_function(
        "(name) => [...document.querySelectorAll('td.rule strong')].some("
        "(s) => s.textContent === name)",
        arg=rule.en,
    )
    assert await chrome.reported() == []
