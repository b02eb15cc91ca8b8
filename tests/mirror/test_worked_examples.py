"""The worked replay examples (replay-format.md), judged in process by their own checker's rules.

test_replay_cli runs check.py on `mjtable replay` as a process; this runs the same streams
through `replay_lines` and compares with check.py's own matching functions, fast enough for
every mutant of bench/mutation.py. Each record must also read back into its model.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from table_service.mirror.records import Record, Summary
from table_service.mirror.replay import replay_lines

EXAMPLES = Path(__file__).parent.parent / "data" / "examples-replay"
_spec = importlib.util.spec_from_file_location("replay_check", EXAMPLES / "check.py")
assert _spec is not None and _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def replayed(name: str) -> list[dict[str, Any]]:
    lines = (EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(out) for out in replay_lines(lines)]


@pytest.mark.parametrize("name", ["EX01", "EX02", "EX03"])
def test_worked_example(name: str) -> None:
    expected = json.loads((EXAMPLES / f"{name}.expected.json").read_text(encoding="utf-8"))
    records = replayed(name)
    of = {kind: [r for r in records if r["type"] == kind] for kind in ("violation", "fault")}
    violations = [(r["seq"], r["seat"], r["code"]) for r in of["violation"]]
    faults = [(r["seq"], r["code"]) for r in of["fault"]]
    allowed = expected.get("allowed_violations", [])
    assert check.match_set("violation", expected["violations"], violations, allowed) is None
    assert check.match_set("fault", expected["faults"], faults, []) is None
    hands = [r for r in records if r["type"] == "hand"]
    assert len(hands) == len(expected["hands"])
    for n, (want, got) in enumerate(zip(expected["hands"], hands, strict=True), 1):
        assert check.compare_hand(n, want, got) is None
    summary = records[-1]
    assert summary["type"] == "summary"
    assert summary["duplicates"] == expected["duplicates"]
    assert summary["hands"] == len(hands)


@pytest.mark.parametrize("name", ["EX01", "EX02", "EX03"])
def test_every_record_reads_back_into_its_model(name: str) -> None:
    records = replayed(name)
    adapter: TypeAdapter[Any] = TypeAdapter(Record)
    for record in records[:-1]:
        assert adapter.validate_python(record).model_dump(mode="json", by_alias=True) == record
    assert Summary.model_validate(records[-1]).model_dump(mode="json") == records[-1]
