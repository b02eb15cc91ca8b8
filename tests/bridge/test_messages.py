"""The published MQTT schema: what the event models accept, refuse and write."""

from __future__ import annotations

import dataclasses
import json
import typing
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from firmware_bridge import messages as m
from firmware_bridge.messages import (
    COMMAND,
    EVENT_BODY,
    Event,
    EventBody,
    MeldExposed,
    SeatButton,
    TilesShown,
)
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import plain


def test_tiles_shown_body_from_the_catalogue_message() -> None:
    message = c.TilesShown(2, (53, 54))
    body = EVENT_BODY.validate_python({"kind": message.KIND, **plain(message)})
    assert body == TilesShown(seat=2, tiles=(53, 54))
    event = Event(table="t07", boot_id=7, seq=18, ts=1.5, body=body)
    assert json.loads(event.model_dump_json())["body"] == {
        "kind": "tiles_shown",
        "seat": 2,
        "tiles": [53, 54],
    }
    assert Event.model_validate_json(event.model_dump_json()) == event


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"kind": "tiles_shown", "seat": 1, "tiles": [144]}, "less than or equal to 143"),
        ({"kind": "tiles_shown", "seat": 1, "tiles": [-1]}, "greater than or equal to 0"),
        ({"kind": "tiles_shown", "seat": 1, "tiles": []}, "at least 1 item"),
        ({"kind": "tiles_shown", "seat": 1, "tiles": list(range(25))}, "at most 24 items"),
        ({"kind": "tiles_shown", "seat": 4, "tiles": [0]}, "less than or equal to 3"),
        ({"kind": "tiles_shown", "tiles": [0]}, "tiles_shown.seat\n  Field required"),
        ({"kind": "tiles_shown", "seat": 1, "tiles": [0], "extra": 1}, "Extra inputs are not"),
    ],
)
def test_tiles_shown_refuses_what_the_wire_cannot_carry(body: dict[str, object], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        EVENT_BODY.validate_python(body)


def test_pong_is_written_and_the_old_pung_is_still_read() -> None:
    for name in ("pung", "PUNG", "pong", "Pong", 1):
        meld = MeldExposed(seat=3, meld=name, from_seat=2, tiles=(108, 109, 110))
        assert meld.meld is c.MeldKind.PONG
        assert json.loads(meld.model_dump_json())["meld"] == "pong"
    for name in ("pung", "pong", 2):
        button = SeatButton(seat=1, button=name)
        assert button.button is c.Button.PONG
        assert json.loads(button.model_dump_json())["button"] == "pong"
    recorded = (
        '{"kind": "meld_exposed", "seat": 3, "meld": "pung", "from_seat": 2, "tiles": [1, 2, 3]}'
    )
    assert EVENT_BODY.validate_json(recorded).meld is c.MeldKind.PONG
    schema = MeldExposed.model_json_schema()["properties"]["meld"]
    assert "pong" in schema["enum"] and "pung" not in schema["enum"]
    with pytest.raises(ValidationError, match="'peng' is not one of chow, pong"):
        MeldExposed(seat=3, meld="peng", from_seat=2, tiles=(108, 109, 110))


# --- one definition: the schema is derived from the catalogue, and agrees with it ------

EVENTS = [cls for cls in c.CATALOGUE if cls.DIRECTION is c.Direction.EVENT]
COMMANDS = [cls for cls in c.CATALOGUE if cls.DIRECTION is c.Direction.COMMAND]


def test_every_catalogue_event_has_a_body_and_no_other_body_exists() -> None:
    union = typing.get_args(typing.get_args(EventBody)[0])
    kinds = [model.model_fields["kind"].default for model in union]
    assert sorted(kinds) == sorted([cls.KIND for cls in EVENTS] + ["invalid"])
    assert len(set(kinds)) == len(kinds)
    assert {model.model_fields["command"].default for model in m.COMMANDS} == {
        cls.KIND for cls in COMMANDS
    }


@pytest.mark.parametrize("cls", EVENTS + COMMANDS, ids=lambda cls: cls.KIND)
def test_same_field_names_in_the_same_order(cls: type[c.Message]) -> None:
    model = _model(cls)
    names = [n for n in model.model_fields if n not in ("kind", "command", "transaction")]
    assert names == [f.name for f in dataclasses.fields(cls)]


def _model(cls: type[c.Message]) -> Any:
    if cls.DIRECTION is c.Direction.EVENT:
        return getattr(m, cls.__name__)
    return next(model for model in m.COMMANDS if model.__name__ == cls.__name__)


def _base(spec: c.FieldSpec) -> Any:
    """The lowest legal value of a field: every message of lowest values is valid."""
    one: Any = next(iter(spec.type)).name.lower() if spec.range is None else spec.range.low
    return one if spec.count is None else [one] * spec.count.low


def _extremes(spec: c.FieldSpec) -> list[Any]:
    """Each bound and its outside neighbour; every enum member by name and by number."""
    if spec.range is None:
        members = list(spec.type)
        values: list[Any] = [x.name.lower() for x in members] + [x.name for x in members]
        values += [int(x) for x in members]
        values += [min(members) - 1, max(members) + 1, "nope", None]
    else:
        low, high, also = spec.range.low, spec.range.high, spec.range.also
        values = [low - 1, low, high, high + 1]
        if also is not None:
            values += [also - 1, also, also + 1]
    if spec.count is None:
        return values
    pad = _base(spec)[1:]
    lengths = [spec.count.low - 1, spec.count.low, spec.count.high, spec.count.high + 1]
    return [[v, *pad] for v in values] + [[_base(spec)[0]] * n for n in lengths]


def _verdicts(cls: type[c.Message], values: dict[str, Any]) -> tuple[str | None, str | None]:
    """(catalogue's error, schema's error) for one set of plain values; None: accepted."""
    wire = schema = None
    try:
        c.build(cls.KIND, values)
    except (ValueError, TypeError) as exc:
        wire = str(exc)
    tag = {"kind": cls.KIND} if cls.DIRECTION is c.Direction.EVENT else {"command": cls.KIND}
    try:
        (EVENT_BODY if "kind" in tag else COMMAND).validate_python(tag | values)
    except ValidationError as exc:
        schema = str(exc)
    return wire, schema


@pytest.mark.parametrize("cls", EVENTS + COMMANDS, ids=lambda cls: cls.KIND)
def test_both_sides_accept_and_refuse_the_same_extremes(cls: type[c.Message]) -> None:
    specs = c.field_specs(cls)
    base = {s.name: _base(s) for s in specs}
    assert _verdicts(cls, base) == (None, None)
    walked = 0
    for spec in specs:
        for value in _extremes(spec):
            wire, schema = _verdicts(cls, base | {spec.name: value})
            walked += 1
            if wire is not None and schema is None:  # only a check across fields may differ
                assert cls is c.MeldExposed and " needs " in wire, (spec.name, value)
            else:
                assert (wire is None) == (schema is None), (spec.name, value, wire, schema)
    assert walked >= 4 * len(specs)


@pytest.mark.parametrize("cls", EVENTS + COMMANDS, ids=lambda cls: cls.KIND)
def test_the_schema_shows_the_catalogue_ranges(cls: type[c.Message]) -> None:
    """What docs/events.md prints (from the JSON schema) is what the catalogue checks."""
    props = _model(cls).model_json_schema()["properties"]
    for spec in c.field_specs(cls):
        prop = props[spec.name]
        if spec.count is not None:
            assert (prop["minItems"], prop["maxItems"]) == (spec.count.low, spec.count.high)
            prop = prop["items"]
        if spec.range is None:
            assert prop["enum"] == [x.name.lower() for x in spec.type]
        elif spec.range.also is None:
            assert (prop["minimum"], prop["maximum"]) == (spec.range.low, spec.range.high)
        else:
            span, also = prop["anyOf"]
            assert (span["minimum"], span["maximum"]) == (spec.range.low, spec.range.high)
            assert also["const"] == spec.range.also
        if cls.DIRECTION is c.Direction.EVENT:
            assert props[spec.name]["description"].startswith(spec.description)


def _plain_values(spec: c.FieldSpec) -> st.SearchStrategy[Any]:
    if spec.range is None:
        names = [x.name.lower() for x in spec.type]
        one: st.SearchStrategy[Any] = st.sampled_from(names) | st.integers(-1, 256)
    else:
        low, high = spec.range.low, spec.range.high
        one = st.integers(low - 2, high + 2)
        if spec.range.also is not None:
            one |= st.integers(spec.range.also - 2, spec.range.also + 2)
    if spec.count is None:
        return one
    return st.lists(one, min_size=spec.count.low - 1, max_size=spec.count.high + 1)


@st.composite
def _candidates(draw: st.DrawFn) -> tuple[type[c.Message], dict[str, Any]]:
    cls = draw(st.sampled_from(EVENTS + COMMANDS))
    return cls, {s.name: draw(_plain_values(s)) for s in c.field_specs(cls)}


@settings(max_examples=400, deadline=None)
@given(_candidates())
def test_any_values_are_accepted_by_both_sides_or_by_neither(
    case: tuple[type[c.Message], dict[str, Any]],
) -> None:
    cls, values = case
    wire, schema = _verdicts(cls, values)
    if wire is not None and schema is None:
        assert cls is c.MeldExposed and " needs " in wire
    else:
        assert (wire is None) == (schema is None), (wire, schema)


def test_a_body_gives_back_its_catalogue_message() -> None:
    body = EVENT_BODY.validate_python(
        {"kind": "meld_exposed", "seat": 1, "meld": "pung", "from_seat": 255, "tiles": [4, 5, 6]}
    )
    assert body.to_message() == c.MeldExposed(1, c.MeldKind.PONG, 0xFF, (4, 5, 6))
