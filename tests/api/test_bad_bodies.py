"""Bodies and parameters that do not validate: a 422 `{"error", "detail"}` naming the field,
and nothing changes in the records."""

from __future__ import annotations

from typing import Any

import pytest

from table_sim.recording import RecordedHand
from tests.api.kit import Api, events_of

SESSION = "/api/tables/t1/session"
CORRECTIONS = "/api/tables/t1/corrections"
DECISION = "/api/violations/1/decision"
TOKENS = "/api/tokens"
NOT_JSON = object()

# (url, body, where the error is: its loc's start)
CASES: list[tuple[str, Any, list[Any]]] = [
    (SESSION, {"colour": "red"}, ["body", "colour"]),
    (SESSION, {"players": ["a", "b", "c"]}, ["body", "players"]),
    (SESSION, {"players": "abcd"}, ["body", "players"]),
    (SESSION, {"players": ["a", "b", "c", ""]}, ["body", "players", 3]),
    (SESSION, {"players": ["a", "b", "c", "x" * 65]}, ["body", "players", 3]),
    (SESSION, {"players": ["a", "b\x00", "c", "d"]}, ["body", "players", 1]),
    (SESSION, {"players": ["a", "b", 3, "d"]}, ["body", "players", 2]),
    (SESSION, {"base": -1}, ["body", "base"]),
    (SESSION, {"base": "lots"}, ["body", "base"]),
    (SESSION, {"per_tai": 1.5}, ["body", "per_tai"]),
    (SESSION, {"dealer": 4}, ["body", "dealer"]),
    (SESSION, {"start_seat": -1}, ["body", "start_seat"]),
    (SESSION, {"streak": 101}, ["body", "streak"]),
    (SESSION, {"round_wind": "X"}, ["body", "round_wind"]),
    (SESSION, {"profile": "nope"}, ["body", "profile"]),
    (SESSION, {"profile": {"lik_gu": "perhaps"}}, ["body", "profile"]),
    (SESSION, {"profile": {"nonsense": 1}}, ["body", "profile"]),
    (SESSION, {"profile": {"preset": []}}, ["body", "profile"]),
    (SESSION, {"profile": {"preset": "nope"}}, ["body", "profile"]),
    (SESSION, {"profile": 5}, ["body", "profile"]),
    (SESSION, [], ["body"]),
    (SESSION, NOT_JSON, ["body"]),
    ("/api/tables/bad!name/session", {}, ["path", "table"]),
    (CORRECTIONS, {}, ["body"]),
    (CORRECTIONS, {"kind": "bribe"}, ["body"]),
    (CORRECTIONS, {"kind": "penalty", "seat": 4, "reason": "x"}, ["body", "penalty", "seat"]),
    (CORRECTIONS, {"kind": "penalty", "seat": "two", "reason": "x"}, ["body", "penalty", "seat"]),
    (CORRECTIONS, {"kind": "penalty", "seat": 1}, ["body", "penalty", "reason"]),
    (
        CORRECTIONS,
        {"kind": "penalty", "seat": 1, "tai": -1, "reason": "x"},
        ["body", "penalty", "tai"],
    ),
    (
        CORRECTIONS,
        {"kind": "penalty", "seat": 1, "reason": "x", "amount": 5},
        ["body", "penalty", "amount"],
    ),
    (
        CORRECTIONS,
        {"kind": "deal", "dealer": 1, "streak": 0, "round_wind": 9},
        ["body", "deal", "round_wind"],
    ),
    (
        CORRECTIONS,
        {"kind": "deal", "dealer": 1, "streak": 0, "round_wind": "S"},
        ["body", "deal", "round_wind"],
    ),
    (CORRECTIONS, {"kind": "deal", "dealer": 1, "round_wind": 0}, ["body", "deal", "streak"]),
    (CORRECTIONS, {"kind": "note", "note": ""}, ["body", "note", "note"]),
    (CORRECTIONS, {"kind": "note", "note": "x", "by": "me"}, ["body", "note", "by"]),
    (DECISION, {"decision": "maybe"}, ["body", "decision"]),
    (DECISION, {"decision": "confirmed", "note": 5}, ["body", "note"]),
    (DECISION, {"decision": "confirmed", "note": "a\x00b"}, ["body", "note"]),
    (DECISION, {"decision": "confirmed", "note": "x" * 501}, ["body", "note"]),
    (DECISION, {}, ["body", "decision"]),
    (DECISION, {"decision": "confirmed", "by": "me"}, ["body", "by"]),
    ("/api/violations/0/decision", {"decision": "confirmed"}, ["path", "violation_id"]),
    ("/api/violations/abc/decision", {"decision": "confirmed"}, ["path", "violation_id"]),
    ("/api/violations/99999999999/decision", {"decision": "confirmed"}, ["path", "violation_id"]),
    (TOKENS, {"role": "god"}, ["body", "role"]),
    (TOKENS, {"label": "x"}, ["body", "role"]),
    (TOKENS, {"role": "admin", "label": 7}, ["body", "label"]),
    (TOKENS, {"role": "admin", "label": "two\nlines"}, ["body", "label"]),
    (TOKENS, {"role": "admin", "x": 1}, ["body", "x"]),
]


def case_id(url: str, body: Any, loc: list[Any]) -> str:
    return f"{url.rsplit('/', 1)[-1]}-{'.'.join(map(str, loc))}"


async def records(api: Api) -> dict[str, Any]:
    """Everything a write could change (the bridge's availability aside)."""
    states = [
        {k: v for k, v in t.items() if k not in ("online", "link")}
        for t in await api.get("/api/tables")
    ]
    sessions = await api.get("/api/sessions")
    return {
        "tables": states,
        "sessions": sessions,
        "ledgers": [await api.get(f"/api/sessions/{s['id']}/ledger") for s in sessions],
        "corrections": await api.get("/api/corrections"),
        "violations": await api.get("/api/violations"),
        "tokens": await api.get_as(api.as_admin, "/api/tokens"),
    }


