"""The API against strangers and crowds, over a real server (uvicorn in-process): a body
over the limit refused before it is read, a write without a token refused before its
body, token guesses rate-limited per client address (and never the others), OPTIONS and
wrong methods answered with the path's real methods, WebSockets capped per address and
in all. Other client addresses are other loopback addresses (127.0.0.2, …)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from dashboard import STATIC
from table_service.service.api import create_app
from table_service.service.guards import AuthLimiter, SocketGate
from tests.api.kit import Api, receive, serving, until, ws_base

SESSION = "/api/tables/t1/session"
MiB = 1024 * 1024


class Answer:
    """A response read off the socket."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


async def exchange(url: str, head: str, parts: list[bytes] = []) -> Answer:  # noqa: B006
    """Send a request's head (and these parts of its body) on a socket; its answer. The
    answer is awaited without the rest of the body: a server that waits for it hangs."""
    where = urlsplit(url)
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    try:
        writer.write(head.replace("\n", "\r\n").encode())
        for part in parts:
            writer.write(part)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        async with asyncio.timeout(20):
            status_line = await reader.readline()
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode("latin-1").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        return Answer(int(status_line.split()[1]), headers, body)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def chunked(data: bytes, size: int) -> list[bytes]:
    parts = [data[i : i + size] for i in range(0, len(data), size)]
    return [b"%x\r\n%s\r\n" % (len(p), p) for p in parts] + [b"0\r\n\r\n"]


def post_head(path: str, headers: dict[str, str]) -> str:
    lines = [f"POST {path} HTTP/1.1", "Host: testserver", "Content-Type: application/json"]
    return "\n".join([*lines, *(f"{k}: {v}" for k, v in headers.items()), "", ""])


async def test_a_body_over_the_limit_is_refused_before_it_is_read(api: Api) -> None:
    app = create_app(api.service, api.store, static=STATIC, max_body=4096)
    auth = {"Authorization": f"Bearer {api.admin}"}
    async with serving(app) as url:
        # 50 MiB announced, none of it sent: the answer comes at once
        for headers in ({**auth, "Content-Length": str(50 * MiB)}, {"Content-Length": "4097"}):
            answer = await exchange(url, post_head(SESSION, headers))
            assert answer.status == 413, answer.body
            assert set(answer.json()) == {"error"} and "4096" in answer.json()["error"]
        # a streamed body is counted as it comes, and cut at the limit
        big = json.dumps({"players": ["A", "B", "C", "D"], "x": "y" * 8000}).encode()
        head = post_head(SESSION, {**auth, "Transfer-Encoding": "chunked"})
        answer = await exchange(url, head, chunked(big, 1000))
        assert answer.status == 413, answer.body
        assert set(answer.json()) == {"error"}
        assert api.store.sessions() == []  # nothing was started
        # under the limit, a streamed body is a body like any other
        body = json.dumps({"players": ["A", "B", "C", "D"]}).encode()
        answer = await exchange(url, head, chunked(body, 7))
        assert answer.status == 201, answer.body
        (session,) = api.store.sessions()
        assert session.players == ["A", "B", "C", "D"]


