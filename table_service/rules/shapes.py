"""Hand shapes: readings as sets + pair, completeness, and waits (聽牌).

Speed comes from the representation: the concealed tiles are a count vector of
the 34 kinds, cut into four groups (萬 筒 索, honours); each group is keyed by
its counts in base 5 and its readings are computed once and cached. A hand's
readings are the product of its groups' readings with exactly one pair overall.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product
from operator import mul
from typing import Final, Literal, NamedTuple

from table_service.rules.tiles import FIRST_HONOUR, N_KINDS

# A group: (first kind, size, sequences allowed). Honours form no sequences.
GROUPS: Final = ((0, 9, True), (9, 9, True), (18, 9, True), (FIRST_HONOUR, 7, False))
_POW5: Final = tuple(5**i for i in range(9))

# Readings as plain tuples for speed: a set is (kind, is_sequence), kind being the
# triplet's kind or the sequence's lowest kind.
SetShape = tuple[int, bool]
GroupReading = tuple[tuple[SetShape, ...], int]  # (sets, pair kind or -1)

# A group's status: 0 when it cannot be read whole, else one of these two. Never both:
# a group of 3n tiles reads only as sets, one of 3n + 2 only as sets plus a pair.
NO_PAIR: Final = 1  # reads as sets alone
ONE_PAIR: Final = 2  # reads as sets plus exactly one pair


class Reading(NamedTuple):
    """One way to read the concealed tiles: sets (kind, is_sequence) and the pair."""

    sets: tuple[SetShape, ...]
    pair: int


def decode_key(key: int, size: int) -> list[int]:
    """The counts a group key stands for."""
    counts = []
    for _ in range(size):
        key, c = divmod(key, 5)
        counts.append(c)
    return counts


@cache
def group_readings(key: int, group: int) -> tuple[GroupReading, ...]:
    """Every reading of one group's counts into sets and at most one pair."""
    start, size, sequences = GROUPS[group]
    counts = decode_key(key, size)
    found: list[GroupReading] = []

    def walk(i: int, sets: list[SetShape], pair: int) -> None:
        while i < size and counts[i] == 0:
            i += 1
        if i == size:
            found.append((tuple(sets), pair))
            return
        # Every copy of kind i belongs to a triplet at i, the pair at i, or a sequence
        # starting at i: choosing how many of each makes each reading appear once.
        c = counts[i]
        for triplets in (1, 0) if c >= 3 else (0,):
            for pairs in (0, 1) if pair < 0 else (0,):
                runs = c - 3 * triplets - 2 * pairs
                if runs < 0 or (runs and not sequences):
                    continue
                if runs and (i + 2 >= size or counts[i + 1] < runs or counts[i + 2] < runs):
                    continue
                counts[i] = 0
                counts[i + 1 : i + 3] = [x - runs for x in counts[i + 1 : i + 3]]
                added = [(start + i, False)] * triplets + [(start + i, True)] * runs
                sets.extend(added)
                walk(i + 1, sets, start + i if pairs else pair)
                del sets[len(sets) - len(added) :]
                counts[i + 1 : i + 3] = [x + runs for x in counts[i + 1 : i + 3]]
                counts[i] = c

    walk(0, [], -1)
    return tuple(found)


@cache
def group_status(key: int, group: int) -> int:
    """0, NO_PAIR or ONE_PAIR: whether and how this group can be read whole."""
    found = group_readings(key, group)
    if not found:
        return 0
    return NO_PAIR if found[0][1] < 0 else ONE_PAIR


