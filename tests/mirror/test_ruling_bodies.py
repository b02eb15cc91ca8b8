"""Worked cases for rulings.py's survivors of bench/mutation.py: what a referee's ruling
body may say, at each bound (a seat 0–3, a streak 0–100, an event's boot 0–2³²−1 and seq
1–2⁵³−1, a tile 0–143 or a code of a kind or a flower h1–h8, a reason of 1–500 characters
with no NUL), whole numbers as JSON Schema's `integer` reads them, and the schema the API
publishes for them (its descriptions and the tile codes' enum)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from table_service.mirror.rulings import RULING, TILE_CODES, parse_ruling

EVENT = {"boot_id": 7, "seq": 40}


def tile(read: Any = 5, was: Any = 6, **more: Any) -> dict[str, Any]:
    return {"kind": "tile", **EVENT, "read": read, "was": was, "reason": "misread"} | more


def deal(**more: Any) -> dict[str, Any]:
    return {"kind": "deal", "dealer": 1, "streak": 0, "round_wind": 0} | more


def refused(body: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        parse_ruling(body)
    return str(caught.value)


# (a body with the field set, the field, values at its bounds, values just past them)
BOUNDS = [
    (deal, "streak", [0, 100], [-1, 101]),  # 連莊 N from none to a hundred
    (tile, "boot_id", [0, 0xFFFFFFFF], [-1, 0x100000000]),  # any 32-bit boot
    (tile, "seq", [1, 2**53 - 1], [0, 2**53]),  # from one to what JSON holds exactly
    (tile, "read", [0, 143], [-1, 144]),  # one of the 144 tiles
]


@pytest.mark.parametrize(
    ("body", "name", "value"),
    [(body, name, v) for body, name, inside, _ in BOUNDS for v in inside],
)
def test_a_value_at_its_fields_bounds_is_taken(body: Any, name: str, value: int) -> None:
    assert getattr(parse_ruling(body(**{name: value})), name) == value


@pytest.mark.parametrize(
    ("body", "name", "value"),
    [(body, name, v) for body, name, _, past in BOUNDS for v in past],
)
def test_a_value_past_its_fields_bounds_is_refused(body: Any, name: str, value: int) -> None:
    assert name in refused(body(**{name: value}))


@pytest.mark.parametrize("code", ["h1", "h8", "5m", "E", "P"])
def test_a_tile_by_code_is_a_kind_or_one_of_the_eight_flowers(code: str) -> None:
    assert parse_ruling(tile(was=code)).was == code


@pytest.mark.parametrize("code", ["h0", "h9", "XXh1XX", "10m"])
def test_any_other_tile_code_is_refused_naming_the_codes(code: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_ruling(tile(was=code))
    assert [e["msg"] for e in caught.value.errors()] == [
        f"Value error, unknown tile code {code!r} "
        "(one of 1m…9m, 1p…9p, 1s…9s, E S W N C F P, h1…h8)"
    ]


def test_a_ruling_is_a_fixed_value_with_no_field_of_its_own() -> None:
    """A ruling kept in the log is what the referee said: it cannot be changed once read
    (and so can be a key), and a field the kind does not have is refused, not ignored."""
    ruling = parse_ruling(tile())
    with pytest.raises(ValidationError):
        ruling.reason = "changed"
    assert {ruling: 1}[parse_ruling(tile())] == 1
    assert "colour" in refused(tile(colour="red"))


def win(**more: Any) -> dict[str, Any]:
    concealed = ["2m", "3m", "4m", "6m", "7m", "8m", "2s", "3s", "4s", "6p", "6p", "6p", "7s",
                 "8s", "W", "W", "6s"]  # fmt: skip
    return {"kind": "hand", **EVENT, "reason": "unread", "result": "win", "how": "discard",
            "seat": 2, "payer": 0, "tile": "6s", "concealed": concealed} | more  # fmt: skip


def test_a_ruled_win_names_its_winner_payer_and_tile_and_at_most_17_tiles() -> None:
    assert len(parse_ruling(win()).concealed) == 17  # 16 and the winning tile
    assert "concealed" in refused(win(concealed=[*win()["concealed"], "1m"]))
    for missing in ("seat", "payer", "tile", "concealed"):
        body = win()
        del body[missing]
        assert missing in refused(body)
    drawn = win(how="self_draw")
    del drawn["payer"]
    assert parse_ruling(drawn).seat == 2
    for missing in ("seat", "tile", "concealed"):
        body = dict(drawn)
        del body[missing]
        assert missing in refused(body)
    too_many = dict(drawn, concealed=[*drawn["concealed"], "1m"])
    assert "concealed" in refused(too_many)


def test_whole_numbers_are_read_as_json_schema_reads_integer() -> None:
    assert parse_ruling(deal(streak=3.0)).streak == 3
    for wrong in ("3", True, 3.5):
        with pytest.raises(ValidationError) as caught:
            parse_ruling(deal(streak=wrong))
        [error] = caught.value.errors()
        assert (error["loc"], error["msg"]) == (
            ("deal", "streak"),
            "Value error, Input should be a valid integer",
        )


def test_a_reason_is_one_to_five_hundred_characters_with_no_nul() -> None:
    assert parse_ruling(tile(reason="x" * 500)).reason == "x" * 500
    assert "reason" in refused(tile(reason="x" * 501))
    assert "reason" in refused(tile(reason=""))
    assert "reason" in refused(tile(reason="a\x00b"))


def test_the_published_schema_says_what_each_field_is() -> None:
    """The API's /openapi.json is built from these: a client reads its descriptions, the
    tile codes' enum and the bounds."""
    schema: dict[str, Any] = RULING.json_schema()
    fields = schema["$defs"]["TileRuling"]["properties"]
    said = {name: fields[name]["description"] for name in ("reason", "boot_id", "seq", "read")}
    assert said == {
        "reason": "why, for the record",
        "boot_id": "the event's boot",
        "seq": "the event's seq in its boot",
        "read": "a tile id (0–143), or a code such as 5m, E or h3",
    }
    tile_schema = fields["read"]
    by_type = {branch["type"]: branch for branch in tile_schema["oneOf"]}
    assert by_type["string"]["enum"] == list(TILE_CODES)
    assert (by_type["integer"]["minimum"], by_type["integer"]["maximum"]) == (0, 143)


