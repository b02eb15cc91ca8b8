"""Every violation's `detail`, the referee's sentence, across the whole rulebook suite: each
one reads as its code's sentence (the seat, the tile and the rule named; the English the
desk and replay show beside the rulebook's words), and each sentence is said somewhere."""

from __future__ import annotations

import re
from collections import defaultdict

from table_service.mirror.records import Violation
from tests.mirror import kit_rulebook_claims, kit_rulebook_codes, kit_rulebook_decisions

S = r"seat [0-3]"
TILE = r"(?:[1-9][mps]|[ESWNCFP]|h[1-8])"
MELD = r"(?:chow|pong|kong)"
KONG = r"(?:暗槓|加槓)"
# Each code's sentences, as the mirror words them (a pattern per sentence).
DETAILS: dict[str, tuple[str, ...]] = {
    "chow_not_from_left": (rf"{S} chowed {S}'s discard",),
    "dead_hand_claim": (rf"{S} is 相公 and claimed a {MELD}", rf"{S} is 相公 and declared 胡"),
    "false_win": (rf"{S} declared 胡 on a hand that does not win",),
    "flower_discarded": (rf"{S} discarded a flower \({TILE}\)",),
    "hand_size": (
        rf"{S} discarded before its kong's replacement \(short\)",
        rf"{S} discarded with no tile to spare \(short hand\)",
    ),
    "kong_without_replacement": (rf"{S} made a kong with no drawable tile left \(D4\)",),
    "late_claim": (
        rf"{S} claimed a {MELD} after its window closed",
        rf"{S} declared 胡 on a discard after its window closed",
    ),
    "out_of_turn": (rf"{S} drew in {S}'s turn",),
    "passed_pong": (rf"{S} let a {TILE} go and ponged another \(過碰\)",),
    "passed_win": (rf"{S} declared 胡 while 過水 \(D1\)",),
    "replacement_order": (
        rf"{S} discarded before its replacement",
        rf"{S} drew a 補花 replacement of pass \d before {S} had its turn",
        rf"{S} kept a flower in hand",
        rf"{S} revealed a flower out of its 補花 pass",
    ),
    "reserve_draw": (rf"{S} drew from the 8-墩 reserve", rf"{S} drew from the reserve after 荒局"),
    "restriction_1": (rf"{S} made an {KONG} right after a claim \(禁制 1\)",),
    "restriction_2": (rf"{S} self-drew on a 碰槓 replacement \(禁制 2\)",),
    "restriction_3": (rf"{S} made an {KONG} after a 碰槓 replacement \(禁制 3\)",),
    "restriction_4": (rf"{S}'s self-draw did not begin with a draw in turn \(禁制 4\)",),
    "restriction_5": (
        rf"{S}'s 暗槓 replacement win waits on a tile discarded this go-round \(禁制 5\)",
    ),
    "restriction_6": (
        rf"{S} chowed the tile it discarded, or its 絡 \(禁制 6\)",
        rf"{S} discarded {TILE} right after claiming it \(禁制 6\)",
    ),
    "restriction_7": (rf"{S} claimed with [0-3] drawable left \(禁制 7\)",),
    "restriction_8": (
        rf"{S} made a {MELD} with tiles it had shown \(禁制 8\)",
        rf"{S} made an 暗槓 with tiles it had shown \(禁制 8\)",
        rf"{S} won on a discard that completes tiles it had shown \(禁制 8\)",
    ),
    "void_declaration": (rf"{S} declared ready on a hand that is not ready",),
    "wrong_end": (
        rf"{S} drew from the 槓尾 with no replacement owed",
        rf"{S} took a replacement from the front",
    ),
}


def test_every_violation_is_told_in_its_codes_words() -> None:
    said: dict[str, set[str]] = defaultdict(set)
    odd: list[str] = []
    for suite in (kit_rulebook_codes, kit_rulebook_claims, kit_rulebook_decisions):
        for case in suite.CASES:
            if case.xfail:
                continue
            t = case.play()
            t.finish()
            for record in t.records:
                if not isinstance(record, Violation):
                    continue
                patterns = DETAILS.get(record.code, ())
                found = next((p for p in patterns if re.fullmatch(p, record.detail)), None)
                if found is None:
                    odd.append(f"{case.name}: {record.code}: {record.detail!r}")
                else:
                    said[record.code].add(found)
    assert odd == []
    unsaid = [(code, p) for code, ps in DETAILS.items() for p in ps if p not in said[code]]
    assert unsaid == []