@cache
def group_completions(key: int, group: int) -> tuple[tuple[int, int], ...]:
    """(kind, status after adding one tile of that kind) for each kind that reads."""
    start, size, _ = GROUPS[group]
    out = []
    for i in range(size):
        if (key // _POW5[i]) % 5 < 4:
            status = group_status(key + _POW5[i], group)
            if status:
                out.append((start + i, status))
    return tuple(out)


_WEIGHTS: Final = tuple(tuple(5**i for i in range(size)) for _, size, _ in GROUPS)


def hand_keys(counts: Sequence[int]) -> list[int]:
    """The four group keys of a count vector (萬 筒 索 in base 5, then honours)."""
    return [
        sum(map(mul, counts[start : start + size], weights))
        for (start, size, _), weights in zip(GROUPS, _WEIGHTS, strict=True)
    ]


def readings(counts: Sequence[int]) -> list[Reading]:
    """Every reading of a concealed count vector as sets plus exactly one pair."""
    return readings_of_keys(hand_keys(counts))


def readings_of_keys(keys: Sequence[int]) -> list[Reading]:
    per_group = []
    for g in range(4):
        options = group_readings(keys[g], g)
        if not options:
            return []
        per_group.append(options)
    found = []
    for combo in product(*per_group):
        pairs = [pair for _, pair in combo if pair >= 0]
        if len(pairs) == 1:
            found.append(Reading(tuple(s for sets, _ in combo for s in sets), pairs[0]))
    return found


def _combine(statuses: Sequence[int]) -> bool:
    """Whether the groups read together with exactly one pair among them."""
    return all(statuses) and statuses.count(ONE_PAIR) == 1


def is_complete(counts: Sequence[int]) -> bool:
    """Whether the concealed count vector reads as sets plus one pair."""
    return _combine([group_status(k, g) for g, k in enumerate(hand_keys(counts))])


def wait_kinds(counts: Sequence[int], held: Sequence[int] | None = None) -> list[int]:
    """The kinds that would complete this concealed hand (its 聽牌), ascending.

    `held` counts every copy the player holds (concealed and melds); a kind whose
    four copies are all held cannot arrive and is no wait (假聽, I3).
    """
    return waits_of_keys(hand_keys(counts), counts if held is None else held)


def waits_of_keys(keys: Sequence[int], held: Sequence[int]) -> list[int]:
    """wait_kinds on group keys: the tile goes to one group, the others must read as they are."""
    statuses = [group_status(k, g) for g, k in enumerate(keys)]
    waits: list[int] = []
    for g, key in enumerate(keys):
        others = statuses[:g] + statuses[g + 1 :]
        if not all(others) or others.count(ONE_PAIR) > 1:
            continue
        # the pair is elsewhere already, or this group must bring it
        wanted = NO_PAIR if ONE_PAIR in others else ONE_PAIR
        for kind, status in group_completions(key, g):
            if status == wanted and held[kind] < 4:
                waits.append(kind)
    return waits


_LIK_GU_COUNTS: Final = (2, 2, 2, 2, 2, 2, 2, 3)


def is_lik_gu(counts: Sequence[int]) -> bool:
    """嚦咕嚦咕 shape: seven pairs of different kinds and a triplet of an eighth."""
    return tuple(sorted(c for c in counts if c)) == _LIK_GU_COUNTS


def lik_gu_waits(counts: Sequence[int]) -> list[int]:
    """Kinds completing a 嚦咕嚦咕 from 16 concealed tiles.

    No 假聽 check as in wait_kinds: a 嚦咕嚦咕 has no melds, so a kind it waits on
    (held once or twice) is never held four times.
    """
    out = []
    trial = list(counts)
    for kind in range(N_KINDS):
        if counts[kind] not in (1, 2):
            continue
        trial[kind] += 1
        if is_lik_gu(trial):
            out.append(kind)
        trial[kind] -= 1
    return out


def completes(shown: Sequence[int], kind: int) -> bool:
    """禁制 8: whether `kind` completes tiles a seat showed (kinds): a pair with one of them,
    or a sequence with two (a 搭子 such as 3m 4m is completed by 2m or 5m)."""
    if kind in shown:
        return True
    if kind >= FIRST_HONOUR:
        return False
    suit = kind // 9
    mates = {k for k in shown if k < FIRST_HONOUR and k // 9 == suit}
    return any({kind + a, kind + b} <= mates for a, b in ((-2, -1), (-1, 1), (1, 2)))


# A winning hand's wait, as a player's statistics read it: the three 獨聽 shapes (one kind
# completes the hand, §4 I3), and the waits of two kinds or more.
WaitShape = Literal["single", "edge", "closed", "two_sided", "double_pong", "multi", "other"]
WAIT_SHAPES: Final[tuple[str, ...]] = WaitShape.__args__  # type: ignore[attr-defined]


def wait_shape(counts: Sequence[int], won: int, held: Sequence[int] | None = None) -> WaitShape:
    """How the concealed hand `counts` (before the winning tile) waited for kind `won`.

    One kind: 單釣 `single` (the tile pairs), 邊張 `edge` (12 waiting 3, 89 waiting 7),
    中洞 `closed` (13 waiting 2), read from the completed hand, a pair first (the reading
    that makes it 獨聽 for certain). Two kinds: `double_pong` (雙碰, two pairs waiting
    for a third) or `two_sided`; three or more, `multi`. `other`: a shape no standard
    reading has (a 嚦咕嚦咕)."""
    waits = wait_kinds(counts, held)
    if won not in waits:
        return "other"
    if len(waits) >= 3:
        return "multi"
    if len(waits) == 2:
        return "double_pong" if all(counts[k] == 2 for k in waits) else "two_sided"
    complete = list(counts)
    complete[won] += 1
    shapes = set()
    for reading in readings(complete):
        if reading.pair == won:
            shapes.add("single")
        for low, sequence in reading.sets:
            if sequence and low <= won <= low + 2:
                middle = won == low + 1
                edge = (won == low + 2 and low % 9 == 0) or (won == low and low % 9 == 6)
                shapes.add("closed" if middle else "edge" if edge else "two_sided")
    for shape in ("single", "closed", "edge", "two_sided"):  # two_sided: its other side is
        if shape in shapes:  # all held (假聽 of I3), so one kind waits in a two-sided shape
            return shape
    return "other"
