"""The writes: sessions (admin), rulings and corrections (referee), and what they change
in the records and the money."""

from __future__ import annotations

from typing import Any

from table_sim.recording import RecordedHand
from tests.api.kit import Api, events_of

PLAYERS = ["阿明", "Bea", "Chen", "Dora"]


def stake(payment: dict[str, Any], base: int, per_tai: int) -> int:
    return base + (payment["tai"] + payment["dealer_tai"]) * per_tai


async def test_an_admin_starts_a_session_whose_players_and_stakes_the_hands_carry(
    api: Api, game: list[RecordedHand]
) -> None:
    body = {"players": PLAYERS, "base": 300, "per_tai": 50, "profile": "mjonline"}
    response = await api.client.post("/api/tables/t1/session", json=body, headers=api.as_admin)
    assert response.status_code == 201, response.text
    sid = response.json()["id"]
    state = await api.get("/api/tables/t1")
    assert (state["session_id"], state["players"], state["hand"]) == (sid, PLAYERS, None)
    await api.play("t1", events_of(game, "t1"))
    (session,) = await api.get("/api/sessions")
    assert (session["id"], session["players"], session["base"], session["per_tai"]) == (
        sid, PLAYERS, 300, 50,
    )  # fmt: skip
    hands = await api.get("/api/tables/t1/hands")
    assert len(hands) == len(game) and {h["session_id"] for h in hands} == {sid}
    for hand, recorded in zip(reversed(hands), game, strict=True):
        if recorded.truth.end == "draw":  # 荒局: nobody pays, whatever the stakes
            assert (hand["payments"], hand["net"]) == ([], [0, 0, 0, 0])
            continue
        assert hand["payments"] and all(p["amount"] == stake(p, 300, 50) for p in hand["payments"])
        assert hand["net"] != list(recorded.truth.net)  # not the default stakes
        assert sum(hand["net"]) == 0
    ledger = await api.get(f"/api/sessions/{sid}/ledger")
    assert {(line["seat"], line["player"]) for line in ledger} == set(enumerate(PLAYERS))
    assert sum(line["amount"] for line in ledger) == 0
    standings = (await api.get(f"/api/sessions/{sid}"))["standings"]
    assert [s["player"] for s in standings] == PLAYERS
    assert [s["total"] for s in standings] == [
        sum(h["net"][seat] for h in hands) for seat in range(4)
    ]
    csv_text = (await api.client.get(f"/api/sessions/{sid}/export", params={"format": "csv"})).text
    assert csv_text.splitlines()[0].endswith(",".join(PLAYERS))

    response = await api.client.post("/api/tables/t1/session/end", headers=api.as_admin)
    assert response.status_code == 200 and response.json() == {"id": sid}
    ended = await api.get(f"/api/sessions/{sid}")
    assert ended["session"]["ended_at"] is not None
    assert (await api.get("/api/tables/t1"))["session_id"] is None
    response = await api.client.post("/api/tables/t1/session/end", headers=api.as_admin)
    assert response.status_code == 409
    assert response.json() == {"error": "table 't1' has no session running"}
    response = await api.client.post("/api/tables/t9/session/end", headers=api.as_admin)
    assert response.status_code == 404


async def test_a_new_session_ends_the_one_that_runs(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game[:1], "t1"))
    (first,) = await api.get("/api/sessions")
    assert first["ended_at"] is None and first["players"] == ["0", "1", "2", "3"]
    body = {"players": PLAYERS, "dealer": 2, "streak": 1, "round_wind": "S", "start_seat": 1}
    response = await api.client.post("/api/tables/t1/session", json=body, headers=api.as_admin)
    assert response.status_code == 201
    second = response.json()["id"]
    sessions = (await api.get("/api/sessions", table="t1"))[::-1]  # newest first
    assert [s["id"] for s in sessions] == [first["id"], second]
    assert sessions[0]["ended_at"] is not None and sessions[1]["ended_at"] is None
    assert (sessions[1]["dealer"], sessions[1]["streak"], sessions[1]["round_wind"]) == (2, 1, "S")
    state = await api.get("/api/tables/t1")
    assert (state["dealer"], state["streak"], state["round_wind"], state["start_seat"]) == (
        2, 1, "S", 1,
    )  # fmt: skip
    assert state["session_id"] == second and state["totals"] == [0, 0, 0, 0]


