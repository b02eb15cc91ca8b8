"""The rulebook: one row per code the mirror records, the one place its words live.

Each violation code (taiwan16.md §3, "Violation codes") and each fault code
(replay-format.md, "fault") is one immutable row: the code, its kind, the rules it
enforces (§ and D numbers of taiwan16.md; for a fault, the page that defines it),
whether the breach makes the seat 相公, and its name and meaning in Chinese and in
English. The mirror takes its 相公 codes from here (`DEAD_HAND`), docs/events.md and
`GET /api/vocabulary` print the rows, and the dashboard shows them as the API sends
them. The rows are in the order of the `ViolationCode` and `FaultCode` literals of
table_service/mirror/records.py (a test keeps them in step with that list and with §3).

Pure data, no I/O; the rules engine imports nothing of the other parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Final, Literal

CodeKind = Literal["violation", "fault"]
ClaimKind = Literal["chow", "pong", "kong", "win"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One code: what it is called and which rule of the text it enforces."""

    code: str
    kind: CodeKind
    rules: tuple[str, ...]  # e.g. ("§3 行牌禁制 8",), ("D1",), ("replay-format.md: fault",)
    dead_hand: bool  # the breach makes the seat 相公: it may then only draw and discard
    zh: str  # its name, Traditional Chinese
    en: str  # its name, English
    zh_meaning: str
    en_meaning: str

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "kind": self.kind,
            "rules": list(self.rules),
            "dead_hand": self.dead_hand,
            "zh": self.zh,
            "en": self.en,
            "zh_meaning": self.zh_meaning,
            "en_meaning": self.en_meaning,
        }


@dataclass(frozen=True, slots=True)
class Term:
    """A word of the rules the pages show beside the codes (a claim's name)."""

    id: str
    zh: str
    en: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "zh": self.zh, "en": self.en}


def _violation(
    code: str, rules: tuple[str, ...], dead: bool, zh: tuple[str, str], en: tuple[str, str]
) -> Rule:
    return Rule(code, "violation", rules, dead, zh[0], en[0], zh[1], en[1])


def _fault(code: str, rules: tuple[str, ...], zh: tuple[str, str], en: tuple[str, str]) -> Rule:
    return Rule(code, "fault", rules, False, zh[0], en[0], zh[1], en[1])