def test_a_deal_and_a_penalty_name_every_field_they_need() -> None:
    for missing in ("dealer", "streak", "round_wind"):
        body = deal()
        del body[missing]
        assert missing in refused(body)
    fine = {"kind": "penalty", "seat": 3, "reason": "showed a tile"}
    assert parse_ruling(fine).tai == 0  # paid on 底 alone unless a 牌面 is given
    assert parse_ruling(fine | {"tai": 100}).tai == 100
    assert "tai" in refused(fine | {"tai": 101})
    assert "tai" in refused(fine | {"tai": -1})
    assert "seat" in refused({"kind": "penalty", "reason": "showed a tile"})


def test_an_undo_names_a_ruling_by_its_id_from_one() -> None:
    assert parse_ruling({"kind": "undo", "ruling": 1, "reason": "wrong table"}).ruling == 1
    assert "ruling" in refused({"kind": "undo", "ruling": 0, "reason": "wrong table"})


def test_a_verdict_names_the_violation_and_the_decision() -> None:
    verdict = {"kind": "verdict", **EVENT, "seat": 1, "code": "out_of_turn",
               "decision": "overturn", "reason": "seat 1 was to draw"}  # fmt: skip
    assert parse_ruling(verdict).decision == "overturn"
    for missing in ("seat", "code", "decision"):
        body = dict(verdict)
        del body[missing]
        assert missing in refused(body)
    assert "decision" in refused(verdict | {"decision": "dismiss"})
    assert "code" in refused(verdict | {"code": "no_such_rule"})


def test_notes_and_reasons_have_their_lengths_and_no_nul() -> None:
    assert parse_ruling(deal(note="x" * 500)).note == "x" * 500
    assert "note" in refused(deal(note="x" * 501))
    assert "note" in refused(deal(note="a\x00b"))
    fine = {"kind": "penalty", "seat": 3, "reason": "x" * 200}
    assert parse_ruling(fine).reason == "x" * 200
    assert "reason" in refused(fine | {"reason": "x" * 201})
    assert "reason" in refused(fine | {"reason": "a\x00b"})
    assert parse_ruling({"kind": "note", "note": "x" * 500}).note == "x" * 500
    assert parse_ruling({"kind": "note", "note": "x"}).note == "x"  # one character will do
    assert parse_ruling(deal()).note == ""  # a deal ruled with no note has none, not a made-up one
    for wrong in ("", "x" * 501, "a\x00b"):
        assert "note" in refused({"kind": "note", "note": wrong})


# --- the rulings in force, and what they do to an event -------------------------------

from firmware_bridge.messages import Event  # noqa: E402
from table_service.mirror.rulings import in_force, tile_id, withdrawn_target  # noqa: E402


def ruled(*bodies: dict[str, Any]) -> list[tuple[int, Any]]:
    """Rulings as the store lists them: (id from 1, ruling), in log order."""
    return [(i, parse_ruling(body)) for i, body in enumerate(bodies, start=1)]


def event(seq: int, body: dict[str, Any]) -> Event:
    return Event.model_validate({"table": "t", "boot_id": 7, "seq": seq, "ts": 1.0, "body": body})


