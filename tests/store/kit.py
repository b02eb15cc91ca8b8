"""The store tests' helpers: a session body and events made ready to append, and the
worked replay examples run through the real mirror (`load_game`) and appended (`play`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.messages import Event
from table_service.mirror import SessionStart, TableMirror
from table_service.store import Applied, Store

REPLAYS = Path(__file__).parents[1] / "data" / "examples-replay"

SESSION = {"players": ["阿明", "Bea", "Chen", "Dora"], "base": 100, "per_tai": 20}


def event(table: str, seq: int, boot_id: int = 7, ts: float = 1767225600.0) -> Event:
    return Event.model_validate(
        {"table": table, "boot_id": boot_id, "seq": seq, "ts": ts + seq, "body": {
            "kind": "tile_drawn", "seat": seq % 4, "tile": seq % 144, "end": "front"}}
    )  # fmt: skip


def applied(table: str, *seqs: int, session_id: int | None = None) -> list[Applied]:
    return [Applied("event", event(table, s), None, [], session_id) for s in seqs]


@dataclass
class Game:
    """A recorded game made ready to append: the session body and each event's entry."""

    table: str
    session: dict[str, Any]
    events: list[tuple[Event, list[Any]]]  # each event and the records the mirror drew

    def applied(self, session_id: int | None) -> list[Applied]:
        return [
            Applied("event", event, None, list(records), session_id)
            for event, records in self.events
        ]


def load_game(name: str, table: str) -> Game:
    """Run a worked example through the mirror, renamed to `table` so games don't collide."""
    session: dict[str, Any] = {}
    events: list[tuple[Event, list[Any]]] = []
    mirror = TableMirror(table)
    for line in (REPLAYS / f"{name}.jsonl").read_text().splitlines():
        data = json.loads(line)
        if "session" in data:
            session = {**data["session"], "table": table}
            assert mirror.start_session(SessionStart.model_validate(session)) == []
            continue
        event = Event.model_validate({**data, "table": table})
        events.append((event, mirror.apply(event)))
    assert mirror.finish() == []
    return Game(table, session, events)


def play(store: Store, game: Game) -> int:
    """Append a game as the live service would: the session, then every event; its id."""
    store.append(game.table, [Applied("session", None, game.session)])
    opened = store.open_session(game.table)
    assert opened is not None
    store.append(game.table, game.applied(opened.id))
    return opened.id
