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
from table_service.mirror.rulings import RULING_KINDS, parse_ruling
from table_service.rules.items import ITEMS
from table_service.rules.rulebook import BY_CODE

RULINGS_HEADING = "## Referee's rulings"  # the page's last part
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


def test_every_code_is_a_row_of_the_rulebook() -> None:
    """Each violation and fault code is one row of the page: its rules, 相公, its names and
    meanings in Chinese and English, as the rulebook has them; each 台 item with its names."""
    page = event_docs.render().split(RULINGS_HEADING, 1)[0]
    rows = {m[1]: m[0] for m in re.findall(r"^(\| `([a-z_0-9]+)` \|.*)$", page, re.M)}
    for code in (*records.VIOLATION_CODES, *records.FAULT_CODES):
        rule = BY_CODE[code]
        cells = [c.strip() for c in rows[code].strip("|").split(" | ")]
        words = [rule.zh, rule.zh_meaning, rule.en, rule.en_meaning]
        assert cells[-4:] == [w.replace("|", "\\|") for w in words], code
        assert cells[1] == ", ".join(rule.rules)
        if rule.kind == "violation":
            assert cells[2] == ("yes" if code in records.DEAD_HAND_CODES else "")
    for item in ITEMS:
        assert rows[item.id] == f"| `{item.id}` | {item.name} | {item.en} | {item.tai} |"


def test_every_wire_event_has_a_documented_body() -> None:
    kinds = [str(cls.model_fields["kind"].default) for cls in event_docs.body_models()]
    wire = {cls.KIND for cls in CATALOGUE if cls.DIRECTION is Direction.EVENT}
    assert set(kinds) == wire | {"invalid"}
    assert all(cls.__doc__ for cls in event_docs.body_models())
    assert [e.kind for e in event_docs.example_events()] == kinds


def test_every_example_in_the_page_validates() -> None:
    page = event_docs.render().split(RULINGS_HEADING, 1)[0]
    lines = re.findall(r"^```json\n(.*)\n```$", page, re.M)
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


def test_every_ruling_kind_is_documented_with_an_example_the_service_takes() -> None:
    part = event_docs.render().split(RULINGS_HEADING, 1)[1]
    rulings = [json.loads(line) for line in re.findall(r"^```json\n(.*)\n```$", part, re.M)]
    assert {e["kind"] for e in rulings} == set(RULING_KINDS)
    for example in rulings:
        assert parse_ruling(example).model_dump(mode="json") == example
        assert f"### `{example['kind']}`" in part
