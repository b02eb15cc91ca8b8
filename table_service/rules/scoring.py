"""Scoring a declared win: every reading's 台 from the item table, the best one kept.

The assembler is deliberately short: facts per reading, rows that match, minus
what matching rows exclude (§4 台數計算準則), and the reading with most 台 wins.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from table_service.rules.hand import Hand, HandInputError, Meld, parse_hand
from table_service.rules.items import ENGLISH, ITEM_BY_ID, ITEMS, Facts, SetFact
from table_service.rules.profile import DEFAULT_PROFILE, Profile
from table_service.rules.shapes import (
    Reading,
    is_lik_gu,
    lik_gu_waits,
    readings,
    wait_kinds,
)
from table_service.rules.tiles import (
    EAST,
    FIRST_HONOUR,
    N_KINDS,
    kind_code,
    suit_of,
)


@dataclass(frozen=True, slots=True)
class ScoredItem:
    id: str
    name: str
    tai: int


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """A hand's 牌面 (`tai`, the sum of `items`) and its dealer 台, kept apart."""

    valid: bool
    tai: int
    items: tuple[ScoredItem, ...]
    dealer_tai: int
    reason: str | None = None
    waits: tuple[int, ...] = ()
    reading: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """The score-format.md output object (plus waits, reading, English names)."""
        return {
            "valid": self.valid,
            "tai": self.tai,
            "items": [
                {"id": i.id, "name": i.name, "tai": i.tai, "en": ENGLISH[i.id]} for i in self.items
            ],
            "dealer_tai": self.dealer_tai,
            "reason": self.reason,
            "waits": [kind_code(k) for k in self.waits],
            "reading": list(self.reading),
        }


def dealer_tai(hand: Hand) -> int:
    """作莊 1 + 連N拉N 2N when the declaring player is the dealer."""
    return 1 + 2 * hand.streak if hand.dealer else 0


def score(hand: Hand, profile: Profile = DEFAULT_PROFILE) -> ScoreResult:
    """Score a validated declaration. A hand that is not a win is `valid: False`."""
    if hand.flower_win is not None:
        return _score_flower_win(hand, profile)
    best = _best_reading(hand, profile, hand.flowers)
    if best is None:
        return _not_a_win(hand, "not a winning hand: the 17 tiles do not read as 5 sets and a pair")
    return best


def score_json(data: object, profile: Profile = DEFAULT_PROFILE) -> dict[str, object]:
    """JSON in, JSON out: the path `mjtable score` and the service share.

    Raises HandInputError for a malformed declaration.
    """
    return score(parse_hand(data), profile).to_json()


def _not_a_win(hand: Hand, reason: str) -> ScoreResult:
    return ScoreResult(False, 0, (), dealer_tai(hand), reason)


def _score_flower_win(hand: Hand, profile: Profile) -> ScoreResult:
    """花胡 (§5): 8 台 alone, plus the hand's own 台 when the replacement completes it."""
    assert hand.flower_win is not None
    row = ITEM_BY_ID[hand.flower_win]
    flower_item = ScoredItem(row.id, row.name, row.tai)
    own = None
    if hand.revealed and hand.replacement:
        scoring = hand.flowers - {hand.robbed_flower} if hand.robbed_flower else hand.flowers
        own = _best_reading(hand, profile, frozenset(scoring))
    if own is None:
        return ScoreResult(True, row.tai, (flower_item,), dealer_tai(hand))
    return own  # its facts carry flower_win, so the 8 台 item is among its rows


def _held(hand: Hand) -> list[int]:
    held = [0] * N_KINDS
    for kind in hand.concealed:
        held[kind] += 1
    for meld in hand.melds:
        for kind in meld.tiles:
            held[kind] += 1
    return held


def _best_reading(hand: Hand, profile: Profile, flowers: frozenset[int]) -> ScoreResult | None:
    assert hand.winning_tile is not None
    counts = hand.counts()
    before = list(counts)
    before[hand.winning_tile] -= 1
    held = _held(hand)
    lik_gu_allowed = profile.lik_gu and not hand.melds
    waits = wait_kinds(before, held)
    if lik_gu_allowed:
        waits = sorted(set(waits) | set(lik_gu_waits(before, held)))
    candidates: list[tuple[tuple[SetFact, ...], int, bool]] = [
        (_reading_sets(hand, r), r.pair, False) for r in readings(counts)
    ]
    if lik_gu_allowed and is_lik_gu(counts):
        triplet = next(k for k in range(N_KINDS) if counts[k] == 3)
        candidates.append(((SetFact(triplet, False, True, False, False),), -1, True))
    if not candidates:
        return None
    base = _base_facts(hand, flowers, len(waits))
    best: ScoreResult | None = None
    for sets, pair, lik_gu in candidates:
        facts = _facts(base, sets, pair, lik_gu)
        items = assemble(facts, profile)
        total = sum(i.tai for i in items)
        if best is None or total > best.tai:
            best = ScoreResult(
                True, total, items, dealer_tai(hand), None, tuple(waits), _describe(sets, pair)
            )
    return best


