"""docs/events.md, generated from the pydantic models so the reference cannot drift.

`render()` builds the whole page from `firmware_bridge/messages.py` (the events) and
`table_service/mirror/records.py` (the judgement records) and
`table_service/mirror/rulings.py` (a referee's rulings): field tables come from the
JSON schemas, meanings from the model docstrings and field descriptions, and every
example is a model instance serialised by pydantic, so it is valid by construction. The
violation and fault codes are the rulebook's rows (`table_service/rules/rulebook.py`), the
台 items the rows of `table_service/rules/items.py`.
The event bodies are derived from the catalogue (firmware_bridge/protocol/catalogue.py):
an event's text and ranges are edited there. Run `python -m mjtable.event_docs` after
changing either; tests/test_event_docs.py fails while the page is stale.
"""

from __future__ import annotations

import inspect
import sys
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from firmware_bridge import messages as m
from firmware_bridge.protocol import catalogue as c
from table_service.mirror import records as r
from table_service.mirror import rulings as ru
from table_service.rules import rulebook as rb
from table_service.rules.items import DEALER_ITEMS, ITEMS

DOC = Path(__file__).resolve().parents[1] / "docs" / "events.md"

# For fields whose model gives no description (records.py is not this module's to
# annotate). Keyed by (model, field), then by field alone.
_FIELD_NOTES: dict[tuple[str, str] | str, str] = {
    "kind": "this body's kind",
    "type": "this record's type",
    "table": "the table's name",
    "boot_id": "the controller boot of the event that caused it",
    "seq": "the seq of the event that caused it",
    ("Violation", "code"): "the rule broken",
    ("Fault", "code"): "what is impossible",
    ("Fault", "detail"): "a sentence for the referee",
    ("HandRecord", "round_wind"): "the round wind (圈風) of this hand",
    ("HandRecord", "dealer"): "the dealer's seat",
    ("HandRecord", "streak"): "the dealer's 連莊 count N",
    ("HandRecord", "result"): "win, flower_win (花胡), false_win (詐胡) or drawn (荒局)",
    ("HandRecord", "payer"): "the discarder, the 加槓's adder or the robbed seat, as in "
    "`mjtable settle`; null when the kind has none",
    ("HandRecord", "items"): "the 台 breakdown, as `mjtable score` gives it",
    ("HandRecord", "payments"): "who pays whom, as `mjtable settle` gives it",
    ("Item", "id"): "the item's id in the 台 table",
    ("Item", "tai"): "its 台",
    ("Item", "name"): "its Chinese name",
    ("Item", "en"): "its English name",
    ("PaymentRecord", "from"): "the paying seat",
    ("PaymentRecord", "to"): "the paid seat",
    ("PaymentRecord", "amount"): "money: 底 + (台 + dealer 台) × 台錢",
    ("PaymentRecord", "tai"): "the hand's 台 counted in this payment",
    ("PaymentRecord", "dealer_tai"): "the dealer 台 in it, 0 when the dealer is not a party",
    ("NextDeal", "dealer"): "the next hand's dealer",
    ("NextDeal", "streak"): "its 連莊 count",
    ("NextDeal", "round_wind"): "its round wind",
    ("Summary", "events"): "events read",
    ("Summary", "duplicates"): "events seen twice (same table, boot_id, seq), ignored",
    ("Summary", "gaps"): "holes in seq",
    ("Summary", "hands"): "hands ended",
    ("Summary", "violations"): "violation records made",
    ("Summary", "faults"): "fault records made",
}

_TS = 1767225600.25  # 2026-01-01 00:00:00.25 UTC: every example's bridge time


