"""Hypothesis strategies shared by the rules' property tests: hands, profiles, garbage."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from table_service.rules.items import negative_item
from table_service.rules.profile import (
    PING_HU_WAITS,
    RULE_KEYS,
    SEAT_ORDERS,
    TAI_IDS,
    Profile,
    Rules,
)
from table_service.rules.tiles import N_KINDS, kind_code

SEQ_STARTS = [s * 9 + n for s in range(3) for n in range(7)]


@st.composite
def winning_hands(draw: st.DrawFn) -> dict[str, Any]:
    """A legal 17-tile winning declaration: 5 sets + pair, ≤ 4 copies of any kind."""
    used = [0] * N_KINDS
    sets: list[tuple[str, int]] = []
    honour_heavy = draw(st.booleans())
    while len(sets) < 5:
        if draw(st.booleans()) and not honour_heavy:
            start = draw(st.sampled_from(SEQ_STARTS))
            if all(used[start + j] < 4 for j in range(3)):
                for j in range(3):
                    used[start + j] += 1
                sets.append(("seq", start))
        else:
            kind = draw(st.integers(27, 33) if honour_heavy else st.integers(0, 33))
            if used[kind] == 0:
                used[kind] += 3
                sets.append(("tri", kind))
    free = [k for k in range(N_KINDS) if used[k] <= 2]
    pair = draw(st.sampled_from(free))
    used[pair] += 2
    n_melds = draw(st.integers(0, 5))
    melds: list[dict[str, Any]] = []
    concealed: list[int] = [pair, pair]
    for i, (shape, kind) in enumerate(sets):
        tiles = [kind, kind + 1, kind + 2] if shape == "seq" else [kind] * 3
        if i < n_melds:
            codes = [kind_code(k) for k in tiles]
            if shape == "seq":
                melds.append({"kind": "chi", "tiles": codes})
            elif used[kind] < 4 and draw(st.booleans()):
                used[kind] += 1
                hidden = draw(st.booleans())
                melds.append({"kind": "kong", "tiles": [*codes, codes[0]], "concealed": hidden})
            else:
                melds.append({"kind": "pong", "tiles": codes})
        else:
            concealed.extend(tiles)
    winning = draw(st.sampled_from(concealed))
    concealed.remove(winning)
    win = draw(st.sampled_from(["self_draw", "discard", "robbing_kong"]))
    flowers = draw(st.sets(st.integers(1, 8), max_size=8))
    return {
        "concealed": [kind_code(k) for k in concealed],
        "melds": melds,
        "winning_tile": kind_code(winning),
        "win": win,
        "flowers": [f"h{f}" for f in sorted(flowers)],
        "seat_wind": draw(st.sampled_from("ESWN")),
        "round_wind": draw(st.sampled_from("ESWN")),
        "dealer": draw(st.booleans()),
        "streak": draw(st.integers(0, 5)),
        "replacement": win == "self_draw" and draw(st.booleans()),
    }


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 40) | st.sampled_from(["1m", "E", "h1", "x", "中"]),
    lambda inner: st.lists(inner, max_size=18) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)
KEYS = st.sampled_from(
    ["concealed", "melds", "flowers", "winning_tile", "win", "seat_wind", "dealer", "streak",
     "declared", "timing", "flower_win", "robbed_flower", "replacement"]
)  # fmt: skip


@st.composite
def profiles(draw: st.DrawFn) -> Profile:
    """Any valid profile: every 台 value in its range, every switch either way."""
    tai = {
        item: draw(st.integers(-20, 0) if negative_item(item) else st.integers(0, 20))
        for item in TAI_IDS
    }
    switches: dict[str, Any] = {k: draw(st.booleans()) for k in RULE_KEYS if k != "ping_hu_wait"}
    switches["ping_hu_wait"] = draw(st.sampled_from(PING_HU_WAITS))
    return Profile(
        base=draw(st.integers(0, 500)),
        per_tai=draw(st.integers(0, 100)),
        seat_order=draw(st.sampled_from(SEAT_ORDERS)),
        tai=tai,
        rules=Rules(**switches),
    )
