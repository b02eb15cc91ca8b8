"""The public reads: live tables, hands, sessions, standings, the ledger, the referee's lists
and the exports, against a real service that played a recorded game."""

from __future__ import annotations

import asyncio
import csv
import gc
import io
import time
from typing import Any

from table_service.mirror.mirror import TableMirror
from table_sim.recording import RecordedHand
from table_sim.truth import expected_result
from tests.api.kit import SECRET_KEYS, Api, events_of, has_secret, until


def mid_hand(game: list[RecordedHand], table: str) -> tuple[int, dict[str, Any]]:
    """How many events of the game bring the first hand to a point in play with melds,
    flowers and discards on the table; and the mirror's own picture there."""
    mirror = TableMirror(table)
    for n, event in enumerate(events_of(game[:1], table), 1):
        mirror.apply(event)
        hand = mirror.snapshot()["hand"]
        if hand is None or hand["phase"] != "play":
            continue
        seats = hand["seats"]
        if (
            any(s["melds"] for s in seats)
            and any(s["flowers"] for s in seats)
            and sum(len(s["discards"]) for s in seats) >= 6
        ):
            return n, mirror.snapshot(concealed=True)
    raise AssertionError("the first hand never had melds, flowers and discards at once")


async def test_live_tables_show_the_table_but_no_concealed_tile_during_play(
    api: Api, game: list[RecordedHand]
) -> None:
    n, truth = mid_hand(game, "t1")
    await api.play("t1", events_of(game, "t1")[:n])
    await until(lambda: api.service.runner("t1").online is True, what="t1 online")  # type: ignore[union-attr]
    tables = await api.get("/api/tables")
    assert [t["table"] for t in tables] == ["t1"]
    state = tables[0]
    assert state == await api.get("/api/tables/t1")
    assert not has_secret(state)  # nobody reads a hand in play off the scoreboard
    assert state["online"] is True and state["session_id"] is not None
    for key in ("players", "dealer", "streak", "round_wind", "start_seat", "hands", "totals"):
        assert state[key] == truth[key], key
    hand = state["hand"]
    assert hand["phase"] == "play"
    assert hand["tiles_left"] == truth["hand"]["tiles_left"] > 0
    assert hand["reserve"] == truth["hand"]["reserve"] > 0
    assert hand["drawable"] == truth["hand"]["drawable"]
    for seen, want in zip(hand["seats"], truth["hand"]["seats"], strict=True):
        assert seen["melds"] == want["melds"]
        assert seen["flowers"] == want["flowers"]
        assert seen["discards"] == want["discards"]
        assert seen["concealed_count"] == len(want["concealed"])
    assert any(s["melds"] for s in hand["seats"]) and any(s["flowers"] for s in hand["seats"])
    public = {**truth["hand"], "seats": [
        {k: v for k, v in s.items() if k not in SECRET_KEYS} for s in truth["hand"]["seats"]
    ]}  # fmt: skip
    assert hand == public


async def test_the_referee_sees_the_concealed_tiles_with_a_token(
    api: Api, game: list[RecordedHand]
) -> None:
    n, truth = mid_hand(game, "t1")
    await api.play("t1", events_of(game, "t1")[:n])
    response = await api.client.get("/api/tables/t1/referee")
    assert response.status_code == 401  # the public never reads a hand in play
    seen = await api.get_as(api.as_referee, "/api/tables/t1/referee")
    assert seen["hand"] == truth["hand"]  # every seat's tiles, as the mirror has them
    assert has_secret(seen)


async def test_an_unknown_table_is_a_404_and_a_bad_name_a_422(api: Api) -> None:
    response = await api.client.get("/api/tables/nope")
    assert response.status_code == 404
    assert response.json() == {"error": "no table 'nope'"}
    response = await api.client.get("/api/tables/nope/hands")
    assert response.status_code == 404 and "nope" in response.json()["error"]
    response = await api.client.get("/api/tables/no%20pe")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "table"]
    for url in ("/api/hands/1", "/api/sessions/1", "/api/sessions/1/ledger"):
        response = await api.client.get(url)
        assert response.status_code == 404, url
        assert set(response.json()) == {"error", "detail"} or set(response.json()) == {"error"}
    response = await api.client.get("/api/nothing/here")
    assert response.status_code == 404 and "error" in response.json()