def _example_bodies() -> dict[type[BaseModel], tuple[int, BaseModel]]:
    """One body per kind with a plausible seq: the examples of the event part."""
    bodies: list[BaseModel] = [
        m.ShuffleStarted(),
        m.ShuffleFinished(),
        m.WallBuilt(stacks_0=18, stacks_1=18, stacks_2=18, stacks_3=18),
        m.DiceRolled(roll=c.DiceRoll.DEAL, die_1=3, die_2=5, die_3=6),
        m.TileDrawn(seat=2, tile=37, end=c.End.FRONT),
        m.TileDiscarded(seat=2, tile=108),
        m.MeldExposed(seat=3, meld=c.MeldKind.PONG, from_seat=2, tiles=(108, 109, 110)),
        m.FlowerRevealed(seat=0, tile=136),
        m.SeatButton(seat=1, button=c.Button.WIN),
        m.HandRevealed(
            seat=1,
            tiles=(0, 4, 8, 36, 40, 44, 72, 76, 80, 108, 109, 110, 112, 113, 116, 117, 118),
        ),
        m.TilesLeft(count=71),
        m.Fault(code=c.FaultCode.JAM, unit=2, active=1),
        m.State(phase=c.Phase.PLAYING, tiles_left=71, turn=2, dealer=0),
        m.TilesShown(seat=2, tiles=(53, 54)),
        m.CommandRefused(command_seq=7, command_type=0x42, reason=c.RefusalReason.NOT_NOW),
        m.Invalid(
            type=0x14,
            payload_hex="01c800",
            error="type 0x14: tile_drawn: tile: 200 out of range 0..143",
        ),
    ]
    seqs = (1, 2, 3, 4, 5, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20)
    return {type(b): (seq, b) for seq, b in zip(seqs, bodies, strict=True)}


def _example_records() -> list[BaseModel]:
    """One record of each kind, the money checked with `mjtable settle`."""
    payment = r.PaymentRecord.model_validate(
        {"from": 0, "to": 2, "amount": 260, "tai": 5, "dealer_tai": 3}
    )
    return [
        r.Violation(
            table="t07",
            boot_id=7,
            seq=233,
            seat=1,
            code="out_of_turn",
            detail="seat 1 drew while seat 3 was to move",
        ),
        r.Fault(
            table="t07",
            boot_id=7,
            seq=240,
            code="tile_twice",
            detail="tile 37 (1p) drawn by seat 2 is already in seat 0's hand",
        ),
        r.HandRecord(
            table="t07",
            boot_id=7,
            seq=412,
            hand=3,
            round_wind="E",
            dealer=0,
            streak=1,
            result="win",
            kind="discard",
            seat=2,
            payer=0,
            tai=5,
            dealer_tai=3,
            items=[
                r.Item(id="seat_wind_pong", tai=1, name="風字坎", en="seat wind pong"),
                r.Item(id="dragon_pong", tai=1, name="箭字坎", en="dragon pong"),
                r.Item(id="single_wait", tai=1, name="獨聽", en="single wait"),
                r.Item(id="seat_flower", tai=2, name="花牌", en="seat flower"),
            ],
            codes=[],
            net=[-260, 0, 260, 0],
            payments=[payment],
            next=r.NextDeal(dealer=1, streak=0, round_wind="E"),
            play=r.HandPlay(
                seconds=214.6,
                go_rounds=9,
                wait="closed",
                waits=["3m"],
                deal_in_round=9,
                seats=[
                    r.SeatPlay(ready_round=None, turns=9, turn_ms=41200),
                    r.SeatPlay(ready_round=7, turns=8, turn_ms=36900),
                    r.SeatPlay(ready_round=5, turns=9, turn_ms=52300),
                    r.SeatPlay(ready_round=None, turns=8, turn_ms=30100),
                ],
            ),
        ),
        r.Summary(
            events=4212,
            duplicates=3,
            gaps=0,
            hands=14,
            violations=2,
            faults=1,
            totals=[-1340, 420, 1180, -260],
        ),
    ]


