"""Other processes' tables on this one's pages: their news relayed from the broker.

With several service processes each follows its own tables, yet a page may be served by
any of them. While someone watches, a process subscribes to every table's service news
(`<base>/+/service/+`: the retained states, the records, the rulings) and passes the
others' tables' on to its WebSockets, as the owner's own pages have them. Nobody
watching, it unsubscribes: the states go out after every batch, and receiving every
table's would undo what dividing the tables saves.

Sans-I/O: the service feeds it what the broker delivered; it answers with the message a
page is sent, and keeps each table's latest state for the snapshots and the reads.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Container
from typing import Any, Final, NamedTuple

log = logging.getLogger(__name__)

RECORD_KINDS: Final = frozenset({"violation", "fault", "hand"})  # sent as {"record": ...}


class Relayed(NamedTuple):
    """A page's message for another process's table: its table, kind and JSON text."""

    table: str
    kind: str
    text: str


class Relay:
    """The news of tables another process follows, as this process's pages get them."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._states: dict[str, str] = {}  # table -> its latest state, as JSON text

    def topic(self) -> str:
        """What to subscribe to while relaying: every table's service news."""
        return f"{self.base}/+/service/+"

    def hear(self, topic: str, payload: bytes, followed: Container[str]) -> Relayed | None:
        """A message the broker delivered: what to send the pages for it. None for a
        table this process follows itself (its own pages have it), a kind no page shows,
        or a payload that is not the JSON object a service publishes."""
        table, kind = self._parse(topic)
        if table is None:
            return None
        if table in followed:  # kept, it would outlive the table's hand-over back
            self._states.pop(table, None)
            return None
        try:
            text = payload.decode()
            body = json.loads(text)
        except (UnicodeDecodeError, ValueError):
            log.warning("relay: not JSON on %s; dropped", topic)
            return None
        if not isinstance(body, dict):
            return None
        quoted = json.dumps(table)
        if kind == "state":
            self._states[table] = text
            return Relayed(table, kind, f'{{"type":"state","table":{quoted},"state":{text}}}')
        if kind in RECORD_KINDS:
            return Relayed(table, kind, f'{{"type":"{kind}","table":{quoted},"record":{text}}}')
        if kind == "ruling":
            return Relayed(table, kind, text)  # published as the pages get it
        return None

    def state(self, table: str) -> dict[str, Any] | None:
        """The table's latest state heard, if another process follows it."""
        text = self._states.get(table)
        return None if text is None else json.loads(text)

    def states(self, ours: set[str]) -> list[dict[str, Any]]:
        """Every other table's latest state heard, by name (none of `ours`)."""
        return [json.loads(self._states[t]) for t in sorted(self._states) if t not in ours]

    def forget(self) -> None:
        """Unsubscribed (or a new broker session): the states kept would go stale, so
        none is kept while not relaying."""
        self._states.clear()

    def _parse(self, topic: str) -> tuple[str | None, str]:
        parts = topic.split("/")
        root = self.base.split("/")
        if len(parts) != len(root) + 3 or parts[: len(root)] != root:
            return None, ""
        table, service, kind = parts[len(root) :]
        return (table, kind) if service == "service" else (None, "")
