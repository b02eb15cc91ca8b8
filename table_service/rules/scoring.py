"""Scoring a declared win: every reading's 台 from the item table, the best one kept.

The assembler is deliberately short: facts per reading, rows that match, minus
what matching rows exclude (§4 台數計算準則), and the reading with most 台 wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from table_service.rules.hand import Hand, parse_hand
from table_service.rules.items import ITEM_BY_ID, Facts, HandFacts
from table_service.rules.profile import DEFAULT_PROFILE, Profile, rows_for
from table_service.rules.shapes import (
    SetShape,
    hand_keys,
    is_lik_gu,
    lik_gu_waits,
    readings_of_keys,
    waits_of_keys,
)
from table_service.rules.tiles import (
    EAST,
    FIRST_HONOUR,
    N_KINDS,
    flower_colour,
    flower_position,
    kind_code,
)


class ScoredItem(NamedTuple):
    id: str
    name: str
    tai: int


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """A hand's 牌面 (`tai`, the sum of `items`) and its dealer 台, kept apart.

    `sets` and `pair` are the concealed part's best reading (melds are the hand's own).
    """

    valid: bool
    tai: int
    items: tuple[ScoredItem, ...]
    dealer_tai: int
    reason: str | None = None
    waits: tuple[int, ...] = ()
    sets: tuple[SetShape, ...] = ()
    pair: int = -1

    def to_json(self) -> dict[str, object]:
        """The score-format.md output object (plus waits, reading, English names)."""
        return {
            "valid": self.valid,
            "tai": self.tai,
            "items": [
                {"id": i.id, "name": i.name, "tai": i.tai, "en": ITEM_BY_ID[i.id].en}
                for i in self.items
            ],
            "dealer_tai": self.dealer_tai,
            "reason": self.reason,
            "waits": [kind_code(k) for k in self.waits],
            "reading": describe(self.sets, self.pair),
        }


def dealer_tai(hand: Hand, profile: Profile = DEFAULT_PROFILE) -> int:
    """作莊 1 + 連N拉N 2N (the profile's values) when the declaring player is the dealer."""
    if not hand.dealer:
        return 0
    return profile.tai_of("dealer") + profile.tai_of("streak") * hand.streak


def score(hand: Hand, profile: Profile = DEFAULT_PROFILE) -> ScoreResult:
    """Score a validated declaration. A hand that is not a win is `valid: False`."""
    if hand.flower_win is not None:
        return _score_flower_win(hand, profile)
    best = _best_reading(hand, profile, hand.flowers)
    if best is None:
        reason = "not a winning hand: the 17 tiles do not read as 5 sets and a pair"
        return ScoreResult(False, 0, (), dealer_tai(hand, profile), reason)
    return best


def score_json(data: object, profile: Profile = DEFAULT_PROFILE) -> dict[str, object]:
    """JSON in, JSON out: the path `mjtable score` and the service share.

    Raises HandInputError for a malformed declaration (judged under the profile's
    `special_wins_need_declaration`).
    """
    return score(parse_hand(data, profile.rules), profile).to_json()


def _score_flower_win(hand: Hand, profile: Profile) -> ScoreResult:
    """花胡 (§5): 8 台 alone, or the hand's own 台 added when the replacement completes it."""
    assert hand.flower_win is not None
    if hand.revealed and hand.replacement:
        flowers = hand.flowers - {hand.robbed_flower} if hand.robbed_flower else hand.flowers
        own = _best_reading(hand, profile, flowers)
        if own is not None:
            return own  # its facts carry flower_win, so the 8 台 row is among its items
    row = ITEM_BY_ID[hand.flower_win]
    tai = profile.tai_of(row.id)
    items = (ScoredItem(row.id, row.name, tai),) if tai else ()  # valued 0: no item (§7)
    return ScoreResult(True, tai, items, dealer_tai(hand, profile))


def assemble(facts: Facts, profile: Profile = DEFAULT_PROFILE) -> tuple[ScoredItem, ...]:
    """Every matching row, minus what matching rows exclude; in table order."""
    matched = []
    excluded: set[str] = set()
    rules = profile.rules
    for row in rows_for(profile):
        n = row.occurs(facts, rules)
        if n:
            matched.append(ScoredItem(row.id, row.name, row.tai * n))
            if row.excludes:
                excluded |= row.excludes
    if excluded:
        return tuple(item for item in matched if item.id not in excluded)
    return tuple(matched)


def _best_reading(hand: Hand, profile: Profile, flowers: frozenset[int]) -> ScoreResult | None:
    assert hand.winning_tile is not None
    w = hand.winning_tile
    counts = hand.counts()
    keys = hand_keys(counts)
    found = readings_of_keys(keys)
    lik_gu_on = profile.rules.lik_gu and profile.tai_of("lik_gu") != 0
    lik_gu = lik_gu_on and not hand.melds and is_lik_gu(counts)
    if not found and not lik_gu:
        return None
    held = _held(hand)
    counts[w] -= 1
    waits = waits_of_keys(hand_keys(counts), held)
    if lik_gu_on and not hand.melds:
        waits = sorted(set(waits) | set(lik_gu_waits(counts)))
    hand_facts = _hand_facts(hand, flowers, len(waits))
    m_seq, m_triplets, m_concealed, exposed, melded = _meld_summary(hand)
    won_from_other = hand.win != "self_draw"

    best: tuple[int, tuple[ScoredItem, ...], tuple[SetShape, ...], int] | None = None
    candidates: list[tuple[tuple[SetShape, ...], int, bool]] = [(s, p, False) for s, p in found]
    if lik_gu:
        triplet = next(k for k in range(N_KINDS) if counts[k] + (k == w) == 3)
        candidates.append((((triplet, False),), -1, True))
    for sets, pair, is_lik_gu_reading in candidates:
        sequences, triplets, concealed = m_seq, list(m_triplets), m_concealed
        # I2: a discard credited to a triplet makes it open, unless the reading can
        # credit the winning tile to a sequence or the pair instead.
        open_triplet = won_from_other and pair != w
        for kind, seq in sets:
            if seq:
                sequences += 1
                if kind <= w <= kind + 2:
                    open_triplet = False
        for kind, seq in sets:
            if not seq:
                triplets.append(kind)
                if not (open_triplet and kind == w):
                    concealed += 1
        facts = Facts(
            sequences=sequences,
            triplets=tuple(triplets),
            concealed_triplets=concealed,
            exposed=exposed,
            melded=melded,
            pair=pair,
            lik_gu=is_lik_gu_reading,
            sets=sets,
            **hand_facts,
        )
        items = assemble(facts, profile)
        total = sum(i.tai for i in items)
        if best is None or total > best[0]:
            best = (total, items, sets, pair)
    assert best is not None
    total, items, sets, pair = best
    return ScoreResult(
        True, total, items, dealer_tai(hand, profile), None, tuple(waits), sets, pair
    )


def _held(hand: Hand) -> list[int]:
    """Every copy the player holds, concealed and melded (for 假聽, I3)."""
    held = [0] * N_KINDS
    for kind in hand.concealed:
        held[kind] += 1
    for meld in hand.melds:
        for kind in meld.tiles:
            held[kind] += 1
    return held


def _meld_summary(hand: Hand) -> tuple[int, list[int], int, int, int]:
    """(sequences, triplet kinds, 暗槓 count, exposed count, meld count) of the melds."""
    sequences = concealed = exposed = 0
    triplets = []
    for meld in hand.melds:
        if meld.kind == "chi":
            sequences += 1
        else:
            triplets.append(meld.first)
        if meld.exposed:
            exposed += 1
        else:
            concealed += 1
    return sequences, triplets, concealed, exposed, len(hand.melds)


def _hand_facts(hand: Hand, flowers: frozenset[int], waits: int) -> HandFacts:
    """The Facts fields every reading shares, by name."""
    kinds = _all_kinds(hand)
    suits = len({k // 9 for k in kinds if k < FIRST_HONOUR})
    has_honour = any(k >= FIRST_HONOUR for k in kinds)
    position = hand.seat_wind + 1
    complete = {c for c in (0, 1) if sum(flower_colour(f) == c for f in flowers) == 4}
    own = [f for f in flowers if flower_position(f) == position]
    seat_flowers = sum(1 for f in own if flower_colour(f) not in complete)
    assert hand.winning_tile is not None
    return HandFacts(
        suits=suits,
        has_honour=has_honour,
        win=hand.win,
        waits=waits,
        single_tile_left=len(hand.concealed) == 1,
        flowers=len(flowers),
        seat_flowers=seat_flowers,
        all_seat_flowers=len(own),
        flower_kongs=len(complete),
        seat_wind=EAST + hand.seat_wind,
        round_wind=EAST + hand.round_wind,
        replacement=hand.replacement,
        last_tile=hand.last_tile,
        declared=hand.declared,
        timing=hand.timing,
        flower_win=hand.flower_win,
        winning_tile=hand.winning_tile,
    )


def _all_kinds(hand: Hand) -> set[int]:
    kinds = set(hand.concealed)
    for meld in hand.melds:
        kinds.add(meld.first)
        kinds.add(meld.tiles[-1])
    if hand.winning_tile is not None:
        kinds.add(hand.winning_tile)
    return kinds


def describe(sets: tuple[SetShape, ...], pair: int) -> list[str]:
    """A reading as text: "1m 2m 3m", "E E E", and the pair."""
    out = []
    for kind, seq in sets:
        shown = (kind, kind + 1, kind + 2) if seq else (kind, kind, kind)
        out.append(" ".join(kind_code(k) for k in shown))
    if pair >= 0:
        out.append(f"{kind_code(pair)} {kind_code(pair)}")
    return out