async def test_a_referee_rules_on_a_violation_and_the_latest_ruling_shows(
    api: Api, game: list[RecordedHand]
) -> None:
    await api.play("t1", events_of(game, "t1"))
    first, *others = await api.get("/api/violations")
    url = f"/api/violations/{first['id']}/decision"
    response = await api.client.post(
        url, json={"decision": "confirmed", "note": "seen it"}, headers=api.as_referee
    )
    assert response.status_code == 201
    confirmed = response.json()
    assert confirmed["violation_id"] == first["id"]
    assert (confirmed["decision"], confirmed["note"]) == ("confirmed", "seen it")
    assert confirmed["token_id"] == api.referee_id
    violation = (await api.get("/api/violations", status="confirmed"))[0]
    assert violation["id"] == first["id"] and violation["decision"] == confirmed
    assert [v["id"] for v in await api.get("/api/violations", status="open")] == [
        v["id"] for v in others
    ]
    response = await api.client.post(url, json={"decision": "dismissed"}, headers=api.as_admin)
    assert response.status_code == 201
    dismissed = response.json()
    assert dismissed["id"] > confirmed["id"]  # a new ruling; the first still stands on record
    assert (dismissed["note"], dismissed["token_id"]) == ("dismissed by the referee", api.admin_id)
    assert await api.get("/api/violations", status="confirmed") == []
    (violation,) = await api.get("/api/violations", status="dismissed")
    assert violation["status"] == "dismissed" and violation["decision"] == dismissed
    response = await api.client.post(
        "/api/violations/99999/decision", json={"decision": "confirmed"}, headers=api.as_referee
    )
    assert response.status_code == 404 and response.json() == {"error": "no violation 99999"}


async def test_a_penalty_makes_the_offender_pay_each_other_seat(
    api: Api, game: list[RecordedHand]
) -> None:
    await api.play("t1", events_of(game, "t1"))
    state = await api.get("/api/tables/t1")
    sid = state["session_id"]
    before = (await api.get(f"/api/sessions/{sid}"))["standings"]
    offender, tai = (state["dealer"] + 1) % 4, 3
    body = {"kind": "penalty", "seat": offender, "tai": tai, "reason": "眼牌"}
    response = await api.client.post(
        "/api/tables/t1/corrections", json=body, headers=api.as_referee
    )
    assert response.status_code == 201, response.text
    (correction,) = await api.get("/api/corrections")
    assert correction["id"] == response.json()["id"]
    assert (correction["kind"], correction["session_id"]) == ("penalty", sid)
    assert correction["token_id"] == api.referee_id
    assert {k: correction["body"][k] for k in ("seat", "tai", "reason")} == {
        "seat": offender, "tai": tai, "reason": "眼牌",
    }  # fmt: skip
    dealer_tai = 1 + 2 * state["streak"]
    owed = [
        0 if seat == offender else 100 + (tai + (dealer_tai if state["dealer"] in (seat, offender)
                                                 else 0)) * 20
        for seat in range(4)
    ]  # fmt: skip
    owed[offender] = -sum(owed)
    lines = [line for line in await api.get(f"/api/sessions/{sid}/ledger") if line["correction_id"]]
    assert [(line["seat"], line["amount"]) for line in lines] == list(enumerate(owed))
    after = (await api.get(f"/api/sessions/{sid}"))["standings"]
    assert [a["total"] - b["total"] for a, b in zip(after, before, strict=True)] == owed
    assert sum(s["total"] for s in after) == 0
    ledger = await api.get(f"/api/sessions/{sid}/ledger")
    assert sum(line["amount"] for line in ledger) == 0
    rows = (
        await api.client.get(f"/api/sessions/{sid}/export", params={"format": "csv"})
    ).text.splitlines()
    players = (await api.get(f"/api/sessions/{sid}"))["session"]["players"]
    fined = rows[-2].split(",")
    assert fined[5:8] == ["correction", "penalty", players[offender]]
    assert fined[10] == "眼牌"  # the reason travels with the money
    assert [int(x) for x in fined[-4:]] == owed

    # no session, no money to move: a 409, and nothing is written
    assert (await api.client.post("/api/tables/t1/session/end", headers=api.as_admin)).is_success
    response = await api.client.post(
        "/api/tables/t1/corrections", json=body, headers=api.as_referee
    )
    assert response.status_code == 409 and "no session" in response.json()["error"]
    assert len(await api.get("/api/corrections")) == 1
    response = await api.client.post(
        "/api/tables/t9/corrections", json=body, headers=api.as_referee
    )
    assert response.status_code == 404


