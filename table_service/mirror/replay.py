"""Replaying a recorded stream (replay-format.md): lines in, judgement records out.

Pure over an iterable of text lines, so the CLI, the tests and the bench share it.
Each table in the stream has its own mirror; the summary covers them all.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from firmware_bridge.messages import Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Record, Summary, unreadable_fault_code
from table_service.mirror.session import SessionStart
from table_service.rules.table import SEATS

DEFAULT_TABLE = "table"


class ReplayInputError(ValueError):
    """A line that is not JSON, or fits neither an event nor a session start."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


class Replay:
    """The mirrors of every table in a stream, fed line by line."""

    def __init__(self) -> None:
        self.mirrors: dict[str, TableMirror] = {}

    def mirror(self, table: str) -> TableMirror:
        mirror = self.mirrors.get(table)
        if mirror is None:
            mirror = self.mirrors[table] = TableMirror(table)
        return mirror

    def feed(self, number: int, line: str) -> list[Record]:
        """One input line; raises ReplayInputError naming the line when it is unreadable."""
        try:
            line.encode("utf-8")  # a reader with errors="surrogateescape" keeps bad bytes so
        except UnicodeEncodeError as exc:
            byte = ord(line[exc.start]) - 0xDC00
            where = f"byte 0x{byte:02x} at column {exc.start + 1}"
            raise ReplayInputError(number, f"not UTF-8: {where}") from None
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayInputError(number, f"not JSON: {exc.msg} (column {exc.colno})") from None
        except RecursionError:
            raise ReplayInputError(number, "JSON nested deeper than any event") from None
        if not isinstance(data, dict):
            raise ReplayInputError(number, "expected a JSON object (an event or a session)")
        if "session" in data:
            return self._session(number, data)
        return self._event(number, data)

    def _session(self, number: int, data: dict[str, Any]) -> list[Record]:
        if set(data) != {"session"}:
            extra = sorted(set(data) - {"session"})[0]
            raise ReplayInputError(number, f"{extra}: unknown key beside session")
        try:
            session = SessionStart.model_validate(data["session"])
        except ValidationError as exc:
            raise ReplayInputError(number, "session: " + _first_error(exc)) from None
        return self.mirror(session.table or DEFAULT_TABLE).start_session(session)

    def _event(self, number: int, data: dict[str, Any]) -> list[Record]:
        try:
            event = Event.model_validate(data)
        except ValidationError as exc:
            envelope = _envelope(data)
            if envelope is None or "body" not in data:
                raise ReplayInputError(number, _first_error(exc)) from None
            # The envelope is sound, the body is not: the table sent something impossible.
            table, boot_id, seq = envelope
            detail = _first_error(exc)
            code = unreadable_fault_code(detail)
            return self.mirror(table).fault(boot_id, seq, code, f"unreadable event: {detail}")
        return self.mirror(event.table).apply(event)

    def finish(self) -> tuple[list[Record], Summary]:
        records: list[Record] = []
        for mirror in self.mirrors.values():
            records += mirror.finish()
        ms = list(self.mirrors.values())
        totals = [sum(m.totals[s] for m in ms) for s in range(SEATS)]
        summary = Summary(
            events=sum(m.events for m in ms),
            duplicates=sum(m.duplicates for m in ms),
            gaps=sum(m.gaps for m in ms),
            hands=sum(m.hands for m in ms),
            violations=sum(m.violations for m in ms),
            faults=sum(m.faults for m in ms),
            totals=totals,
        )
        return records, summary


def replay_lines(lines: Iterable[str], replay: Replay | None = None) -> Iterator[str]:
    """JSON lines of judgement records, the summary last; raises ReplayInputError.
    `replay`: a Replay of the caller's (say, one that judges by a given profile)."""
    replay = replay or Replay()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        for record in replay.feed(number, line):
            yield record.model_dump_json(by_alias=True)
    records, summary = replay.finish()
    for record in records:
        yield record.model_dump_json(by_alias=True)
    yield summary.model_dump_json()


def _envelope(data: dict[str, Any]) -> tuple[str, int, int] | None:
    table, boot_id, seq = data.get("table"), data.get("boot_id"), data.get("seq")
    if isinstance(table, str) and type(boot_id) is int and type(seq) is int:
        return table, boot_id, seq
    return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])  # never empty: every line is an object
    return f"{where}: {err['msg']}"
