"""The store tests' helpers: a session body and events made ready to append."""

from __future__ import annotations

from firmware_bridge.messages import Event
from table_service.store import Applied

SESSION = {"players": ["阿明", "Bea", "Chen", "Dora"], "base": 100, "per_tai": 20}


def event(table: str, seq: int, boot_id: int = 7, ts: float = 1767225600.0) -> Event:
    return Event.model_validate(
        {"table": table, "boot_id": boot_id, "seq": seq, "ts": ts + seq, "body": {
            "kind": "tile_drawn", "seat": seq % 4, "tile": seq % 144, "end": "front"}}
    )  # fmt: skip


def applied(table: str, *seqs: int, session_id: int | None = None) -> list[Applied]:
    return [Applied("event", event(table, s), None, [], session_id) for s in seqs]