def assemble(facts: Facts, profile: Profile = DEFAULT_PROFILE) -> tuple[ScoredItem, ...]:
    """Every matching row, minus what matching rows exclude; in table order."""
    matched: list[tuple[str, str, int]] = []
    excluded: set[str] = set()
    for row in ITEMS:
        n = row.count(facts)
        if n:
            tai = profile.tai_override(row.id) or row.tai
            matched.append((row.id, row.name, tai * n))
            excluded |= row.excludes
    return tuple(ScoredItem(i, name, tai) for i, name, tai in matched if i not in excluded)


_BASE_KEYS = (
    "win", "waits", "single_tile_left", "flowers", "seat_position", "seat_wind",
    "round_wind", "replacement", "last_tile", "declared", "timing", "flower_win",
)  # fmt: skip


def _base_facts(hand: Hand, flowers: frozenset[int], waits: int) -> dict[str, object]:
    """The facts every reading shares."""
    kinds = {*hand.concealed, *(t for m in hand.melds for t in m.tiles)}
    if hand.winning_tile is not None:
        kinds.add(hand.winning_tile)
    return {
        "suits": frozenset(suit_of(k) for k in kinds if k < FIRST_HONOUR),
        "has_honour": any(k >= FIRST_HONOUR for k in kinds),
        "win": hand.win,
        "waits": waits,
        "single_tile_left": len(hand.concealed) == 1,
        "flowers": flowers,
        "seat_position": hand.seat_wind + 1,
        "seat_wind": EAST + hand.seat_wind,
        "round_wind": EAST + hand.round_wind,
        "replacement": hand.replacement,
        "last_tile": hand.last_tile,
        "declared": hand.declared,
        "timing": hand.timing,
        "flower_win": hand.flower_win,
    }


def _facts(base: Mapping[str, object], sets: tuple[SetFact, ...], pair: int, lik_gu: bool) -> Facts:
    return Facts(sets=sets, pair=pair, lik_gu=lik_gu, **base)  # type: ignore[arg-type]


def _meld_fact(meld: Meld) -> SetFact:
    return SetFact(
        kind=meld.first,
        sequence=meld.kind == "chi",
        concealed=meld.kind == "kong" and meld.concealed,
        melded=True,
        exposed=meld.exposed,
    )


def _reading_sets(hand: Hand, reading: Reading) -> tuple[SetFact, ...]:
    """The five sets of a reading; I2 decides whether the winning triplet is concealed."""
    won_from_other = hand.win != "self_draw"
    w = hand.winning_tile if hand.winning_tile is not None else -1
    # The winning tile may be credited to any set or the pair holding its kind; only
    # when its triplet is the sole place for it did the discard finish a triplet.
    elsewhere = reading.pair == w or any(
        seq and kind <= w <= kind + 2 for kind, seq in reading.sets
    )
    concealed_sets = tuple(
        SetFact(
            kind=kind,
            sequence=seq,
            concealed=not seq and not (won_from_other and kind == w and not elsewhere),
            melded=False,
            exposed=False,
        )
        for kind, seq in reading.sets
    )
    return tuple(_meld_fact(m) for m in hand.melds) + concealed_sets


def _describe(sets: Iterable[SetFact], pair: int) -> tuple[str, ...]:
    out = []
    for s in sets:
        if s.sequence:
            shown = " ".join(kind_code(s.kind + i) for i in range(3))
        else:
            shown = " ".join([kind_code(s.kind)] * 3)
        out.append(shown)
    if pair >= 0:
        out.append(f"{kind_code(pair)} {kind_code(pair)}")
    return tuple(out)


__all__ = [
    "HandInputError",
    "ScoreResult",
    "ScoredItem",
    "assemble",
    "dealer_tai",
    "score",
    "score_json",
]
