"""`replay_lines` in process: each unreadable line's message, blank lines, several tables.

test_replay_cli shows the process's exit codes; these pin the messages themselves
(replay-format.md: exit 2 names the bad line), fast enough for bench/mutation.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_service.mirror.replay import ReplayInputError, replay_lines

EX01 = (
    (Path(__file__).parent.parent / "data" / "examples-replay" / "EX01.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()
)
SESSION = EX01[0]


def records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(out) for out in replay_lines(lines)]


def event(seq: int, body: dict[str, Any], table: str = "sc") -> str:
    envelope = {"schema_version": 1, "table": table, "boot_id": 1, "seq": seq, "ts": 1.0}
    return json.dumps({**envelope, "body": body})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json",
         "line 2: not JSON: Expecting property name enclosed in double quotes (column 2)"),
        ("[1, 2]", "line 2: expected a JSON object (an event or a session)"),
        ('{"table": "t", "seq": 1}', "line 2: boot_id: Field required"),
        ('{"table": "t", "boot_id": 1, "seq": 1, "ts": 0}', "line 2: body: Field required"),
        ('{"session": {"players": ["a"]}}', "line 2: session: players.1: Field required"),
        ('{"session": {"profile": "house"}}',
         "line 2: session: profile: Value error, unknown profile 'house' (known: mjonline, "
         "seed001)"),
        ('{"session": {}, "zz": 1, "extra": 1}', "line 2: extra: unknown key beside session"),
        ('{"session": {}, "zz": 1}', "line 2: zz: unknown key beside session"),
        # a body, but no sound envelope: the line is unreadable, not the table's fault
        ('{"table": "t", "seq": 1, "ts": 0, "body": {"kind": "shuffle_started"}}',
         "line 2: boot_id: Field required"),
        ('{"table": "t", "boot_id": 1.5, "seq": 1, "ts": 0, "body": {"kind": "shuffle_started"}}',
         "line 2: boot_id: Input should be a valid integer, got a number with a fractional part"),
    ],
)  # fmt: skip
def test_an_unreadable_line_is_named_with_its_reason(line: str, message: str) -> None:
    with pytest.raises(ReplayInputError) as info:
        records([SESSION, line])
    assert (str(info.value), info.value.line) == (message, 2)


def test_blank_lines_are_skipped_and_still_counted() -> None:
    with pytest.raises(ReplayInputError) as info:
        records([SESSION, "", "   ", "[]"])
    assert str(info.value) == "line 4: expected a JSON object (an event or a session)"
    assert records(["", *EX01, ""]) == records(EX01)


def test_a_sound_envelope_with_an_impossible_body_is_the_tables_fault() -> None:
    """replay-format.md: a body the schema refuses is a fault at its seq, not an input error."""
    got = records([SESSION, event(1, {"kind": "tile_drawn", "seat": 0, "tile": 200})])
    fault = got[0]
    assert (fault["type"], fault["table"], fault["seq"], fault["code"]) == (
        "fault", "sc", 1, "unknown_tile",
    )  # fmt: skip
    assert fault["detail"].startswith("unreadable event: body.tile_drawn.tile: ")
    got = records([SESSION, event(1, {"kind": "tile_drawn", "seat": 9, "tile": 3, "end": "x"})])
    assert (got[0]["code"], got[0]["detail"]) == (
        "impossible", "unreadable event: body.tile_drawn.seat: Input should be less than or "
        "equal to 3",
    )  # fmt: skip
    assert got[-1]["faults"] == 1


def test_every_tables_stream_is_finished() -> None:
    """Two tables whose streams stop before the reveal: each win is judged at the end."""
    cut = EX01[:-1]
    other = [line.replace('"table": "sc"', '"table": "sd"') for line in cut]
    got = records([*cut, *other])
    hands = [r for r in got if r["type"] == "hand"]
    assert [(h["table"], h["seat"], h["net"]) for h in hands] == [
        ("sc", 1, [-240, 240, 0, 0]), ("sd", 1, [-240, 240, 0, 0]),
    ]  # fmt: skip
    assert hands[1]["payments"][0]["from"] == 0  # the wire names here too
    assert (got[-1]["hands"], got[-1]["totals"]) == (2, [-480, 480, 0, 0])


def test_payments_are_written_with_their_wire_names() -> None:
    """replay-format.md's payment: {"from", "to", "amount", …}, not the model's field names."""
    (hand,) = [r for r in records(EX01) if r["type"] == "hand"]
    assert hand["payments"] == [{"from": 0, "to": 1, "amount": 240, "tai": 6, "dealer_tai": 1}]


def test_a_session_without_a_table_name_is_the_default_tables() -> None:
    """replay-format.md: a session line may leave out `table`; it is then "table"."""
    session = json.loads(SESSION)
    del session["session"]["table"]
    session["session"]["base"] = 200
    lines = [
        json.dumps(session),
        *(line.replace('"table": "sc"', '"table": "table"') for line in EX01[1:]),
    ]
    (hand,) = [r for r in records(lines) if r["type"] == "hand"]
    assert (hand["table"], hand["net"]) == ("table", [-340, 340, 0, 0])  # 底 200 + 6 台 × 20


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"table": "t\xff", "seq": 1}', "line 2: not UTF-8: byte 0xff at column 13"),
        (b"\xc3(", "line 2: not UTF-8: byte 0xc3 at column 1"),
        (b"[" * 100_000 + b"]" * 100_000, "line 2: JSON nested deeper than any event"),
    ],
    ids=["bad-byte", "cut-sequence", "deep"],
)
def test_bytes_no_reader_can_take_are_named_with_their_byte_and_column(
    line: bytes, message: str
) -> None:
    """The replay reads with errors="surrogateescape" (test_replay_cli shows the process):
    the message names the bad byte as it was in the file and its 1-based column."""
    with pytest.raises(ReplayInputError) as info:
        records([SESSION, line.decode("utf-8", "surrogateescape")])
    assert (str(info.value), info.value.line) == (message, 2)