def _example_rulings() -> list[BaseModel]:
    """One ruling of each kind, as a referee's desk (or `POST /api/tables/{t}/rulings`)
    sends it."""
    on = {"boot_id": 7, "seq": 233}
    return [
        ru.TileRuling(kind="tile", **on, read=37, was="2p", reason="the reader saw 1p"),
        ru.DropRuling(kind="drop", **on, reason="a ghost read: nobody drew"),
        ru.InsertRuling(
            kind="insert",
            **on,
            body={"kind": "tile_discarded", "seat": 1, "tile": 53},
            reason="the discard was not read",
        ),
        ru.VerdictRuling(
            kind="verdict",
            **on,
            seat=1,
            code="out_of_turn",
            decision="overturn",
            reason="seat 3 had passed; seat 1 was to draw",
        ),
        ru.HandWin(
            kind="hand",
            **on,
            reason="the reveal was not read",
            result="win",
            how="discard",
            seat=2,
            payer=0,
            tile="6s",
            concealed=[
                "2m",
                "3m",
                "4m",
                "6m",
                "7m",
                "8m",
                "2s",
                "3s",
                "4s",
                "6p",
                "6p",
                "6p",
                "7s",
                "8s",
                "W",
                "W",
                "6s",
            ],
        ),
        ru.HandSelfDraw(
            kind="hand",
            **on,
            reason="the reveal was not read",
            result="win",
            how="self_draw",
            seat=1,
            tile="9p",
            concealed=[
                "2m",
                "3m",
                "4m",
                "6m",
                "7m",
                "8m",
                "2p",
                "2p",
                "2p",
                "2s",
                "3s",
                "4s",
                "7p",
                "8p",
                "E",
                "E",
                "9p",
            ],
        ),
        ru.HandOver(kind="hand", **on, reason="the wall was knocked over", result="void"),
        ru.UndoRuling(kind="undo", ruling=12, reason="entered on the wrong table"),
        ru.DealRuling(kind="deal", dealer=1, streak=0, round_wind=0, note="a misread 胡"),
        ru.PenaltyRuling(kind="penalty", seat=3, tai=4, reason="showed a tile (眼牌)"),
        ru.NoteRuling(kind="note", note="the table was restarted at 21:40"),
    ]


def body_models() -> list[type[BaseModel]]:
    """The event body models, in the order of the `EventBody` union."""
    union = typing.get_args(m.EventBody)[0]
    return list(typing.get_args(union))


def _doc(model: type[BaseModel]) -> str:
    """A model's docstring as one paragraph."""
    return " ".join(inspect.cleandoc(model.__doc__ or "").split())


def _range(prop: dict[str, Any]) -> str:
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        return f" {low}–{high}"
    if low is not None:
        return f" ≥ {low}"
    return ""


def _type(prop: dict[str, Any]) -> str:
    """A JSON-schema property as a short type: its range, enum names or referenced model."""
    if "const" in prop:
        return f"`{prop['const']!r}`".replace("'", '"')
    if "enum" in prop:
        values = tuple(prop["enum"])
        if values == r.VIOLATION_CODES:
            return "a [violation code](#violation-codes)"
        if values == r.FAULT_CODES:
            return "a [fault code](#fault-codes)"
        return "one of " + ", ".join(f"`{v}`" for v in values)
    if "oneOf" in prop:
        branches = {branch.get("type") for branch in prop["oneOf"]}
        if branches == {"integer", "string"}:  # a ruling's tile: an id or a code
            return "a tile id or code"
        return "an event body ([below](#event-bodies)), by `kind`"
    if "anyOf" in prop:
        return " or ".join(_type(p) for p in prop["anyOf"])
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{name.lower()})"
    kind = prop.get("type", "any")
    if kind == "array":
        size = ""
        low, high = prop.get("minItems"), prop.get("maxItems")
        if low is not None and high is not None:
            size = f", {low} items" if low == high else f", {low}–{high} items"
        return f"array of {_type(prop.get('items', {}))}{size}"
    if kind == "object":
        return "object"
    return f"{kind}{_range(prop)}"