@pytest.mark.parametrize(("url", "body", "loc"), CASES, ids=[case_id(*case) for case in CASES])
async def test_a_bad_request_is_a_422_naming_the_field_and_changes_nothing(
    api: Api, game: list[RecordedHand], url: str, body: Any, loc: list[Any]
) -> None:
    await api.play("t1", events_of(game, "t1")[:250])  # a violation (seq 177) and a hand in play
    before = await records(api)
    if body is NOT_JSON:
        response = await api.client.post(
            url,
            content=b'{"players": [',
            headers={"content-type": "application/json", **api.as_admin},
        )
    else:
        response = await api.client.post(url, json=body, headers=api.as_admin)
    assert response.status_code == 422, response.text
    answer = response.json()
    assert set(answer) == {"error", "detail"}
    assert answer["detail"] and all(set(d) == {"loc", "msg"} for d in answer["detail"])
    first = answer["detail"][0]["loc"]
    assert first[: len(loc)] == loc, answer
    assert answer["error"].startswith(".".join(map(str, first)) + ": ")
    assert await records(api) == before


async def test_the_error_says_what_is_wrong_with_a_profile(api: Api) -> None:
    for profile, error in [
        ("nope", "body.profile: unknown profile 'nope' (known: mjonline, seed001)"),
        ({"preset": "nope"}, "body.profile: preset: unknown preset 'nope'"),
        ({"lik_gu": "perhaps"}, "body.profile.choices.lik_gu: Input should be a valid boolean"),
        ({"earthly_ready": 5}, "body.profile.choices.earthly_ready: Input should be 4 or 6"),
        ({"base": 5}, "body.profile.choices.base: Extra inputs are not permitted"),
        (5, "body.profile.choices: Input should be a valid dictionary"),
        (
            {"tai": {"full_flush": -1}},
            "body.profile: tai.full_flush: expected a whole number 0–100, got -1",
        ),
        ({"tai": {"nine_gates": 8}}, "body.profile: tai.nine_gates: unknown"),
        ({"rules": {"ping_hu_wait": "sometimes"}}, "body.profile: rules.ping_hu_wait:"),
    ]:
        response = await api.client.post(SESSION, json={"profile": profile}, headers=api.as_admin)
        assert response.status_code == 422
        assert response.json()["error"].startswith(error)
    assert await api.get("/api/sessions") == []


async def test_a_profile_with_choices_starts_a_session(api: Api) -> None:
    profile = {
        "preset": "seed001", "lik_gu": True, "seat_order": "dealer",
        "tai": {"full_flush": 8}, "rules": {"ping_hu_wait": "two_sided_tile"},
    }  # fmt: skip
    body = {"profile": profile, "base": 50}
    response = await api.client.post(SESSION, json=body, headers=api.as_admin)
    assert response.status_code == 201
    (session,) = await api.get("/api/sessions")
    assert (session["profile_label"], session["base"]) == ("seed001 (changed)", 50)
    rules = session["rules"]  # the profile as played, every key written out
    assert (rules["base"], rules["per_tai"], rules["seat_order"]) == (50, 20, "dealer")
    assert rules["tai"]["full_flush"] == 8  # the file's change
    assert rules["tai"]["earthly_ready"] == 6  # seed001's own value
    assert rules["tai"]["five_concealed_pongs"] == 12
    assert (rules["rules"]["lik_gu"], rules["rules"]["ping_hu_wait"]) == (True, "two_sided_tile")
    recorded = session["profile"]  # the records keep the whole profile, not just its name
    assert recorded["preset"] == "seed001" and recorded["tai"] == rules["tai"]
    (table,) = await api.get("/api/tables")
    assert table["profile"] == "seed001 (changed)"


async def test_a_preset_by_name_is_recorded_whole(api: Api) -> None:
    response = await api.client.post(SESSION, json={"profile": "seed001"}, headers=api.as_admin)
    assert response.status_code == 201
    (session,) = await api.get("/api/sessions")
    assert session["profile_label"] == "seed001"
    assert session["profile"]["preset"] == "seed001"
    assert session["profile"]["tai"]["earthly_ready"] == 6


async def test_bad_query_parameters_are_a_422(api: Api) -> None:
    for url, params, loc in [
        ("/api/sessions", {"table": "no such/table"}, ["query", "table"]),
        ("/api/violations", {"session_id": "one"}, ["query", "session_id"]),
        ("/api/violations", {"session_id": 2**40}, ["query", "session_id"]),
        ("/api/faults", {"table": "x" * 33}, ["query", "table"]),
        ("/api/corrections", {"table": "a\x00b"}, ["query", "table"]),
        ("/api/hands/99999999999", {}, ["path", "hand_id"]),
        ("/api/hands/-1", {}, ["path", "hand_id"]),
        ("/api/sessions/18446744073709551616", {}, ["path", "session_id"]),
        ("/api/sessions/1/export", {"format": "pdf"}, ["query", "format"]),
        ("/api/violations", {"colour": "red"}, ["query", "colour"]),  # unknown, not ignored
        ("/api/health", {"verbose": "1"}, ["query", "verbose"]),
        ("/api/faults", {"limit": 1001}, ["query", "limit"]),
        ("/api/sessions", {"before": 0}, ["query", "before"]),
    ]:
        response = await api.client.get(url, params=params)
        assert response.status_code == 422, (url, params, response.text)
        assert response.json()["detail"][0]["loc"] == loc