async def test_a_deal_correction_and_a_note(api: Api, game: list[RecordedHand]) -> None:
    await api.play("t1", events_of(game[:2], "t1"))
    sid = (await api.get("/api/tables/t1"))["session_id"]
    ledger = await api.get(f"/api/sessions/{sid}/ledger")
    body = {"kind": "deal", "dealer": 2, "streak": 3, "round_wind": 1, "note": "sensor misread"}
    response = await api.client.post(
        "/api/tables/t1/corrections", json=body, headers=api.as_referee
    )
    assert response.status_code == 201, response.text
    state = await api.get("/api/tables/t1")
    assert (state["dealer"], state["streak"], state["round_wind"]) == (2, 3, "S")
    note = {"kind": "note", "note": "seat 1 asked for a break"}
    response = await api.client.post("/api/tables/t1/corrections", json=note, headers=api.as_admin)
    assert response.status_code == 201
    corrections = (await api.get("/api/corrections", table="t1"))[::-1]  # newest first
    assert [c["kind"] for c in corrections] == ["deal", "note"]
    assert corrections[1]["id"] == response.json()["id"]
    assert corrections[0]["body"]["note"] == "sensor misread"
    assert corrections[1]["token_id"] == api.admin_id
    assert (await api.get("/api/corrections", session_id=sid))[::-1] == corrections
    assert await api.get(f"/api/sessions/{sid}/ledger") == ledger  # no money moved
    # the next hand is dealt as corrected
    await api.play("t1", events_of(game, "t1")[len(events_of(game[:2], "t1")) :])
    hands = await api.get("/api/tables/t1/hands", limit=2)
    third = hands[-1] if hands[0]["hand_no"] == 4 else hands[0]
    assert third["hand_no"] == 3 and (third["dealer"], third["streak"]) == (2, 3)
    assert third["round_wind"] == "S"


async def test_an_ended_session_leaves_the_table_without_one_and_a_new_one_takes_its_deal(
    api: Api, game: list[RecordedHand]
) -> None:
    """Ending a session invents none: the hands played after it are judged and stored under
    no session (no players, no money moved). A session started with only its players takes
    the deal where the table stands (dealer, streak, round, start seat), not 東 dealer 0."""
    await api.play("t1", events_of(game[:2], "t1"))
    (first,) = await api.get("/api/sessions")
    assert (await api.client.post("/api/tables/t1/session/end", headers=api.as_admin)).is_success
    await api.play("t1", events_of(game[:3], "t1")[len(events_of(game[:2], "t1")) :])
    assert [s["id"] for s in await api.get("/api/sessions")] == [first["id"]]
    state = await api.get("/api/tables/t1")
    assert state["session_id"] is None
    newest = (await api.get("/api/tables/t1/hands"))[0]
    assert newest["session_id"] is None and newest["hand_no"] >= 1
    response = await api.client.post(
        "/api/tables/t1/session", json={"players": PLAYERS}, headers=api.as_admin
    )
    assert response.status_code == 201
    started = (await api.get(f"/api/sessions/{response.json()['id']}"))["session"]
    table_says = (state["dealer"], state["streak"], state["round_wind"], state["start_seat"])
    assert (started["dealer"], started["streak"], started["round_wind"], started["start_seat"]) == (
        table_says
    )
    assert table_says != (0, 0, "E", 0), "the game moved the deal on"


async def test_a_session_started_during_a_hand_begins_at_the_next_shuffle(
    api: Api, game: list[RecordedHand]
) -> None:
    """The hand under way is finished, judged and paid in the session it began in; the
    new session's first hand is the next one, dealt where that hand left the table (the
    deal the admin left open is the table's own then, not where it stood when asked)."""
    events = events_of(game[:3], "t1")
    first_hand = len(events_of(game[:1], "t1"))
    await api.play("t1", events[:100])  # hand 1 dealt and under way
    (old,) = await api.get("/api/sessions")
    response = await api.client.post(
        "/api/tables/t1/session", json={"players": PLAYERS, "base": 50}, headers=api.as_admin
    )
    assert response.status_code == 201, response.text
    new = response.json()["id"]
    state = await api.get("/api/tables/t1")
    assert state["session_id"] == old["id"] and state["players"] == ["0", "1", "2", "3"]
    waiting = api.service._restore("t1")  # what a restart now would find
    assert (waiting.session_id, waiting.next_session_id) == (old["id"], new)

    await api.play("t1", events[100:first_hand])  # hand 1 ends
    (ended,) = await api.get("/api/tables/t1/hands")
    assert ended["session_id"] == old["id"] and ended["hand_no"] == 1
    assert not [f for f in await api.get("/api/faults") if f["code"] == "hand_unseen"]
    assert (await api.get("/api/tables/t1"))["session_id"] == old["id"]

    await api.play("t1", events[first_hand:])  # the shuffle of hand 2: the session begins
    hands = (await api.get("/api/tables/t1/hands"))[::-1]
    assert [(h["session_id"], h["hand_no"]) for h in hands] == [
        (old["id"], 1), (new, 1), (new, 2),
    ]  # fmt: skip
    assert all(p["amount"] == stake(p, 50, 20) for h in hands[1:] for p in h["payments"])
    session = (await api.get(f"/api/sessions/{new}"))["session"]
    next_deal = ended["next"]
    assert (session["dealer"], session["streak"], session["round_wind"]) == (
        next_deal["dealer"], next_deal["streak"], next_deal["round_wind"],
    )  # fmt: skip
    state = await api.get("/api/tables/t1")
    assert state["session_id"] == new and state["players"] == PLAYERS
    restarted = api.service._restore("t1")
    assert (restarted.session_id, restarted.next_session_id) == (new, None)
