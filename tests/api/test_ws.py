"""The WebSockets, over a real server (uvicorn in-process on a free port): a snapshot on
connect, then every change as it is stored (`state`, and the records: `violation`, `hand`,
`fault`); a client that goes is forgotten at once."""

from __future__ import annotations

from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from firmware_bridge.messages import Event, ShuffleFinished
from table_sim.recording import RecordedHand
from tests.api.kit import Api, events_of, has_secret, receive, serving, until, ws_base

# The client reads everything it is sent (max_queue=None): with a bound, websockets stops
# reading the socket when unread messages pile up, and a close then waits out its timeout.


async def until_a(ws: ClientConnection, kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """Messages up to the first of type `kind` (all kept in `seen`)."""
    while True:
        message = await receive(ws)
        seen.append(message)
        if message["type"] == kind:
            return message


async def test_a_table_stream_sends_a_snapshot_then_each_change(
    api: Api, game: list[RecordedHand]
) -> None:
    first_hand = events_of(game[:1], "t1")
    async with (
        serving(api.app) as url,
        connect(f"{ws_base(url)}/api/tables/t1/ws", proxy=None, max_queue=None) as ws,
    ):
        assert await receive(ws) == {"type": "snapshot", "table": "t1", "state": None}
        await until(lambda: api.service.hub.listeners == 1, what="the stream subscribed")
        await api.play("t1", first_hand)
        seen: list[dict[str, Any]] = []
        hand = await until_a(ws, "hand", seen)
        assert {m["type"] for m in seen} <= {"state", "violation", "hand"}
        assert all(m["table"] == "t1" for m in seen)
        states = [m["state"] for m in seen if m["type"] == "state"]
        assert states and not any(has_secret(s) for s in states)
        assert states[-1]["session_id"] is not None  # (the first may be the bridge coming online)
        stored_violations = (await api.get("/api/violations"))[::-1]  # newest first
        flagged = [m["record"] for m in seen if m["type"] == "violation"]
        assert [(v["seq"], v["seat"], v["code"]) for v in flagged] == [
            (v["seq"], v["seat"], v["code"]) for v in stored_violations
        ]
        assert len(flagged) >= 2  # game[0] has two breaches
        (stored,) = await api.get("/api/tables/t1/hands")
        record = hand["record"]
        assert (record["seq"], record["result"], record["net"], record["tai"]) == (
            stored["seq"], stored["result"], stored["net"], stored["tai"],
        )  # fmt: skip
        assert record["payments"] == stored["payments"]
        assert [(i["id"], i["tai"]) for i in record["items"]] == [
            (i["id"], i["tai"]) for i in stored["items"]
        ]
        after_hand = await until_a(ws, "state", [])
        assert after_hand["state"]["hands"] == 1
        assert after_hand["state"]["totals"] == stored["net"]
        # a sensor's fault is a record too: the walls rise with no shuffle begun
        last = first_hand[-1]
        odd = Event(table="t1", boot_id=last.boot_id, seq=last.seq + 1, ts=0.0,
                    body=ShuffleFinished())  # fmt: skip
        await api.play("t1", [odd])
        fault = await until_a(ws, "fault", [])
        (stored_fault,) = await api.get("/api/faults")
        assert fault["record"]["seq"] == stored_fault["seq"] == odd.seq
        assert fault["record"]["code"] == stored_fault["code"] == "impossible"
        # a referee's correction is a change too
        deal = {"kind": "deal", "dealer": 3, "streak": 0, "round_wind": 0}
        response = await api.client.post(
            "/api/tables/t1/corrections", json=deal, headers=api.as_referee
        )
        assert response.status_code == 201
        corrected = await until_a(ws, "state", [])
        while corrected["state"]["dealer"] != 3:
            corrected = await until_a(ws, "state", [])
        # a connection made now begins from where the table is
        async with connect(f"{ws_base(url)}/api/tables/t1/ws", proxy=None, max_queue=None) as late:
            snapshot = await receive(late)
            assert snapshot["type"] == "snapshot"
            assert snapshot["state"] == await api.get("/api/tables/t1")
    await until(lambda: api.service.hub.listeners == 0, what="the streams forgotten")


async def test_the_club_stream_hears_every_table(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game[:1], "t1"))
    async with (
        serving(api.app) as url,
        connect(f"{ws_base(url)}/api/ws", proxy=None, max_queue=None) as ws,
    ):
        snapshot = await receive(ws)
        assert snapshot["type"] == "snapshot"
        assert [t["table"] for t in snapshot["tables"]] == ["t1"]
        assert snapshot["tables"][0]["hands"] == 1 and not has_secret(snapshot["tables"][0])
        body = {"players": ["A", "B", "C", "D"]}
        response = await api.client.post("/api/tables/t2/session", json=body, headers=api.as_admin)
        assert response.status_code == 201
        started = await until_a(ws, "state", [])
        assert started["table"] == "t2" and started["state"]["players"] == ["A", "B", "C", "D"]
        await api.play("t2", events_of(game[:1], "t2")[:200])
        seen: list[dict[str, Any]] = []
        violation = await until_a(ws, "violation", seen)
        assert violation["table"] == "t2" and violation["record"]["code"] == "out_of_turn"
        assert {m["table"] for m in seen} == {"t2"}
        # a client that goes is forgotten at once, though its table is quiet
        await ws.close()
        await until(lambda: api.service.hub.listeners == 0, what="the closed stream forgotten")


async def test_a_bad_table_name_is_refused_at_the_handshake(api: Api) -> None:
    async with serving(api.app) as url:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                f"{ws_base(url)}/api/tables/bad!name/ws", proxy=None, max_queue=None
            ):
                pass
        assert refused.value.response.status_code == 403
        async with connect(
            f"{ws_base(url)}/api/tables/t9/ws", proxy=None, max_queue=None
        ) as ws:  # unknown: not yet
            assert await receive(ws) == {"type": "snapshot", "table": "t9", "state": None}
