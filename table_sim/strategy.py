"""A plain bot strategy: keep the hand as close to ready as possible (向聽數, shanten).

Shanten counts how many tile exchanges a hand is from ready. It is computed per
suit group from cached block decompositions (sets, partial sets, an eye), the same
group-key idea as the rules engine's shapes, then combined across groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product

from table_service.rules.shapes import GROUPS, decode_key, hand_keys, is_complete

Option = tuple[int, int, int]  # (sets, partials, eye 0/1)


@cache
def group_options(key: int, group: int) -> tuple[Option, ...]:
    """Pareto-best (sets, partials, eye) ways to cut one group into blocks."""
    _, size, sequences = GROUPS[group]
    counts = decode_key(key, size)
    best: dict[int, list[tuple[int, int]]] = {0: [], 1: []}

    def keep(sets: int, partials: int, eye: int) -> None:
        front = best[eye]
        if any(s >= sets and p >= partials for s, p in front):
            return
        front[:] = [(s, p) for s, p in front if not (sets >= s and partials >= p)]
        front.append((sets, partials))

    def walk(i: int, sets: int, partials: int, eye: int) -> None:
        while i < size and counts[i] == 0:
            i += 1
        if i == size:
            keep(sets, partials, eye)
            return
        c = counts
        if c[i] >= 3:
            c[i] -= 3
            walk(i, sets + 1, partials, eye)
            c[i] += 3
        if sequences and i + 2 < size and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            walk(i, sets + 1, partials, eye)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
        if c[i] >= 2:
            c[i] -= 2
            if not eye:
                walk(i, sets, partials, 1)
            walk(i, sets, partials + 1, eye)
            c[i] += 2
        if sequences:
            for gap in (1, 2):
                if i + gap < size and c[i + gap]:
                    c[i] -= 1
                    c[i + gap] -= 1
                    walk(i, sets, partials + 1, eye)
                    c[i] += 1
                    c[i + gap] += 1
        c[i] -= 1  # leave this tile isolated
        walk(i, sets, partials, eye)
        c[i] += 1

    walk(0, 0, 0, 0)
    return tuple((s, p, e) for e, front in best.items() for s, p in front)


def shanten(counts: Sequence[int], sets_needed: int) -> int:
    """Exchanges from ready: 0 is ready (聽), −1 is complete. Counts are concealed tiles."""
    if is_complete(counts) and sum(counts) == 3 * sets_needed + 2:
        return -1
    keys = hand_keys(counts)
    per_group = [group_options(k, g) for g, k in enumerate(keys)]
    best = 0
    for combo in product(*per_group):
        eyes = sum(e for _, _, e in combo)
        if eyes > 1:
            continue
        sets = sum(s for s, _, _ in combo)
        partials = sum(p for _, p, _ in combo)
        sets = min(sets, sets_needed)
        partials = min(partials, sets_needed - sets)
        best = max(best, 2 * sets + partials + eyes)
    return 2 * sets_needed - best


def best_discards(counts: list[int], sets_needed: int, allowed: Sequence[int]) -> list[int]:
    """The kinds whose discard leaves the lowest shanten, best first (ties: honours, ends)."""
    scored = []
    for kind in allowed:
        if not counts[kind]:
            continue
        counts[kind] -= 1
        value = shanten(counts, sets_needed)
        counts[kind] += 1
        # Ties go to honours and terminals, which connect to fewer tiles.
        edge = 0 if kind >= 27 else (1 if kind % 9 in (0, 8) else 2)
        scored.append((value, edge, kind))
    scored.sort()
    return [kind for _, _, kind in scored]