# 相公 follows seed 000's list (缺張、逾張、錯吃碰槓、花牌未補、花牌打出、吃入打出、打出吃入)
# and its priority rules (丧失碰牌优先权者，如仍执意碰牌，应判相公): D9.
VIOLATIONS: Final[tuple[Rule, ...]] = (
    _violation(
        "out_of_turn", ("§3 行牌", "D9"), True,
        ("搶摸", "未輪到本家時取牌（摸牌、吃碰）（相公）"),
        ("Out of turn", "a tile taken (drawn, claimed) when it is not that seat's move "
         "(dead hand)"),
    ),
    _violation(
        "wrong_end", ("§2 補花", "§3 行牌", "D9"), True,
        ("錯位摸補", "輪序摸牌自槓尾摸，或補牌（補花、槓）自牌頭摸（相公）"),
        ("Wrong end", "a draw from the wrong end of the wall: a turn's draw from the 槓尾, "
         "a replacement from the front (dead hand)"),
    ),
    _violation(
        "replacement_order", ("§2 補花", "D9"), True,
        ("花牌未補", "未依補花輪序補花，或行牌中摸得花牌未補牌就打牌（相公）"),
        ("Flower not replaced", "a flower replaced out of its 補花 pass, or a flower in play "
         "not replaced before the discard (dead hand)"),
    ),
    _violation(
        "reserve_draw", ("§2 殘牌",), False,
        ("摸入殘牌", "摸了固定保留的八墩殘牌（十六張）；荒局後再摸亦同"),
        ("Reserve drawn", "a tile drawn from the 16-tile reserve (also after the hand "
         "ended in 荒局)"),
    ),
    _violation(
        "chow_not_from_left", ("§3 行牌", "D9"), True,
        ("錯吃", "吃了非上家打出的牌（相公）"),
        ("Chow not from the left", "吃 of a discard that is not the 上家's (dead hand)"),
    ),
    _violation(
        "restriction_1", ("§3 行牌禁制 1",), False,
        ("行牌禁制一", "吃牌或碰牌之後，同一打序內不得接著開槓"),
        ("Restriction 1", "a kong in the same turn right after a 吃 or 碰"),
    ),
    _violation(
        "restriction_2", ("§3 行牌禁制 2",), False,
        ("行牌禁制二", "碰槓之補牌不得自摸胡牌，補得花牌再補之牌亦然"),
        ("Restriction 2", "a self-draw win on the replacement after a 碰槓 (or a flower "
         "replacement after it)"),
    ),
    _violation(
        "restriction_3", ("§3 行牌禁制 3", "D10"), False,
        ("行牌禁制三", "碰槓補牌之後，同一打序內不得接著暗槓或加槓"),
        ("Restriction 3", "an 暗槓 (or, by D10, a 加槓) in the same turn after a 碰槓 "
         "replacement"),
    ),
    _violation(
        "restriction_4", ("§3 行牌禁制 4",), False,
        ("行牌禁制四", "自摸必須始於摸牌：非依正常摸序進牌之打序，概不得自摸"),
        ("Restriction 4", "a self-draw win that did not begin with a normal draw in turn "
         "order"),
    ),
    _violation(
        "restriction_5", ("§3 行牌禁制 5",), False,
        ("行牌禁制五", "暗槓前所摸之牌靠入手牌而補牌成胡，其可胡之牌包含同巡打過之牌，此自摸無效"),
        ("Restriction 5", "after an 暗槓 whose pre-kong draw went into the hand, a "
         "replacement win on winning tiles that include a tile discarded in this go-round"),
    ),
    _violation(
        "restriction_6", ("§3 行牌禁制 6", "D9"), True,
        ("行牌禁制六", "吃入牌後打出同（絡）牌、打出牌後同巡吃入同（絡）牌，"
         "或碰牌後打出同牌（相公）"),
        ("Restriction 6", "after 吃, discarding the same tile or its 絡; chowing a tile or "
         "its 絡 one discarded in the same go-round; after 碰, discarding the same tile "
         "(dead hand)"),
    ),
    _violation(
        "restriction_7", ("§3 行牌禁制 7", "D12"), False,
        ("行牌禁制七", "可摸之牌剩三張以下（以打牌時計）時，不得吃、碰、碰槓"),
        ("Restriction 7", "a 吃, 碰 or 碰槓 of a discard made while three or fewer drawable "
         "tiles remained"),
    ),
    _violation(
        "restriction_8", ("§3 行牌禁制 8",), False,
        ("行牌禁制八", "本家失誤外露之暗牌或搭子，本盤內不得用來吃碰槓，"
         "亦不得胡他家打出而與之湊成之牌；自摸不在此限"),
        ("Restriction 8", "a claim or a win on a discard with a tile the seat showed by its "
         "own fault (`tiles_shown`); a self-draw stays allowed"),
    ),
    _violation(
        "passed_win", ("§3 過水", "D1"), False,
        ("過水胡牌", "過水未解除（未打出或加槓一張非胡之牌）就胡牌，視同詐胡"),
        ("Passed win", "a win declared while 過水 holds: a winning tile was let go and no "
         "tile that does not win has been discarded (or added to a kong) since"),
    ),
    _violation(
        "passed_pong", ("D2",), False,
        ("過碰", "同一巡內放過不碰，又碰出現之相同第二張牌"),
        ("Passed pong", "過碰: a pong of a tile let go without ponging in the same go-round"),
    ),
    _violation(
        "late_claim", ("D3", "D9"), True,
        ("喪失優先權", "吃、碰、槓或胡的時機已過（下家已摸牌，或吃牌已亮牌並打牌）"
         "仍執意進牌（相公）"),
        ("Late claim", "a claim after its window closed: the next player has drawn, or a "
         "吃 of it was shown and followed by its discard (dead hand)"),
    ),
    _violation(
        "dead_hand_claim", ("§3 相公", "D9"), False,
        ("相公進牌", "相公只得依序摸牌（得自槓、補花）並打牌，不得吃、碰、槓或胡牌"),
        ("Claim by a dead hand", "a claim or a win by a seat that is 相公"),
    ),
    _violation(
        "hand_size", ("§3 相公", "D9"), True,
        ("缺張／逾張", "手牌張數不足或過多（相公）"),
        ("Short or long hand", "a short or long hand (缺張/逾張; dead hand)"),
    ),
    _violation(
        "flower_discarded", ("§2 補花", "D9"), True,
        ("花牌打出", "花牌應亮出補牌，卻打了出去（相公）"),
        ("Flower discarded", "a flower discarded instead of revealed (dead hand)"),
    ),
    _violation(
        "void_declaration", ("D7",), False,
        ("聽牌無效", "宣告天聽或地聽時並未聽牌：宣告無效，交裁判處理"),
        ("Void declaration", "天聽/地聽 declared on a hand that is not ready: void, flagged "
         "for the referee"),
    ),
    _violation(
        "kong_without_replacement", ("D4",), False,
        ("無牌可補之槓", "已無可摸之牌仍開槓：開槓須有牌可補"),
        ("Kong without replacement", "a kong with no drawable tile left for its replacement"),
    ),
    _violation(
        "false_win", ("§3 詐胡",), False,
        ("詐胡", "宣告胡牌，手牌卻不成胡"),
        ("False win", "胡 declared on a hand that is not a valid winning hand (詐胡)"),
    ),
)  # fmt: skip