async def test_a_write_without_a_bearer_token_is_refused_before_its_body(api: Api) -> None:
    async with serving(api.app) as url:
        for headers in ({}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer  "}):
            answer = await exchange(url, post_head(SESSION, {**headers, "Content-Length": "900"}))
            assert answer.status == 401, (headers, answer.body)
            assert answer.headers["www-authenticate"] == "Bearer"
            assert answer.json() == {"error": "a bearer token is needed"}
        # the limits of a read: a body to a GET is neither read nor a reason to refuse
        async with httpx.AsyncClient(base_url=url) as client:
            response = await client.get("/api/health")
            assert response.status_code == 200
    assert api.store.sessions() == []


@contextlib.asynccontextmanager
async def client_at(url: str, address: str) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client whose connections come from `address` (a loopback one)."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=url, transport=transport) as client:
        yield client


async def test_token_guesses_are_limited_per_client_and_never_slow_the_others(api: Api) -> None:
    app = create_app(api.service, api.store, static=STATIC, auth_free=3, auth_rate=0.001)
    note = {"kind": "note", "note": "hello"}
    async with (
        serving(app) as url,
        client_at(url, "127.0.0.1") as guesser,
        client_at(url, "127.0.0.2") as desk,
    ):
        for n in range(3):  # a few mistakes are free
            response = await guesser.get("/api/tokens", headers=api.auth(f"guess-{n}"))
            assert response.status_code == 401 and response.json() == {
                "error": "unknown or revoked token"
            }
        for url_, method, body in [
            ("/api/tokens", "GET", None),
            ("/api/tables/t1/corrections", "POST", note),
            ("/api/tables/t1/corrections", "POST", {"kind": "bribe"}),  # a bad body too
        ]:
            response = await guesser.request(
                method, url_, json=body, headers=api.auth("guess-more")
            )
            assert response.status_code == 429, response.text
            assert set(response.json()) == {"error"} and "127.0.0.1" in response.json()["error"]
            assert int(response.headers["retry-after"]) >= 1
        # over the limit the token is not even looked up: a right one is refused as well
        response = await guesser.get("/api/tokens", headers=api.as_admin)
        assert response.status_code == 429
        # another client is unaffected, and its reads and writes go on
        response = await desk.get("/api/tokens", headers=api.as_admin)
        assert response.status_code == 200
        assert len(response.json()) == 2
        response = await desk.get("/api/tokens", headers=api.auth("one-typo"))
        assert response.status_code == 401
        response = await guesser.get("/api/health")  # reads stay open to the guesser too
        assert response.status_code == 200
    assert app.state.auth_limiter.tracked == 2 and app.state.auth_limiter.refused == 4


def test_the_limiter_forgets_the_least_recent_clients_and_earns_guesses_back() -> None:
    now = [0.0]
    limiter = AuthLimiter(free=2, rate=0.5, clients=3, clock=lambda: now[0])
    for _ in range(2):
        assert limiter.retry_after("a") is None
        limiter.failed("a")
    assert limiter.retry_after("a") == 2  # one guess is earned back in 2 s
    now[0] = 1.0
    assert limiter.retry_after("a") == 1
    now[0] = 2.0
    assert limiter.retry_after("a") is None
    for client in ("b", "c", "d"):  # a crowd of addresses: the map stays bounded
        limiter.failed(client)
    assert limiter.tracked == 3 and limiter.retry_after("a") is None  # "a" was the oldest
    with pytest.raises(ValueError, match="rate"):
        AuthLimiter(rate=0)


async def test_options_and_a_wrong_method_name_the_paths_real_methods(api: Api) -> None:
    paths = api.app.openapi()["paths"]
    async with serving(api.app) as url, httpx.AsyncClient(base_url=url) as client:
        for path, operations in paths.items():
            concrete = path.replace("{table}", "t1").replace("_id}", "}")
            concrete = concrete.replace("{hand}", "1").replace("{session}", "1")
            concrete = concrete.replace("{violation}", "1").replace("{token}", "1")
            declared = {m.upper() for m in operations}
            response = await client.options(concrete)
            assert response.status_code == 204, (path, response.text)
            allowed = {m.strip() for m in response.headers["allow"].split(",")}
            assert allowed == declared | {"OPTIONS"}, path
            wrong = next(m for m in ("PUT", "PATCH", "DELETE", "POST") if m not in declared)
            response = await client.request(wrong, concrete)
            assert response.status_code == 405, (path, wrong, response.text)
            assert set(response.json()) == {"error"}
            assert {m.strip() for m in response.headers["allow"].split(",")} == allowed


async def test_every_list_is_a_page_newest_first(api: Api, game: list[Any]) -> None:
    from tests.api.kit import events_of

    await api.play("t1", events_of(game, "t1"))
    # a table heard from mid-hand with its start gone: a gap and a hand not judged, so the
    # faults fill a page too
    await api.play("t2", events_of(game[:1], "t2")[40:60])
    for n in range(3):
        note = {"kind": "note", "note": f"note {n}"}
        response = await api.client.post(
            "/api/tables/t1/corrections", json=note, headers=api.as_referee
        )
        assert response.status_code == 201
        api.store.create_token("referee", f"desk {n}")
        body = {"players": ["A", "B", "C", str(n)]}
        response = await api.client.post(SESSION, json=body, headers=api.as_admin)
        assert response.status_code == 201
    for url in ["/api/violations", "/api/faults", "/api/corrections", "/api/sessions",
                "/api/tokens", "/api/tables/t1/hands"]:  # fmt: skip
        everything = await api.get_as(api.as_admin, url, limit=1000)
        assert len(everything) >= 3, url
        ids = [row["id"] for row in everything]
        assert ids == sorted(ids, reverse=True), url  # newest first
        pages: list[Any] = []
        before: int | None = None
        while True:
            params: dict[str, Any] = {"limit": 2} | ({} if before is None else {"before": before})
            page = await api.get_as(api.as_admin, url, **params)
            assert len(page) <= 2
            pages += page
            if len(page) < 2:
                break
            before = page[-1]["id"]
        assert pages == everything, url
        assert await api.get_as(api.as_admin, url) == everything[:100]  # the default page
        for bad in ({"limit": 0}, {"limit": 1001}, {"before": 0}, {"before": "x"}):
            response = await api.client.get(url, params=bad, headers=api.as_admin)
            assert response.status_code == 422, (url, bad)
            assert response.json()["detail"][0]["loc"][0] == "query"
    # the export is not a page: it gives the session whole
    (first,) = [
        s for s in api.store.sessions() if s.players == ["0", "1", "2", "3"] and s.table == "t1"
    ]
    export = await api.get(f"/api/sessions/{first.id}/export")
    assert len(export["hands"]) == len(api.store.hands(session_id=first.id, limit=None))


async def socket_from(url: str, address: str) -> ClientConnection:
    return await connect(
        f"{ws_base(url)}/api/ws", proxy=None, max_queue=None, local_addr=(address, 0)
    )


async def closed_with(ws: ClientConnection) -> tuple[int | None, str]:
    with pytest.raises(ConnectionClosed) as closed:
        await asyncio.wait_for(ws.recv(), 20)
    received = closed.value.rcvd
    assert received is not None, "the server did not close"
    return received.code, received.reason


async def test_websockets_are_capped_per_address_and_in_all(api: Api) -> None:
    app = create_app(api.service, api.store, static=STATIC, ws_per_client=2, ws_total=3)
    sockets: SocketGate = app.state.sockets
    async with serving(app) as url:
        first = [await socket_from(url, "127.0.0.1") for _ in range(2)]
        for ws in first:
            assert (await receive(ws))["type"] == "snapshot"
        third = await socket_from(url, "127.0.0.1")  # a third from one address
        code, reason = await closed_with(third)
        assert code == 1013 and "one address" in reason
        other = await socket_from(url, "127.0.0.2")  # another address still gets in
        assert (await receive(other))["type"] == "snapshot"
        crowd = await socket_from(url, "127.0.0.3")  # ... until the service is full
        code, reason = await closed_with(crowd)
        assert code == 1013 and "try again later" in reason
        assert sockets.counts() == {"clients": 3, "refused": 2}
        await first[0].close()  # one goes: its place is free again
        await until(lambda: sockets.clients == 2, what="the closed socket counted out")
        again = await socket_from(url, "127.0.0.1")
        assert (await receive(again))["type"] == "snapshot"
        # every open socket still hears every change
        response = await api.client.post(
            SESSION, json={"players": ["A", "B", "C", "D"]}, headers=api.as_admin
        )
        assert response.status_code == 201
        for ws in (first[1], other, again):
            message = await receive(ws)
            assert message["type"] == "state" and message["table"] == "t1"
        for ws in (first[1], other, again):
            await ws.close()
        await until(lambda: sockets.clients == 0, what="every socket counted out")
    assert sockets.counts() == {"clients": 0, "refused": 2}
