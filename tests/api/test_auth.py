"""Writes by role: no token, an unknown or revoked one is a 401 (with WWW-Authenticate), a
referee on an admin route a 403; tokens made through the API and by `mjtable token`."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from tests.api.kit import Api

# Every write, with a body it would accept: (method, url, body, the role it needs).
WRITES: list[tuple[str, str, Any, str]] = [
    ("POST", "/api/tables/t1/session", {"players": ["A", "B", "C", "D"]}, "admin"),
    ("POST", "/api/tables/t1/session/end", None, "admin"),
    ("POST", "/api/tables/t1/corrections", {"kind": "note", "note": "hello"}, "referee"),
    ("POST", "/api/violations/1/decision", {"decision": "confirmed"}, "referee"),
    ("GET", "/api/tokens", None, "admin"),
    ("POST", "/api/tokens", {"role": "admin", "label": "mine"}, "admin"),
    ("DELETE", "/api/tokens/1", None, "admin"),
]
IDS = [f"{method} {url}" for method, url, _, _ in WRITES]


async def records(api: Api) -> dict[str, Any]:
    """Everything a write could change."""
    return {
        "sessions": await api.get("/api/sessions"),
        "corrections": await api.get("/api/corrections"),
        "violations": await api.get("/api/violations"),
        "tokens": [t.model_dump() for t in api.store.tokens()],
        "tables": await api.get("/api/tables"),
    }


async def send(api: Api, method: str, url: str, body: Any, headers: dict[str, str]) -> Any:
    return await api.client.request(method, url, json=body, headers=headers)


@pytest.mark.parametrize(("method", "url", "body", "role"), WRITES, ids=IDS)
async def test_a_write_without_a_valid_token_is_refused(
    api: Api, method: str, url: str, body: Any, role: str
) -> None:
    revoked_row, revoked = api.store.create_token("admin", "gone")
    api.store.revoke_token(revoked_row.id)
    before = await records(api)
    for headers in (
        {},
        {"Authorization": "Bearer"},
        {"Authorization": f"Basic {api.admin}"},
        {"Authorization": "Bearer not-a-token"},
        api.auth(revoked),
    ):
        response = await send(api, method, url, body, headers)
        assert response.status_code == 401, (headers, response.text)
        assert response.headers["www-authenticate"] == "Bearer"
        assert set(response.json()) == {"error"} and response.json()["error"]
    if role == "admin":
        response = await send(api, method, url, body, api.as_referee)
        assert response.status_code == 403, response.text
        assert "admin" in response.json()["error"]
        assert "www-authenticate" not in response.headers
    assert await records(api) == before


async def test_a_write_with_a_body_that_is_not_json_and_no_token_is_a_401(api: Api) -> None:
    response = await api.client.post(
        "/api/tables/t1/session", content=b"{", headers={"content-type": "application/json"}
    )
    assert response.status_code == 401
    response = await api.client.post(
        "/api/tables/t1/session",
        content=b"{",
        headers={"content-type": "application/json", **api.as_admin},
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"][0] == "body"


async def mjtable(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mjtable", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_tokens_made_listed_and_revoked_by_the_api_and_the_command(
    api: Api, store_url: str
) -> None:
    response = await api.client.post(
        "/api/tokens", json={"role": "referee", "label": "desk 2"}, headers=api.as_admin
    )
    assert response.status_code == 201
    made = response.json()
    assert set(made) == {"token", "secret"}
    desk, secret = made["token"], made["secret"]
    assert (desk["role"], desk["label"], desk["revoked_at"]) == ("referee", "desk 2", None)
    assert desk["id"] not in (api.admin_id, api.referee_id)
    # the new secret is a referee's: past the gate of a referee route, not of an admin one
    note = {"kind": "note", "note": "the new desk"}
    ok = await api.client.post("/api/tables/t1/corrections", json=note, headers=api.auth(secret))
    assert ok.status_code == 404  # authorized; the table is unknown
    no = await api.client.get("/api/tokens", headers=api.auth(secret))
    assert no.status_code == 403

    code, out, err = await mjtable("token", "create", "--role", "admin", "--label", "cli", "--db",
                                   store_url)  # fmt: skip
    assert code == 0, err
    cli_secret = out.strip()
    assert "created" in err and cli_secret
    listed = await api.client.get("/api/tokens", headers=api.auth(cli_secret))
    assert listed.status_code == 200
    tokens = listed.json()[::-1]  # a page, newest first
    assert [t["label"] for t in tokens] == [
        "the tests' admin",
        "the tests' referee",
        "desk 2",
        "cli",
    ]
    for token in tokens:
        assert set(token) == {"id", "role", "label", "created_at", "revoked_at"}
    assert secret not in listed.text and cli_secret not in listed.text
    assert api.admin not in listed.text and api.referee not in listed.text
    code, out, err = await mjtable("token", "list", "--db", store_url)
    assert code == 0, err
    assert [json.loads(line) for line in out.splitlines()] == tokens
    assert secret not in out and cli_secret not in out

    response = await api.client.delete(f"/api/tokens/{desk['id']}", headers=api.auth(cli_secret))
    assert response.status_code == 200 and response.json() == {"id": desk["id"]}
    gone = await api.client.post("/api/tables/t1/corrections", json=note, headers=api.auth(secret))
    assert gone.status_code == 401
    cli_id = tokens[-1]["id"]
    code, _, err = await mjtable("token", "revoke", str(cli_id), "--db", store_url)
    assert code == 0, err
    response = await api.client.get("/api/tokens", headers=api.auth(cli_secret))
    assert response.status_code == 401
    after = (await api.client.get("/api/tokens", headers=api.as_admin)).json()
    assert [t["revoked_at"] is not None for t in after] == [True, True, False, False]
    response = await api.client.delete("/api/tokens/999", headers=api.as_admin)
    assert response.status_code == 404 and response.json() == {"error": "no token 999"}
    response = await api.client.delete(f"/api/tokens/{desk['id']}", headers=api.as_admin)
    assert response.status_code == 200  # revoking twice keeps the first time
    assert (await api.client.get("/api/tokens", headers=api.as_admin)).json() == after