_STREAM = "replay-format.md: fault"
_SERVICE = "README.md: the table service"

# Faults: the event stream itself is impossible (a sensor, not a player): nobody is blamed.
FAULTS: Final[tuple[Rule, ...]] = (
    _fault(
        "fifth_copy", (_STREAM,),
        ("第五張", "同一種牌出現第五張（感應器誤讀）"),
        ("Fifth copy", "a fifth copy of a tile kind in play (a sensor misread)"),
    ),
    _fault(
        "tile_twice", (_STREAM,),
        ("一牌兩處", "同一張實體牌同時出現在兩處"),
        ("Tile in two places", "one physical tile id in two places at once"),
    ),
    _fault(
        "unknown_tile", (_STREAM,),
        ("無法辨識的牌", "感應器回報的牌無法辨識"),
        ("Unknown tile", "a tile the sensors reported that the mirror cannot identify"),
    ),
    _fault(
        "impossible", (_STREAM,),
        ("不可能的事件", "此階段不可能發生的事件"),
        ("Impossible event", "an event that cannot happen in this phase of the game"),
    ),
    _fault(
        "count_mismatch", (_STREAM,),
        ("張數不符", "牌桌回報的剩餘張數與系統計數不同"),
        ("Count mismatch", "the table's `tiles_left` differs from the mirror's own count"),
    ),
    _fault(
        "gap", (_STREAM,),
        ("事件遺失", "事件序號跳號：有事件遺失"),
        ("Events missing", "seq jumped: events are missing"),
    ),
    _fault(
        "hand_unseen", (_STREAM,),
        ("未見開局", "未從開局看到的一盤：只跟隨牌張、不作裁判，直到下一次洗牌"),
        ("Hand not seen from its start", "a hand not seen from its start: its tiles are "
         "followed, not judged, until the next shuffle"),
    ),
    _fault(
        "conflict", (_STREAM, _SERVICE),
        ("事件衝突", "同一事件編號再次送達，內容卻不同（保留先到者）"),
        ("Conflicting event", "an event key delivered again with another body (the first "
         "delivered is kept)"),
    ),
    _fault(
        "suspect_boot", (_STREAM, _SERVICE),
        ("可疑的開機", "來路不明的控制器開機（不從序號 1 開始，或原開機仍在執行）：不予跟隨"),
        ("Suspect boot", "a boot that appeared from nowhere (not from seq 1, or while the "
         "table's boot still ran): not followed"),
    ),
)  # fmt: skip

RULEBOOK: Final[tuple[Rule, ...]] = VIOLATIONS + FAULTS
BY_CODE: Final = MappingProxyType({row.code: row for row in RULEBOOK})
DEAD_HAND: Final[frozenset[str]] = frozenset(row.code for row in VIOLATIONS if row.dead_hand)

# The claims on a discard (§3), by the seat buttons' names; in the order of the buttons.
CLAIMS: Final[tuple[Term, ...]] = (
    Term("chow", "吃", "chow"),
    Term("pong", "碰", "pong"),
    Term("kong", "槓", "kong"),
    Term("win", "胡", "win"),
)