async def test_hands_carry_their_tai_items_and_payments(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game, "t1"))
    hands = await api.get("/api/tables/t1/hands")
    assert [h["hand_no"] for h in hands] == list(range(len(game), 0, -1))  # newest first
    for row, recorded in zip(reversed(hands), game, strict=True):
        truth = recorded.truth
        assert row["table"] == "t1" and row["session_id"] is not None
        assert (row["result"], row["net"]) == (expected_result(truth), list(truth.net))
        assert (row["dealer"], row["streak"]) == (truth.deal.dealer, truth.deal.streak)
        if truth.score is None:  # a drawn hand: no 台, no items, no payments
            assert (row["result"], row["tai"], row["items"], row["payments"]) == (
                "drawn",
                0,
                [],
                [],
            )
            continue
        assert row["tai"] == truth.score["tai"] == sum(i["tai"] for i in row["items"])
        assert sorted((i["id"], i["tai"]) for i in row["items"]) == sorted(
            (i["id"], i["tai"]) for i in truth.score["items"]
        )
        assert all(i["name"] and i["en"] for i in row["items"])
        net = [0] * 4
        for p in row["payments"]:
            assert set(p) == {"from", "to", "amount", "tai", "dealer_tai"}
            assert p["amount"] == 100 + (p["tai"] + p["dealer_tai"]) * 20  # the default stakes
            net[p["from"]] -= p["amount"]
            net[p["to"]] += p["amount"]
        assert net == row["net"] and sum(net) == 0
        assert await api.get(f"/api/hands/{row['id']}") == row
    kinds = {h["kind"] for h in hands}
    assert "self_draw" in kinds and max(h["tai"] for h in hands) >= 5
    page = await api.get("/api/tables/t1/hands", limit=2)
    assert page == hands[:2]
    rest = await api.get("/api/tables/t1/hands", limit=10, before=page[-1]["id"])
    assert rest == hands[2:]
    session_id = hands[0]["session_id"]
    assert await api.get("/api/tables/t1/hands", session_id=session_id) == hands
    assert await api.get("/api/tables/t1/hands", session_id=session_id + 1) == []
    response = await api.client.get("/api/tables/t1/hands", params={"limit": 0})
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == [
        "query",
        "limit",
    ]


async def test_sessions_standings_and_a_ledger_that_sums_to_zero(
    api: Api, game: list[RecordedHand]
) -> None:
    await api.play("t1", events_of(game, "t1"))
    sessions = await api.get("/api/sessions")
    assert len(sessions) == 1 and await api.get("/api/sessions", table="t1") == sessions
    assert await api.get("/api/sessions", table="t2") == []
    session = sessions[0]
    assert session["table"] == "t1" and session["players"] == ["0", "1", "2", "3"]
    assert (session["base"], session["per_tai"], session["ended_at"]) == (100, 20, None)
    detail = await api.get(f"/api/sessions/{session['id']}")
    assert detail["session"] == session
    standings = detail["standings"]
    assert [s["seat"] for s in standings] == [0, 1, 2, 3]
    assert [s["total"] for s in standings] == [
        sum(h.truth.net[seat] for h in game) for seat in range(4)
    ]
    assert sum(s["total"] for s in standings) == 0
    assert all(s["hands"] == len(game) for s in standings)
    assert sum(s["wins"] for s in standings) == sum(h.truth.end == "win" for h in game)
    ledger = await api.get(f"/api/sessions/{session['id']}/ledger")
    assert len(ledger) == 4 * len(game) and sum(line["amount"] for line in ledger) == 0
    by_hand: dict[int, list[int]] = {}
    for line in ledger:
        by_hand.setdefault(line["hand_id"], []).append(line["amount"])
        assert line["player"] == str(line["seat"]) and line["correction_id"] is None
    assert all(sum(amounts) == 0 for amounts in by_hand.values())
    assert [line["total"] for line in ledger[-4:]] == [s["total"] for s in standings]


