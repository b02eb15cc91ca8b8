"""A referee's rulings through the API, on a live service: a ruling on an early hand
re-derives every later hand to what a replay of the ruled stream gives, the live state
and the standings follow, an undo gives the records back, a penalty moves the table's
totals with the ledger."""

from __future__ import annotations

from typing import Any

from table_service.mirror.fold import fold
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import HandRecord
from table_service.mirror.rulings import in_force, parse_ruling
from table_service.mirror.session import SessionStart
from table_sim.faults import TableFaults
from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations
from tests.api.kit import Api, events_of, game_of


def offline(table: str, events: list[Any], rulings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The hands a replay of the stream gives through the rulings (no service)."""
    ruled = in_force((i + 1, parse_ruling(r)) for i, r in enumerate(rulings))
    mirror = TableMirror(table)
    fold(mirror, "session", None, SessionStart(table=table).model_dump(mode="json"), ruled)
    out = []
    for event in events:
        out += fold(mirror, "event", event, None, ruled)
    return [_hand(r.model_dump(mode="json")) for r in out if isinstance(r, HandRecord)]


def _hand(h: dict[str, Any]) -> tuple[Any, ...]:
    return (h["result"], h["seat"], h["payer"], h["tai"], h["dealer"], h["streak"], tuple(h["net"]))


async def hands(api: Api, session_id: int) -> list[tuple[Any, ...]]:
    rows = await api.get("/api/tables/t1/hands", session_id=session_id, limit=1000)
    return [_hand(h) for h in sorted(rows, key=lambda h: h["id"])]


async def money(api: Api, table: str, session_id: int) -> tuple[list[int], list[int]]:
    """The table page's totals and the session's standings: the same money."""
    (state,) = [s for s in await api.get("/api/tables") if s["table"] == table]
    detail = await api.get(f"/api/sessions/{session_id}")
    return state["totals"], [s["total"] for s in detail["standings"]]


def ten_hands() -> list[RecordedHand]:
    """Seed 16's ten hands: hand 3 is a 詐胡 by a seat whose earlier breaches (out of turn,
    過水) the referee will overturn."""
    return record_game(16, 10, violations=Violations(0.02), faults=TableFaults(misread=0.003))


async def test_a_verdict_on_hand_3_of_10_re_derives_hands_4_to_10(api: Api) -> None:
    """The breaches that made hand 3 a 詐胡 overturned: hand 3 is the win it was, and
    hands 4–10 (dealer, streak, payments) are what a replay through the same rulings
    gives; the table page's totals are the standings'; undoing gives the records back."""
    events = events_of(ten_hands(), "t1")
    await api.play("t1", events)
    (state,) = await api.get("/api/tables")
    session_id = state["session_id"]
    before = await hands(api, session_id)
    assert before == offline("t1", events, []) and len(before) == 10
    rows = sorted(await api.get("/api/tables/t1/hands", session_id=session_id, limit=100),
                  key=lambda h: h["id"])  # fmt: skip
    third = rows[2]
    assert third["result"] == "false_win"
    flagged = await api.get_as(api.as_referee, "/api/violations", table="t1", limit=1000)
    breaches = sorted(
        (v for v in flagged if v["seat"] == third["seat"] and v["seq"] <= third["seq"]),
        key=lambda v: v["seq"],
    )
    assert breaches
    rulings: list[dict[str, Any]] = []
    for v in breaches:
        body = {"kind": "verdict", "boot_id": v["boot_id"], "seq": v["seq"], "seat": v["seat"],
                "code": v["code"], "decision": "overturn", "reason": "not the seat"}  # fmt: skip
        response = await api.client.post(
            "/api/tables/t1/rulings", json=body, headers=api.as_referee
        )
        assert response.status_code == 201, response.text
        ruling = response.json()
        assert ruling["kind"] == "verdict" and ruling["token_id"] == api.referee_id
        assert ruling["effect"]["from_log_id"] >= 1
        rulings.append(body)
    after = await hands(api, session_id)
    assert after == offline("t1", events, rulings)
    assert after[:2] == before[:2] and after[2] != before[2] and after[2][0] == "win"
    # derived again, each hand keeps its id: a link to hand 3 shows the revised hand
    again = await api.get("/api/tables/t1/hands", session_id=session_id, limit=100)
    assert sorted(h["id"] for h in again) == [h["id"] for h in rows]
    assert (await api.get(f"/api/hands/{third['id']}"))["result"] == "win"
    totals, standings = await money(api, "t1", session_id)
    assert totals == standings
    statuses = await api.get_as(api.as_referee, "/api/violations", table="t1", limit=1000)
    overturned = {(v["seq"], v["seat"], v["code"]) for v in breaches}
    assert {v["status"] for v in statuses if (v["seq"], v["seat"], v["code"]) in overturned} == {
        "dismissed"
    }
    for ruling in sorted(await api.get("/api/rulings", table="t1"), key=lambda r: -r["id"]):
        undo = {"kind": "undo", "ruling": ruling["id"], "reason": "put back"}
        response = await api.client.post(
            "/api/tables/t1/rulings", json=undo, headers=api.as_referee
        )
        assert response.status_code == 201, response.text
    assert await hands(api, session_id) == before
    totals, standings = await money(api, "t1", session_id)
    assert totals == standings
    # after all those re-derivations, a violation keeps the id the desk read at first
    still = await api.get_as(api.as_referee, "/api/violations", table="t1", limit=1000)
    ids = {v["id"]: (v["seq"], v["seat"], v["code"]) for v in still}
    assert all(ids.get(v["id"]) == (v["seq"], v["seat"], v["code"]) for v in breaches)
    response = await api.client.post(
        f"/api/violations/{breaches[0]['id']}/decision",
        json={"decision": "dismissed"},
        headers=api.as_referee,
    )
    assert response.status_code == 201, response.text
    assert response.json()["violation_id"] == breaches[0]["id"]
    assert await hands(api, session_id) == offline("t1", events, rulings[:1])


async def test_a_penalty_moves_the_tables_totals_with_the_ledger(api: Api) -> None:
    events = events_of(game_of(hands=2), "t1")
    await api.play("t1", events)
    (state,) = await api.get("/api/tables")
    session_id = state["session_id"]
    totals, standings = await money(api, "t1", session_id)
    assert totals == standings
    body = {"kind": "penalty", "seat": 2, "tai": 1, "reason": "包賠"}
    response = await api.client.post("/api/tables/t1/rulings", json=body, headers=api.as_referee)
    assert response.status_code == 201, response.text
    moved, after = await money(api, "t1", session_id)
    assert moved == after != standings
    assert moved[2] < totals[2]


async def test_a_ruling_on_nothing_is_a_409_and_a_bad_one_a_422(api: Api) -> None:
    await api.play("t1", events_of(game_of(hands=1), "t1"))
    nothing = {"kind": "drop", "boot_id": 1, "seq": 999_999, "reason": "x"}
    response = await api.client.post("/api/tables/t1/rulings", json=nothing, headers=api.as_referee)
    assert response.status_code == 409 and "no event boot 1 seq 999999" in response.json()["error"]
    for bad in (
        {"kind": "drop", "boot_id": 1, "seq": 3},  # no reason
        {"kind": "drop", "boot_id": 1, "seq": 3, "reason": "x", "token_id": 1},  # not the client's
        {"kind": "verdict", "boot_id": 1, "seq": 3, "seat": 1, "code": "nope",
         "decision": "overturn", "reason": "x"},
    ):  # fmt: skip
        response = await api.client.post("/api/tables/t1/rulings", json=bad, headers=api.as_referee)
        assert response.status_code == 422, (bad, response.text)
    response = await api.client.post("/api/tables/t1/rulings", json=nothing)
    assert response.status_code == 401
    assert await api.get("/api/rulings", table="t1") == []


async def test_the_hand_stepper_shows_the_events_as_ruled(api: Api) -> None:
    """A count the table reported that the referee rules did not happen, and one it rules
    was missing: the hand's events show both, marked, the dropped one with its body as
    read; the records are derived through them."""
    events = events_of(game_of(hands=1), "t1")
    await api.play("t1", events)
    (hand,) = await api.get("/api/tables/t1/hands")
    count = next(e for e in events if e.body.kind == "tiles_left" and e.seq > 80)
    drop = {"kind": "drop", "boot_id": count.boot_id, "seq": count.seq, "reason": "a ghost"}
    missing = {"kind": "insert", "boot_id": count.boot_id, "seq": count.seq,
               "body": count.body.model_dump(mode="json"), "reason": "read late"}  # fmt: skip
    for body in (drop, missing):
        response = await api.client.post(
            "/api/tables/t1/rulings", json=body, headers=api.as_referee
        )
        assert response.status_code == 201, response.text
    (hand,) = await api.get("/api/tables/t1/hands")
    stepped = await api.get(f"/api/hands/{hand['id']}/events")
    marked = [(e["seq"], e["ruled"], e["body"]["kind"]) for e in stepped if e["ruled"]]
    assert marked == [(count.seq, "dropped", "tiles_left"), (count.seq, "inserted", "tiles_left")]
    assert sum(1 for e in stepped if e["ruled"] is None and e["seq"] == count.seq) == 0


async def test_an_inserted_body_that_is_no_event_is_a_409(api: Api) -> None:
    events = events_of(game_of(hands=1), "t1")
    await api.play("t1", events)
    bad = {"kind": "insert", "boot_id": events[5].boot_id, "seq": events[5].seq,
           "body": {"kind": "tile_drawn", "seat": 9}, "reason": "x"}  # fmt: skip
    response = await api.client.post("/api/tables/t1/rulings", json=bad, headers=api.as_referee)
    assert response.status_code == 409
    assert response.json()["error"].startswith("the ruling's event body: tile_drawn.seat")
    assert await api.get("/api/rulings", table="t1") == []
