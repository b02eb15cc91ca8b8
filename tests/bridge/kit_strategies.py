"""Hypothesis strategies for every message of the catalogue, valid by construction."""

from __future__ import annotations

from enum import IntEnum
from typing import Any, get_type_hints

from hypothesis import strategies as st

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import CATALOGUE, Message

_BY_NAME: dict[str, st.SearchStrategy[Any]] = {
    "seat": st.integers(0, 3),
    "tile": st.integers(0, 143),
    "from_seat": st.sampled_from([0, 1, 2, 3, 0xFF]),
    "turn": st.sampled_from([0, 1, 2, 3, 0xFF]),
    "dealer": st.sampled_from([0, 1, 2, 3, 0xFF]),
    "count": st.integers(0, 144),
    "tiles_left": st.integers(0, 144),
    "active": st.integers(0, 1),
    "beeps": st.integers(1, 10),
    "protocol_version": st.just(1),
    "table_id": st.integers(0, 0xFFFF),
    "boot_id": st.integers(0, 0xFFFFFFFF),
    "next_seq": st.integers(0, 0xFFFF),
    "expected": st.integers(0, 0xFFFF),
    "uptime_ms": st.integers(0, 0xFFFFFFFF),
    "unix_ms": st.integers(0, 2**64 - 1),
    "command_seq": st.integers(0, 0xFFFF),
    "command_type": st.integers(0, 255),
}


def _field(cls: type[Message], name: str, hint: Any) -> st.SearchStrategy[Any]:
    if name in _BY_NAME:
        if cls is c.FlowerRevealed and name == "tile":
            return st.integers(136, 143)
        if cls in (c.SeatLed, c.Alert) and name == "seat":
            return st.sampled_from([0, 1, 2, 3, 0xFF])
        return _BY_NAME[name]
    if isinstance(hint, type) and issubclass(hint, IntEnum):
        return st.sampled_from(list(hint))
    if name.startswith("die_"):
        return st.integers(1, 6)
    if name.startswith("stacks_"):
        return st.integers(0, 36)
    if name.startswith("fw_") or name == "unit":
        return st.integers(0, 255)
    raise AssertionError(f"no strategy for {cls.__name__}.{name}")


def _message(cls: type[Message]) -> st.SearchStrategy[Message]:
    hints = get_type_hints(cls)
    if cls is c.MeldExposed:
        return st.builds(
            lambda seat, meld, frm, tiles: c.MeldExposed(
                seat, meld, frm, tuple(tiles[: 3 if meld < 2 else 4])
            ),
            st.integers(0, 3),
            st.sampled_from(list(c.MeldKind)),
            st.sampled_from([0, 1, 2, 3, 0xFF]),
            st.lists(st.integers(0, 143), min_size=4, max_size=4),
        )
    if cls in (c.HandRevealed, c.TilesShown):
        return st.builds(
            lambda seat, tiles: cls(seat, tuple(tiles)),
            st.integers(0, 3),
            st.lists(st.integers(0, 143), min_size=1, max_size=24),
        )
    names = [n for n in hints if n.islower() and not n.startswith("_")]
    return st.builds(cls, **{n: _field(cls, n, hints[n]) for n in names})


messages: st.SearchStrategy[Message] = st.one_of([_message(cls) for cls in CATALOGUE])
seqs = st.integers(0, 0xFFFF)
