"""docs/events.md is generated from the models: it must be current, complete and valid."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel

from firmware_bridge.messages import EVENT_BODY, Event
from firmware_bridge.protocol.catalogue import CATALOGUE, Direction
from mjtable import event_docs
from table_service.mirror import records

RECORDS: dict[str, type[BaseModel]] = {
    "violation": records.Violation,
    "fault": records.Fault,
    "hand": records.HandRecord,
    "summary": records.Summary,
}


def test_docs_events_md_is_current() -> None:
    current = event_docs.DOC.read_text(encoding="utf-8")
    assert current == event_docs.render(), (
        "docs/events.md is stale: run `python -m mjtable.event_docs`"
    )


def test_every_code_has_a_meaning() -> None:
    assert set(event_docs.VIOLATION_MEANINGS) == set(records.VIOLATION_CODES)
    assert set(event_docs.FAULT_MEANINGS) == set(records.FAULT_CODES)
    meanings = [*event_docs.VIOLATION_MEANINGS.values(), *event_docs.FAULT_MEANINGS.values()]
    assert all(m.strip() for m in meanings)


def test_every_wire_event_has_a_documented_body() -> None:
    kinds = [str(cls.model_fields["kind"].default) for cls in event_docs.body_models()]
    wire = {cls.KIND for cls in CATALOGUE if cls.DIRECTION is Direction.EVENT}
    assert set(kinds) == wire | {"invalid"}
    assert all(cls.__doc__ for cls in event_docs.body_models())
    assert [e.kind for e in event_docs.example_events()] == kinds


def test_every_example_in_the_page_validates() -> None:
    lines = re.findall(r"^```json\n(.*)\n```$", event_docs.render(), re.M)
    kinds, types = set(), set()
    for line in lines:
        data = json.loads(line)
        if "body" in data:
            event = Event.model_validate_json(line)
            assert EVENT_BODY.validate_python(data["body"]) == event.body
            kinds.add(event.kind)
        else:
            RECORDS[data["type"]].model_validate_json(line)
            types.add(data["type"])
    assert len(kinds) == len(event_docs.body_models())
    assert types == set(RECORDS)


def test_main_writes_the_page(tmp_path: Path) -> None:
    out = tmp_path / "events.md"
    assert event_docs.main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == event_docs.render()
