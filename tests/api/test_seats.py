"""Sitting down: before a session's first shuffle the table's page shows a QR
code per seat; a player scans it and takes the seat on a phone, as a player of the club's
list or as a guest; an admin seats anyone by hand. A code works once, at its table, for
its seat, until the first shuffle; a seat a listed player holds, a player at two seats or
two tables, are refused with a message. The hands then carry the names seated, and the
players' figures count them."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import httpx

from table_service.service.routes.seats import qr_svg
from table_sim.recording import RecordedHand
from tests.api.kit import BASE_URL, Api, events_of

NAMES = ["阿明", "Bea", "陳小華", "林志玲", "Kenji"]


async def listed(api: Api) -> list[int]:
    ids = []
    for name in NAMES:
        added = await api.client.post("/api/players", json={"name": name}, headers=api.as_admin)
        assert added.status_code == 201, added.text
        ids.append(added.json()["id"])
    return ids


def code_of(api: Api, table: str, seat: int) -> str:
    """The seat's code as the table's page shows it (inside its QR image)."""
    runner = api.service.runner(table)
    assert runner is not None
    code = runner.seat_code(seat)
    assert code is not None
    return code


async def claim(api: Api, table: str, seat: int, code: str, **who: Any) -> httpx.Response:
    return await api.client.post(
        f"/api/tables/{table}/seats/{seat}/claim", json={"code": code, **who}
    )


async def test_players_take_their_seats_with_the_codes_until_the_first_shuffle(
    api: Api, game: list[RecordedHand]
) -> None:
    ming, bea, hua, ling, kenji = await listed(api)
    started = await api.client.post(
        "/api/tables/t1/session", json={"base": 100, "per_tai": 20}, headers=api.as_admin
    )
    assert started.status_code == 201, started.text
    sid = started.json()["id"]
    seating = await api.get("/api/tables/t1/seats")
    assert seating["open"] and seating["session_id"] == sid
    assert [s["name"] for s in seating["seats"]] == ["0", "1", "2", "3"]
    assert (await api.get("/api/tables/t1"))["seating"] == ["0", "1", "2", "3"]

    # the QR the page shows carries the address of the seat's page with its code
    qr = await api.client.get("/api/tables/t1/seats/2/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"].startswith("image/svg+xml")
    url = f"{BASE_URL}/sit.html?" + urlencode(
        {"table": "t1", "seat": 2, "code": code_of(api, "t1", 2)}
    )
    assert qr.content == qr_svg(url)

    # 阿明 takes seat 0 as himself: the session's names and seats say so
    key = (await api.get("/api/tables/t1"))["seating_key"]
    assert key and code_of(api, "t1", 0) not in key
    taken = await claim(api, "t1", 0, code_of(api, "t1", 0), player_id=ming)
    assert taken.status_code == 200, taken.text
    assert taken.json() == {"session_id": sid, "seat": 0, "name": "阿明", "player_id": ming}
    used = code_of(api, "t1", 0)
    assert (await api.get("/api/tables/t1"))["seating_key"] != key  # the TV draws the QR anew
    assert (await claim(api, "t1", 0, used, player_id=bea)).status_code == 409  # 阿明's seat
    again = await claim(api, "t1", 1, code_of(api, "t1", 1), player_id=ming)
    assert again.status_code == 409 and "seat 0" in again.json()["error"]  # one seat each
    wrong = await claim(api, "t1", 2, code_of(api, "t1", 1), player_id=bea)
    assert wrong.status_code == 403  # seat 1's code does not open seat 2
    guessed = await claim(api, "t1", 1, "not-the-code", player_id=bea)
    assert guessed.status_code == 403

    # Kenji sits at table t2 already: not at two tables
    at_t2 = await api.client.post(
        "/api/tables/t2/session", json={"player_ids": [kenji, None, None, None]},
        headers=api.as_admin,
    )  # fmt: skip
    assert at_t2.status_code == 201, at_t2.text
    elsewhere = await claim(api, "t1", 1, code_of(api, "t1", 1), player_id=kenji)
    assert elsewhere.status_code == 409 and "'t2'" in elsewhere.json()["error"]
    assert (await claim(api, "t1", 1, code_of(api, "t2", 1), player_id=bea)).status_code == 403

    assert (await claim(api, "t1", 1, code_of(api, "t1", 1), player_id=bea)).status_code == 200
    guest = await claim(api, "t1", 3, code_of(api, "t1", 3), name="Visitor")
    assert guest.status_code == 200 and guest.json()["player_id"] is None
    # an admin seats anyone by hand, whoever held the seat; a player listed twice refused
    by_hand = await api.client.put(
        "/api/tables/t1/seats/2", json={"player_id": hua}, headers=api.as_admin
    )
    assert by_hand.status_code == 200, by_hand.text
    unlisted = await api.client.put(
        "/api/tables/t1/seats/3", json={"player_id": 999_999}, headers=api.as_admin
    )
    assert unlisted.status_code == 409
    no_token = await api.client.put("/api/tables/t1/seats/3", json={"player_id": ling})
    assert no_token.status_code == 401
    both = await claim(api, "t1", 3, code_of(api, "t1", 3), player_id=ling, name="x")
    assert both.status_code == 422

    seated = ["阿明", "Bea", "陳小華", "Visitor"]
    session = (await api.get(f"/api/sessions/{sid}"))["session"]
    assert session["players"] == seated and session["player_ids"] == [ming, bea, hua, None]
    restored, _, _ = api.store.restore("t1")  # as a restart finds the table: from the log
    assert restored.seating_open and restored.session is not None
    assert list(restored.session.players) == seated
    assert restored.session.player_ids == (ming, bea, hua, None)

    # the first shuffle: the seats stand
    events = events_of(game, "t1")
    shuffle = next(i for i, e in enumerate(events) if e.body.kind == "shuffle_started") + 1
    await api.play("t1", events[:shuffle])
    assert (await api.get("/api/tables/t1/seats"))["open"] is False
    assert (await api.get("/api/tables/t1"))["seating"] is None
    assert (await api.get("/api/tables/t1"))["seating_key"] is None
    assert api.service.runner("t1").seat_code(3) is None  # type: ignore[union-attr]
    assert (await api.client.get("/api/tables/t1/seats/3/qr.svg")).status_code == 409
    late = await api.client.put(
        "/api/tables/t1/seats/3", json={"player_id": ling}, headers=api.as_admin
    )
    assert late.status_code == 409 and "waiting for players" in late.json()["error"]

    # the hands carry the names seated; the figures count the players seated
    await api.play("t1", events[shuffle:])
    ledger = await api.get(f"/api/sessions/{sid}/ledger")
    assert {(line["seat"], line["player"]) for line in ledger} == set(enumerate(seated))
    hands = await api.get("/api/tables/t1/hands", session_id=sid)
    for seat, player_id in enumerate([ming, bea, hua]):
        stats = await api.get(f"/api/players/{player_id}/stats")
        assert stats["hands"] == len(hands)
        net = sum(line["amount"] for line in ledger if line["seat"] == seat)
        assert stats["net"] == net
    assert (await api.get(f"/api/players/{ling}/stats"))["hands"] == 0


async def test_a_session_asked_for_during_a_hand_is_seated_for_its_first_hand(
    api: Api, game: list[RecordedHand]
) -> None:
    """Seats taken while the hand under way finishes are the next session's: that hand keeps
    its players; the new session's first hand is played by those seated."""
    ming, *_ = await listed(api)
    events = events_of(game, "t1")
    await api.play("t1", events[:60])  # the first hand under way
    asked = await api.client.post(
        "/api/tables/t1/session", json={"players": ["A", "B", "C", "D"]}, headers=api.as_admin
    )
    assert asked.status_code == 201
    sid = asked.json()["id"]
    state = await api.get("/api/tables/t1")
    assert state["next_session_id"] == sid and state["seating"] == ["A", "B", "C", "D"]
    taken = await claim(api, "t1", 2, code_of(api, "t1", 2), player_id=ming)
    assert taken.status_code == 200 and taken.json()["session_id"] == sid
    assert (await api.get("/api/tables/t1"))["players"] == ["0", "1", "2", "3"]  # the hand's
    await api.play("t1", events[60:])
    first = await api.get("/api/tables/t1/hands", session_id=sid)
    assert first, "the new session played hands"
    ledger = await api.get(f"/api/sessions/{sid}/ledger")
    assert {line["player"] for line in ledger if line["seat"] == 2} == {"阿明"}
    assert (await api.get(f"/api/players/{ming}/stats"))["hands"] == len(first)