async def test_violations_with_a_status_filter_and_faults(
    api: Api, game: list[RecordedHand]
) -> None:
    await api.play("t1", events_of(game, "t1"))
    violations = await api.get("/api/violations")
    injected = {(seq, seat, code) for h in game for _, seq, seat, code, *_ in h.breaches}
    assert injected and {(v["seq"], v["seat"], v["code"]) for v in violations} >= injected
    assert all(v["status"] == "open" and v["decision"] is None for v in violations)
    assert await api.get("/api/violations", status="open") == violations
    assert await api.get("/api/violations", status="confirmed") == []
    assert await api.get("/api/violations", table="t1") == violations
    assert await api.get("/api/violations", table="t9") == []
    session_id = violations[0]["session_id"]
    assert await api.get("/api/violations", session_id=session_id) == violations
    response = await api.client.get("/api/violations", params={"status": "maybe"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "status"]
    faults = await api.get("/api/faults")
    # a misread tile: one fault, and the table's count then agrees (nothing moved for it)
    assert faults and {f["code"] for f in faults} == {"tile_twice"}
    assert all(f["table"] == "t1" and f["session_id"] == session_id for f in faults)
    assert await api.get("/api/faults", table="t9") == []
    assert await api.get("/api/corrections") == []


async def test_exports_in_json_and_csv(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game, "t1"))
    (session,) = await api.get("/api/sessions")
    sid = session["id"]
    exported = await api.get(f"/api/sessions/{sid}/export")
    assert exported == await api.get(f"/api/sessions/{sid}/export", format="json")
    assert exported["session"] == session
    assert exported["hands"] == list(reversed(await api.get("/api/tables/t1/hands")))
    assert exported["ledger"] == await api.get(f"/api/sessions/{sid}/ledger")
    assert exported["standings"] == (await api.get(f"/api/sessions/{sid}"))["standings"]
    response = await api.client.get(f"/api/sessions/{sid}/export", params={"format": "csv"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/csv; charset=utf-8"
    day = time.strftime("%Y-%m-%d", time.gmtime(session["started_at"]))
    assert response.headers["content-disposition"] == (
        f'attachment; filename="session-{sid}-t1-{day}.csv"'
    )  # the file is named by its session, not "export"
    assert response.content.startswith(b"\xef\xbb\xbf")  # a BOM: opens right in a spreadsheet
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][0] == "hand"
    assert rows[0][-4:] == ["0", "1", "2", "3"]
    assert len(rows) == 1 + len(game) + 1
    assert [int(x) for x in rows[-1][-4:]] == [s["total"] for s in exported["standings"]]
    for row, hand in zip(rows[1:-1], exported["hands"], strict=True):
        assert [int(x) for x in row[-4:]] == hand["net"]
    response = await api.client.get(f"/api/sessions/{sid}/export", params={"format": "xml"})
    assert response.status_code == 422
    response = await api.client.get(f"/api/sessions/{sid + 1}/export")
    assert response.status_code == 404 and response.json()["error"] == f"no session {sid + 1}"


async def test_health(api: Api, game: list[RecordedHand]) -> None:
    """Health says what is done: the tables followed, each one's last stored event."""
    health = await api.get("/api/health")
    assert (health["status"], health["tables"], health["reasons"]) == ("ok", 0, [])
    await api.play("t1", events_of(game[:1], "t1"))
    health = await api.get("/api/health")
    assert (health["status"], health["tables"], health["backlog"]) == ("ok", 1, 0)
    (followed,) = health["followed"]
    assert followed["table"] == "t1" and 0 <= followed["last_stored_age"] < 60


async def test_health_tells_how_long_the_event_loop_was_held(api: Api) -> None:
    """A piece of work that holds the loop (here an 80 ms sleep that blocks it) is what
    every client waits out: the health counts it by size and tells the longest, and the
    collector's runs beside it."""
    before = (await api.get("/api/health"))["loop_pauses"]
    await asyncio.sleep(0.1)  # the watch ticks
    time.sleep(0.08)
    gc.collect()  # a full collection, timed by the collector's callback
    await asyncio.sleep(0.05)
    after = (await api.get("/api/health"))["loop_pauses"]
    assert after["gc"]["2"]["count"] > before["gc"]["2"]["count"]
    assert after["gc"]["2"]["max_ms"] > 0
    assert after["max_ms"] >= 70 and after["last_minute_max_ms"] >= 70
    grew = {size: after["over_ms"][size] - before["over_ms"][size] for size in after["over_ms"]}
    assert grew["10"] >= 1 and grew["50"] >= 1


async def test_a_hands_events_step_through_the_hand(api: Api, game: list[RecordedHand]) -> None:
    """GET /api/hands/{id}/events: the log entries from the previous hand's end to this one's,
    in order, the last one the event that ended it; 404 for an unknown hand."""
    await api.play("t1", events_of(game, "t1"))
    hands = await api.get("/api/tables/t1/hands")
    newest, previous = hands[0], hands[1]
    entries = await api.get(f"/api/hands/{newest['id']}/events")
    events = [e for e in entries if e["kind"] == "event"]
    assert events[0]["seq"] == previous["seq"] + 1
    assert (events[-1]["boot_id"], events[-1]["seq"]) == (newest["boot_id"], newest["seq"])
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert any(e["body"]["kind"] == "shuffle_started" for e in events)
    first = await api.get(f"/api/hands/{hands[-1]['id']}/events")
    assert first[0]["kind"] == "session"  # the table's first hand starts with its session
    missing = await api.client.get("/api/hands/999999/events")
    assert missing.status_code == 404 and "error" in missing.json()
