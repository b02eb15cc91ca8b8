"""Independent oracles: each event kind's frame from docs/protocol.md §6, as hex copied by
hand, and the JSON body the bridge must publish for it, written out by hand.

Nothing expected here is computed by the code under test: a change to the catalogue,
the schema or `to_event` that changes what a consumer reads fails below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.event_store import to_event
from firmware_bridge.link import LinkEvent
from firmware_bridge.messages import EVENT_BODY
from firmware_bridge.protocol import CATALOGUE, decode_frame, encode_frame, from_frame, to_frame
from firmware_bridge.protocol.catalogue import Direction
from firmware_bridge.protocol.errors import PayloadError
from firmware_bridge.protocol.frame import Frame

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"

# (wire bytes of the §6 vector, the body published for it)
CASES: list[tuple[str, dict[str, Any]]] = [
    ("04 01 10 01 01 01 03 39 5e 00", {"kind": "shuffle_started"}),
    ("04 01 11 02 01 01 03 08 d3 00", {"kind": "shuffle_finished"}),
    (
        "04 01 12 03 01 01 07 12 12 12 12 5f 3e 00",
        {"kind": "wall_built", "stacks_0": 18, "stacks_1": 18, "stacks_2": 18, "stacks_3": 18},
    ),
    (
        "04 01 13 04 01 01 07 02 03 05 06 d4 a0 00",
        {"kind": "dice_rolled", "roll": "deal", "die_1": 3, "die_2": 5, "die_3": 6},
    ),
    (
        "04 01 14 07 02 03 03 02 25 03 a1 6d 00",
        {"kind": "tile_drawn", "seat": 2, "tile": 37, "end": "front"},
    ),
    (
        "04 01 14 08 02 03 02 02 04 01 c2 b6 00",
        {"kind": "tile_drawn", "seat": 2, "tile": 0, "end": "back"},
    ),
    ("04 01 15 09 02 03 05 02 6c 20 47 00", {"kind": "tile_discarded", "seat": 2, "tile": 108}),
    (
        "04 01 16 0a 02 03 0a 03 01 02 03 6c 6d 6e 22 11 00",
        {"kind": "meld_exposed", "seat": 3, "meld": "pong", "from_seat": 2,
         "tiles": [108, 109, 110]},
    ),
    (
        "04 01 16 0b 02 03 05 01 04 ff 04 06 01 02 03 de b1 00",
        {"kind": "meld_exposed", "seat": 1, "meld": "kong_concealed", "from_seat": 255,
         "tiles": [0, 1, 2, 3]},
    ),
    ("04 01 17 0c 02 03 01 04 88 d8 6d 00", {"kind": "flower_revealed", "seat": 0, "tile": 136}),
    ("04 01 18 0d 02 03 02 01 03 34 95 00", {"kind": "seat_button", "seat": 1, "button": "win"}),
    (
        "04 01 19 0e 02 03 03 01 11 13 04 08 24 28 2c 48 4c 50 6c 6d 6e 70 71 74 75 76 c0 0b 00",
        {"kind": "hand_revealed", "seat": 1,
         "tiles": [0, 4, 8, 36, 40, 44, 72, 76, 80, 108, 109, 110, 112, 113, 116, 117, 118]},
    ),
    ("04 01 1a 0f 02 03 04 47 d1 a3 00", {"kind": "tiles_left", "count": 71}),
    (
        "04 01 1b 10 02 03 06 01 02 01 80 90 00",
        {"kind": "fault", "code": "jam", "unit": 2, "active": 1},
    ),
    (
        "04 01 1c 11 02 04 04 04 47 02 03 20 fa 00",
        {"kind": "state", "phase": "playing", "tiles_left": 71, "turn": 2, "dealer": 0},
    ),
    (
        "04 01 1d 12 02 04 07 02 02 35 36 18 ff 00",
        {"kind": "tiles_shown", "seat": 2, "tiles": [53, 54]},
    ),
    (
        "04 01 1e 13 02 07 02 07 05 42 03 99 95 00",
        {"kind": "command_refused", "command_seq": 7, "command_type": 66,
         "reason": "bad_payload"},
    ),
]  # fmt: skip


IDS = [f"{body['kind']}-seq{int(wire[12:14], 16)}" for wire, body in CASES]


def published(wire: bytes) -> dict[str, Any]:
    """What the bridge publishes for these wire bytes (boot 7, event seq 1, at ts 1.5)."""
    frame = decode_frame(wire[:-1])  # the trailing 00 ends the COBS frame
    try:
        message, error = from_frame(frame), None
    except PayloadError as exc:
        message, error = None, str(exc)
    item = LinkEvent(7, 1, 1.5, frame.type, frame.payload, message, error)
    return dict(json.loads(to_event("t07", item).model_dump_json()))


def test_every_event_kind_has_a_literal_body() -> None:
    events = {cls.KIND for cls in CATALOGUE if cls.DIRECTION is Direction.EVENT}
    assert {body["kind"] for _, body in CASES} == events


def test_every_case_is_a_vector_of_the_protocol() -> None:
    text = DOC.read_text(encoding="utf-8")
    for wire, _ in CASES:
        assert f"wire:   {wire}\n" in text


@pytest.mark.parametrize(("wire", "body"), CASES, ids=IDS)
def test_the_vector_is_published_as_the_literal_body(wire: str, body: dict[str, Any]) -> None:
    assert published(bytes.fromhex(wire)) == {
        "schema_version": 1, "table": "t07", "boot_id": 7, "seq": 1, "ts": 1.5, "body": body,
    }  # fmt: skip


@pytest.mark.parametrize(("wire", "body"), CASES, ids=IDS)
def test_the_literal_body_reads_back_as_the_vectors_message(
    wire: str, body: dict[str, Any]
) -> None:
    """The consumer's direction: the JSON read with the schema is the message on the wire."""
    message = EVENT_BODY.validate_json(json.dumps(body)).to_message()
    frame = decode_frame(bytes.fromhex(wire)[:-1])
    assert encode_frame(to_frame(message, frame.seq, frame.ack)) == bytes.fromhex(wire)


def test_a_frame_the_catalogue_refuses_is_a_literal_invalid_body() -> None:
    wire = encode_frame(Frame(0x14, 9, 3, bytes([2, 200, 0])))  # tile 200 does not exist
    assert published(wire)["body"] == {
        "kind": "invalid",
        "type": 20,
        "payload_hex": "02c800",
        "error": "type 0x14: tile_drawn: tile: 200 out of range 0..143",
    }
