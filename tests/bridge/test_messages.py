"""The published MQTT schema: what the event models accept, refuse and write."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from firmware_bridge.messages import (
    EVENT_BODY,
    Event,
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
    "body",
    [
        {"kind": "tiles_shown", "seat": 1, "tiles": [144]},
        {"kind": "tiles_shown", "seat": 1, "tiles": [-1]},
        {"kind": "tiles_shown", "seat": 1, "tiles": []},
        {"kind": "tiles_shown", "seat": 1, "tiles": list(range(25))},
        {"kind": "tiles_shown", "seat": 4, "tiles": [0]},
        {"kind": "tiles_shown", "tiles": [0]},
        {"kind": "tiles_shown", "seat": 1, "tiles": [0], "extra": 1},
    ],
)
def test_tiles_shown_refuses_what_the_wire_cannot_carry(body: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
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