def _description(model: str, name: str, prop: dict[str, Any]) -> str:
    text = prop.get("description") or _FIELD_NOTES.get((model, name)) or _FIELD_NOTES.get(name)
    if not text:
        raise ValueError(f"{model}.{name}: no description (add one, or a note in event_docs)")
    return " ".join(str(text).split())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def field_rows(model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """(name, type, description) of each field as written on the wire (aliases)."""
    schema = model.model_json_schema(by_alias=True)
    title = model.__name__
    return [
        (name, _type(prop), _description(title, name, prop))
        for name, prop in schema["properties"].items()
    ]


def _table(model: type[BaseModel]) -> list[str]:
    lines = ["| field | type | description |", "|---|---|---|"]
    for name, kind, text in field_rows(model):
        lines.append(f"| `{name}` | {_cell(kind)} | {_cell(text)} |")
    return lines


def _json(model: BaseModel) -> list[str]:
    return ["```json", model.model_dump_json(by_alias=True), "```"]


def example_events() -> list[m.Event]:
    """The full envelope of every body's example, in union order."""
    bodies = _example_bodies()
    out = []
    for cls in body_models():
        seq, body = bodies[cls]
        envelope = {"table": "t07", "boot_id": 7, "seq": seq, "ts": _TS, "body": body}
        out.append(m.Event.model_validate(envelope))
    return out


def _events_part() -> list[str]:
    lines = [
        "## Events",
        "",
        "An event is one thing the table's sensors saw (a shuffle, a die, a tile drawn, "
        "discarded or exposed, a button pressed), in the order the controller saw it. The "
        "bridge publishes each on `mjtable/<table>/event` (QoS 1, one topic so order is "
        "kept; [README, MQTT topics](../README.md#mqtt-topics)) as an envelope around the "
        "body (`Event` in `firmware_bridge/messages.py`):",
        "",
        *_table(m.Event),
        "",
        "Consumers are idempotent on `(table, boot_id, seq)`: QoS 1 is at least once, so "
        "an event may arrive twice (after a broker outage, or a replay the consumer "
        "asked for), and the second copy must change nothing. `seq` counts from 1 on each "
        "controller boot and never wraps; a jump in it is a gap, which "
        "`bridge/request/replay` fills. Enum values are written as lower-case names; "
        "tile ids are the physical tiles 0–143 of protocol.md §4.1 (kind = id // 4; "
        "136–143 the flowers). A seat is a physical seat 0–3; 255 means none or all "
        "where a field allows it.",
        "",
        "### Event bodies",
        "",
        "`body.kind` is one of: " + ", ".join(f"`{k}`" for k in _kinds()) + ".",
    ]
    for cls, event in zip(body_models(), example_events(), strict=True):
        lines += ["", f"#### `{event.kind}`", "", _doc(cls), "", *_table(cls), ""]
        lines += ["Example:", "", *_json(event)]
    return lines


def _kinds() -> list[str]:
    return [str(cls.model_fields["kind"].default) for cls in body_models()]


def _records_part() -> list[str]:
    lines = [
        "## Judgement records",
        "",
        "What the game mirror concludes from the events (`table_service/mirror/records.py`): "
        "`mjtable replay` prints them as JSON lines and the live service publishes the same "
        "shapes (replay-format.md, the replay interface). Records caused by an event carry its "
        "`boot_id` and `seq`; a violation or a fault never stops the mirror.",
    ]
    nested = (r.Item, r.PaymentRecord, r.NextDeal, r.HandPlay, r.SeatPlay)
    for record in _example_records():
        cls = type(record)
        kind = cls.model_fields["type"].default
        lines += ["", f"### `{kind}` ({cls.__name__})", "", _doc(cls), "", *_table(cls), ""]
        lines += ["Example:", "", *_json(record)]
        if cls is r.HandRecord:
            for sub in nested:
                lines += ["", f"#### `{sub.__name__}`", "", *_table(sub)]
    lines += [
        "",
        "### Violation codes",
        "",
        "A player broke a rule. Each code is one row of the rulebook "
        "(`table_service/rules/rulebook.py`, which the mirror, this page, `GET /api/vocabulary` "
        "and the dashboard all read): the rules of taiwan16.md it enforces (§ sections, D "
        "decisions), whether the breach makes the seat 相公 (a dead hand, which may then only "
        "draw and discard), and its name and meaning in Chinese and English.",
        "",
        "| code | rules | 相公 | 名稱 | 說明 | name | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rb.VIOLATIONS:
        dead = "yes" if row.dead_hand else ""
        lines.append(f"| `{row.code}` | {_rules(row)} | {dead} | {_words(row)} |")
    lines += [
        "",
        "### Fault codes",
        "",
        "The event stream itself is impossible (a sensor, not a player): nobody is blamed. "
        "Rows of the same rulebook.",
        "",
        "| code | defined in | 名稱 | 說明 | name | meaning |",
        "|---|---|---|---|---|---|",
    ]
    for row in rb.FAULTS:
        lines.append(f"| `{row.code}` | {_rules(row)} | {_words(row)} |")
    lines += [
        "",
        "### 台 items",
        "",
        "The ids of a hand record's `items` (taiwan16.md §4), each with its Chinese and "
        "English name (`table_service/rules/items.py`) and its default 台 per unit; `dealer` "
        "and `streak` are the dealer 台 of §6, never items of a hand's 牌面.",
        "",
        "| id | 中文 | English | 台 |",
        "|---|---|---|---|",
    ]
    for item in (*ITEMS, *DEALER_ITEMS):
        lines.append(f"| `{item.id}` | {_cell(item.name)} | {_cell(item.en)} | {item.tai} |")
    return lines


def _rulings_part() -> list[str]:
    lines = [
        "## Referee's rulings",
        "",
        "A ruling is an entry in the table's log (`POST /api/tables/{t}/rulings` with a "
        "referee's token; `table_service/mirror/rulings.py`): the records are derived "
        "again from the entry it names, so the money follows it. Every ruling but a note "
        "and a deal or penalty (which act where they stand) names an event by `boot_id` "
        "and `seq`; the service adds who made it and when.",
    ]
    for ruling in _example_rulings():
        cls = type(ruling)
        title = f"`{ruling.kind}`"  # type: ignore[attr-defined]
        if isinstance(ruling, ru.HandWin | ru.HandSelfDraw | ru.HandOver):
            title += f", {ruling.result}"
            title += f" by {ruling.how}" if not isinstance(ruling, ru.HandOver) else ""
        lines += ["", f"### {title} ({cls.__name__})", "", _doc(cls), "", *_table(cls), ""]
        lines += ["Example:", "", *_json(ruling)]
    return lines


def _rules(row: rb.Rule) -> str:
    return _cell(", ".join(row.rules))


def _words(row: rb.Rule) -> str:
    cells = (row.zh, row.zh_meaning, row.en, row.en_meaning)
    return " | ".join(_cell(c) for c in cells)


def render() -> str:
    """The whole of docs/events.md."""
    lines = [
        "# Events and judgement records",
        "",
        "<!-- Generated by `python -m mjtable.event_docs` from firmware_bridge/messages.py "
        "(derived from firmware_bridge/protocol/catalogue.py) and "
        "table_service/mirror/records.py, table_service/rules/rulebook.py and "
        "table_service/rules/items.py; do not edit by hand "
        "(tests/test_event_docs.py fails when it is stale). -->",
        "",
        "The JSON the table's bridge publishes (events) and the game mirror concludes "
        "(judgement records), field by field. The bytes on the serial link are "
        "[protocol.md](protocol.md); the rules are [rules/taiwan16.md](rules/taiwan16.md).",
        "",
        *_events_part(),
        "",
        *_records_part(),
        "",
        *_rulings_part(),
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write docs/events.md (or the path given) from the models."""
    args = sys.argv[1:] if argv is None else list(argv)
    path = Path(args[0]) if args else DOC
    path.write_text(render(), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
