"""Every hex example in docs/protocol.md is a test vector: encode and decode must agree."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest

from firmware_bridge.protocol import (
    BY_TYPE,
    CATALOGUE,
    decode_frame,
    encode_frame,
    from_frame,
    to_frame,
)
from firmware_bridge.protocol.catalogue import build, plain
from firmware_bridge.protocol.crc import crc16

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
VECTOR = re.compile(
    r"^vector: (?P<kind>\w+) seq=(?P<seq>\d+) ack=(?P<ack>\d+) (?P<fields>\{.*\})\n"
    r"body: +(?P<body>[0-9a-f ]+) \| (?P<crc>[0-9a-f ]+)\n"
    r"wire: +(?P<wire>[0-9a-f ]+)$",
    re.M,
)
VECTORS = [m.groupdict() for m in VECTOR.finditer(DOC.read_text(encoding="utf-8"))]


def test_every_message_type_has_a_vector() -> None:
    kinds = {v["kind"] for v in VECTORS}
    assert kinds == {cls.KIND for cls in CATALOGUE}


@pytest.mark.parametrize("v", VECTORS, ids=[f"{v['kind']}-{v['seq']}" for v in VECTORS])
def test_vector(v: dict[str, str]) -> None:
    message = build(v["kind"], json.loads(v["fields"]))
    seq, ack = int(v["seq"]), int(v["ack"])
    body = bytes.fromhex(v["body"])
    crc = bytes.fromhex(v["crc"])
    wire = bytes.fromhex(v["wire"])
    assert crc16(body).to_bytes(2, "big") == crc
    assert encode_frame(to_frame(message, seq, ack)) == wire
    frame = decode_frame(wire[:-1])
    assert (frame.seq, frame.ack) == (seq, ack)
    assert from_frame(frame) == message
    assert plain(from_frame(frame)) == json.loads(v["fields"])


TYPE_ROW = re.compile(
    r"^\| 0x(?P<code>[0-9A-F]{2}) \| (?P<name>\w+) \| (?P<dir>[^|]+) \| (?P<seq>yes|no) \| "
    r"(?P<size>[^|]+) \|$",
    re.M,
)


def test_type_table_matches_the_catalogue() -> None:
    rows = list(TYPE_ROW.finditer(DOC.read_text(encoding="utf-8")))
    assert {int(r["code"], 16) for r in rows} == {cls.TYPE for cls in CATALOGUE}
    for r in rows:
        cls = BY_TYPE[int(r["code"], 16)]
        assert r["name"] == cls.KIND.upper()
        assert (r["seq"] == "yes") == cls.SEQUENCED
        direction = {"device → host": "EVENT", "host → device": "COMMAND", "both": "LINK"}
        if cls.DIRECTION.name != "LINK":
            assert direction[r["dir"].strip()] == cls.DIRECTION.name
        if r["size"].strip().isdigit():
            assert int(r["size"]) == struct.calcsize(cls.FORMAT), cls.KIND
