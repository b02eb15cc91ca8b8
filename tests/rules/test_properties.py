"""Property tests: random legal hands, brute-force waits, fuzzed input, zero-sum money.

The expected values are independent of the code under test: a brute-force search, a
table of numbers worked from taiwan16.md, or an invariant the rules text states.
Example counts scale with the loaded Hypothesis profile (100 = the dev and ci default),
so the `mutation` profile runs them briefly.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from table_service.rules import (
    HandInputError,
    HandOutcome,
    Stakes,
    net,
    parse_hand,
    readings,
    score,
    settle,
    wait_kinds,
)
from table_service.rules.tiles import N_KINDS
from tests.rules.kit_strategies import JSONISH, KEYS, winning_hands

# §4 作莊 1 + 連N拉N 2N, worked for the streaks the strategy draws (0–5): dealer 台 by N.
DEALER_TAI_BY_STREAK = {0: 1, 1: 3, 2: 5, 3: 7, 4: 9, 5: 11}


def examples(n: int) -> settings:
    """`n` examples under the dev and ci profiles, scaled down with the loaded profile."""
    return settings(max_examples=max(1, n * settings.default.max_examples // 100))


def naive_complete(counts: list[int], pair_used: bool = False) -> bool:
    """An independent, slow check: sets + exactly one pair, leftmost tile first."""
    i = next((k for k in range(N_KINDS) if counts[k]), None)
    if i is None:
        return pair_used
    for take, is_pair in (([i, i], True), ([i, i, i], False), ([i, i + 1, i + 2], False)):
        if is_pair and pair_used:
            continue
        if take[-1] != i and (i >= 27 or i % 9 > 6):
            continue
        if all(counts[k] >= take.count(k) for k in set(take)):
            for k in take:
                counts[k] -= 1
            ok = naive_complete(counts, pair_used or is_pair)
            for k in take:
                counts[k] += 1
            if ok:
                return True
    return False


@examples(400)
@given(winning_hands())
def test_legal_winning_hands_score_valid(data: dict[str, Any]) -> None:
    hand = parse_hand(data)
    result = score(hand)
    assert result.valid, (data, result.reason)
    assert result.tai == sum(i.tai for i in result.items)
    # §4: 作莊 and 連N拉N are dealer 台, never items of the 牌面.
    assert not {"dealer", "streak"} & {i.id for i in result.items}
    assert result.dealer_tai == (DEALER_TAI_BY_STREAK[hand.streak] if hand.dealer else 0)
    assert hand.winning_tile in result.waits


@examples(400)
@given(winning_hands())
def test_readings_rebuild_the_concealed_tiles(data: dict[str, Any]) -> None:
    counts = parse_hand(data).counts()
    found = readings(counts)
    assert found
    for reading in found:
        rebuilt = [0] * N_KINDS
        rebuilt[reading.pair] += 2
        for kind, sequence in reading.sets:
            for k in (kind, kind + 1, kind + 2) if sequence else (kind, kind, kind):
                rebuilt[k] += 1
        assert rebuilt == counts
    assert len(set(found)) == len(found)


@st.composite
def ready_or_not_hands(draw: st.DrawFn) -> list[int]:
    """16-tile concealed count vectors: often ready (a win minus a tile), sometimes random."""
    if draw(st.booleans()):
        data = draw(winning_hands().filter(lambda d: not d["melds"]))
        counts = parse_hand(data).counts()
        counts[draw(st.sampled_from([k for k in range(N_KINDS) if counts[k]]))] -= 1
        return counts
    counts = [0] * N_KINDS
    while sum(counts) < 16:
        k = draw(st.integers(0, N_KINDS - 1))
        if counts[k] < 4:
            counts[k] += 1
    return counts


@examples(500)
@given(ready_or_not_hands())
def test_wait_set_equals_brute_force(counts: list[int]) -> None:
    brute = []
    for kind in range(N_KINDS):
        if counts[kind] < 4:
            counts[kind] += 1
            if naive_complete(counts):
                brute.append(kind)
            counts[kind] -= 1
    assert wait_kinds(counts) == brute


@examples(500)
@given(st.dictionaries(KEYS, JSONISH) | JSONISH, winning_hands(), st.data())
def test_no_input_crashes_the_scorer(
    garbage: Any, good: dict[str, Any], data: st.DataObject
) -> None:
    mutated = dict(good)
    key = data.draw(KEYS)
    mutated[key] = data.draw(JSONISH)
    for candidate in (garbage, mutated):
        try:
            result = score(parse_hand(candidate))
        except HandInputError as exc:
            assert exc.field and str(exc).startswith(exc.field)
        else:
            assert result.valid in (True, False)


KINDS = st.sampled_from(
    ["discard", "self_draw", "robbing_kong", "eight_immortals", "seven_rob_one",
     "seven_rob_one_self_draw", "false_win", "penalty"]
)  # fmt: skip


@examples(100)
@given(
    KINDS, st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 40),
    st.integers(0, 9), st.integers(0, 500), st.integers(0, 100),
)  # fmt: skip
def test_settlements_sum_to_zero(
    kind: str, winner: int, payer: int, dealer: int, tai: int, streak: int, base: int, per: int
) -> None:
    assume(payer != winner)
    if kind == "seven_rob_one_self_draw":
        tai += 8
    one_payer = kind in ("discard", "robbing_kong", "seven_rob_one", "seven_rob_one_self_draw")
    outcome = HandOutcome(
        kind=kind,  # type: ignore[arg-type]
        winner=winner,
        tai=tai,
        dealer=dealer,
        streak=streak,
        payer=payer if one_payer else None,
        stakes=Stakes(base, per),
    )
    payments = settle(outcome)
    assert sum(net(payments)) == 0
    assert all(p.amount >= base and p.payer != p.payee for p in payments)
    assert len(payments) == (1 if kind in ("discard", "robbing_kong", "seven_rob_one") else 3)


@examples(200)
@given(winning_hands(), st.randoms(use_true_random=False))
def test_score_does_not_depend_on_tile_order(data: dict[str, Any], rng: Any) -> None:
    shuffled = dict(data)
    shuffled["concealed"] = rng.sample(data["concealed"], len(data["concealed"]))
    shuffled["melds"] = rng.sample(data["melds"], len(data["melds"]))
    shuffled["flowers"] = rng.sample(data["flowers"], len(data["flowers"]))
    a, b = score(parse_hand(data)), score(parse_hand(shuffled))
    assert (a.valid, a.tai, a.items, a.waits) == (b.valid, b.tai, b.items, b.waits)