def test_a_dropped_event_stands_for_nothing() -> None:
    rulings = in_force(ruled({"kind": "drop", **EVENT, "reason": "ghost"}))
    ghost = event(40, {"kind": "tile_drawn", "seat": 1, "tile": 5, "end": "front"})
    assert rulings.drops(ghost)
    assert rulings.events(ghost, {}) == []
    other = event(41, {"kind": "tile_drawn", "seat": 1, "tile": 6, "end": "front"})
    assert rulings.events(other, {}) == [(other, False)]


def test_rulings_after_a_deal_or_a_withdrawn_one_are_still_in_force() -> None:
    listed = ruled(
        deal(),
        {"kind": "drop", "boot_id": 7, "seq": 39, "reason": "ghost"},
        {"kind": "undo", "ruling": 2, "reason": "it was real"},
        {"kind": "drop", **EVENT, "reason": "ghost"},
    )
    rulings = in_force(listed, logs={1: 100, 2: 101, 3: 102, 4: 103})
    assert rulings.dropped == frozenset({(7, 40)})
    assert rulings.withdrawn_logs == frozenset({101})  # the withdrawn drop's own entry


def test_an_undo_is_followed_through_undos_of_undos_to_what_it_withdraws() -> None:
    listed = ruled(
        tile(),
        {"kind": "undo", "ruling": 1, "reason": "first thought"},
        {"kind": "undo", "ruling": 2, "reason": "second thought"},
        {"kind": "undo", "ruling": 4, "reason": "a slip: it names itself"},
    )
    first = listed[0][1]
    assert withdrawn_target(listed, 1) == first
    assert withdrawn_target(listed, 2) == first
    assert withdrawn_target(listed, 3) == first
    assert withdrawn_target(listed, 9) is None
    assert withdrawn_target(listed, 4) == listed[3][1]  # a loop ends where it began
    assert in_force(listed[:3]).tiles == {(7, 40): ((5, 6),)}  # undo of the undo: back


def test_a_tile_the_referee_names_is_an_id_or_the_first_copy_still_in_the_wall() -> None:
    assert (tile_id(0, {}), tile_id(143, {})) == (0, 143)
    for wrong in (-1, 144):
        with pytest.raises(ValueError) as caught:
            tile_id(wrong, {})
        assert str(caught.value) == f"tile id {wrong} is not one of 0–143"
    five_m = [16, 17, 18, 19]  # kind 4 (5m): ids 16–19
    assert tile_id("5m", {16: "hand", 17: "river"}) == 18
    with pytest.raises(ValueError) as caught:
        tile_id("5m", dict.fromkeys(five_m, "hand"))
    assert str(caught.value) == "no copy of 5m is left in the wall"


def test_a_tile_correction_in_a_meld_changes_that_tile_alone() -> None:
    """A pong read as 5m 5m 6m: the third was a 5m (id 18); the others stay as read."""
    rulings = in_force(ruled(tile(read=20, was=18)))
    pong = event(40, {"kind": "meld_exposed", "seat": 2, "meld": "pong", "from_seat": 1,
                      "tiles": [16, 17, 20]})  # fmt: skip
    [(fixed, inserted)] = rulings.events(pong, {})
    assert not inserted
    assert fixed.body.tiles == (16, 17, 18)  # type: ignore[attr-defined]
    unread = in_force(ruled(tile(read=30, was=18)))  # names a tile the meld does not hold
    [(same, _)] = unread.events(pong, {})
    assert same.body.tiles == (16, 17, 20)  # type: ignore[attr-defined]


def test_a_correction_naming_another_tile_leaves_a_draw_as_read() -> None:
    rulings = in_force(ruled(tile(read=9, was=18)))
    draw = event(40, {"kind": "tile_drawn", "seat": 1, "tile": 5, "end": "front"})
    [(same, _)] = rulings.events(draw, {})
    assert same == draw


def test_what_the_service_adds_to_a_ruling_is_not_the_referees_to_say() -> None:
    """The service keeps who entered a ruling (token_id) and a penalty's money (ledger) on
    the ruling's body; read back, those keys are its own, not refused as the referee's."""
    fine = {"kind": "penalty", "seat": 3, "tai": 2, "reason": "showed a tile"}
    kept = fine | {"token_id": 4, "ledger": [[3, -180], [0, 60], [1, 60], [2, 60]]}
    assert parse_ruling(kept) == parse_ruling(fine)


def test_the_rulings_in_force_are_a_fixed_value() -> None:
    rulings = in_force(ruled(tile()))
    with pytest.raises(AttributeError):
        rulings.dropped = frozenset({(7, 40)})  # type: ignore[misc]
