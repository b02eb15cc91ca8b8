"""Compact hand notation for tests: "123m 45p EE" and meld specs like "pong:CCC"."""

from __future__ import annotations

from typing import Any

from table_service.rules import Profile, parse_hand, score

HONOURS = set("ESWNCFP")


def tiles(text: str) -> list[str]:
    """ "123m 45p EE" → ["1m","2m","3m","4p","5p","E","E"]."""
    out: list[str] = []
    for word in text.split():
        if set(word) <= HONOURS:
            out.extend(word)
            continue
        digits, suit = word[:-1], word[-1]
        assert suit in "mps" and digits.isdigit(), word
        out.extend(f"{d}{suit}" for d in digits)
    return out


def meld(spec: str) -> dict[str, Any]:
    """ "chi:123m", "pong:CCC", "kong:9999m" (明槓), "akong:9999m" (暗槓)."""
    kind, text = spec.split(":")
    if kind == "akong":
        return {"kind": "kong", "tiles": tiles(text), "concealed": True}
    return {"kind": kind, "tiles": tiles(text)}


def hand(concealed: str, winning: str, melds: tuple[str, ...] = (), **kw: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "concealed": tiles(concealed),
        "melds": [meld(m) for m in melds],
        "winning_tile": winning,
        "win": "discard",
        "seat_wind": "S",
        "round_wind": "W",
    }
    data.update(kw)
    return data


def items_of(data: dict[str, Any], profile: Profile | None = None) -> dict[str, int]:
    """The 台 items of a declaration, as {id: tai}; asserts it is a valid win."""
    result = score(parse_hand(data), profile or Profile())
    assert result.valid, result.reason
    found = {i.id: i.tai for i in result.items}
    assert result.tai == sum(found.values())
    return found
