"""What keeps the API answering while strangers and crowds call it.

- `AuthLimiter`: failed token guesses per client address. A few are free, then a token
  bucket; a client over it is answered 429 without its token being looked up (the lookup
  hashes and reads the database in a thread, which every other client shares).
- `RequestGuard`: a pure ASGI middleware before the app reads anything. A body over the
  limit is refused with 413 (a `Content-Length` at once, a streamed body as it passes the
  limit); a request to a route that needs a token without a well-formed
  `Authorization: Bearer …` is refused with 401 before its body is read; `OPTIONS` is
  answered with the path's real methods, and a method a path does not take with 405.
- `SocketGate`: WebSocket connections per client address and in all; over a cap the socket
  is closed at accept with 1013 (try again later), and counted.

Every refusal is the API's error shape, a JSON `{"error": …}`.
"""

from __future__ import annotations

import json
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, Final

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY: Final = 1024 * 1024  # the largest real body (a session with a profile) is a few KB
AUTH_FREE: Final = 10  # failed guesses a client may make at once
AUTH_RATE: Final = 0.5  # failed guesses a second a client earns back after those
AUTH_CLIENTS: Final = 10_000  # client addresses tracked at most (the least recent go)
WS_PER_CLIENT: Final = 8  # WebSockets one client address may hold open
WS_TOTAL: Final = 500  # WebSockets open in all
TRY_AGAIN_LATER: Final = 1013  # the WebSocket close code for "over capacity"
BEARER: Final = {"WWW-Authenticate": "Bearer"}


def client_of(scope: Scope) -> str:
    """The client's address (the peer's; behind a proxy, uvicorn's --forwarded-allow-ips
    makes it the forwarded one)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class AuthLimiter:
    """Failed authentications per client: `free` at once, then `rate` a second."""

    def __init__(
        self,
        free: int = AUTH_FREE,
        rate: float = AUTH_RATE,
        clients: int = AUTH_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if free < 1 or rate <= 0 or clients < 1:
            raise ValueError(f"free ({free}) and clients ({clients}) ≥ 1, rate ({rate}) > 0")
        self.free = free
        self.rate = rate
        self.clients = clients
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, at
        self.refused = 0  # requests answered 429 since the start

    def _tokens(self, client: str, now: float) -> float:
        tokens, at = self._buckets.get(client, (float(self.free), now))
        return min(float(self.free), tokens + (now - at) * self.rate)

    def retry_after(self, client: str) -> int | None:
        """Seconds `client` must wait before its next guess is heard, or None: it may try."""
        if client not in self._buckets:
            return None
        tokens = self._tokens(client, self._clock())
        if tokens >= 1:
            return None
        self.refused += 1
        return max(1, math.ceil((1 - tokens) / self.rate))

    def failed(self, client: str) -> None:
        """`client` presented a token that is unknown or revoked."""
        now = self._clock()
        tokens = self._tokens(client, now) - 1
        self._buckets[client] = (tokens, now)
        self._buckets.move_to_end(client)
        while len(self._buckets) > self.clients:
            self._buckets.popitem(last=False)

    @property
    def tracked(self) -> int:
        return len(self._buckets)


# --- the HTTP middleware ---------------------------------------------------------------


async def answer(
    send: Send, status: int, error: str, headers: dict[str, str] | None = None
) -> None:
    """A whole JSON `{"error": …}` response."""
    body = json.dumps({"error": error}).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


def has_bearer(scope: Scope) -> bool:
    """The request carries an `Authorization: Bearer <something>` header."""
    value = _header(scope, b"authorization")
    if value is None:
        return False
    scheme, _, credentials = value.decode("latin-1").partition(" ")
    return scheme.lower() == "bearer" and bool(credentials.strip())


@dataclass(frozen=True)
class Routing:
    """What the middleware asks the app's routes: the methods a path takes (empty: no
    route of the API's), and whether a method at a path needs a token."""

    methods: Callable[[Scope], Iterable[str]]
    needs_token: Callable[[Scope], bool]


class RequestGuard:
    """The size, the token's presence and the method of a request, checked before the app
    reads its body."""

    def __init__(self, app: ASGIApp, routing: Routing, max_body: int = MAX_BODY) -> None:
        if max_body < 1:
            raise ValueError(f"max_body must be ≥ 1 byte, got {max_body}")
        self.app = app
        self.routing = routing
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        methods = set(self.routing.methods(scope))
        method = scope["method"]
        if methods and method == "OPTIONS":
            allow = ", ".join(sorted(methods | {"OPTIONS"}))
            start = {
                "type": "http.response.start",
                "status": 204,
                "headers": [(b"allow", allow.encode())],
            }
            await send(start)
            await send({"type": "http.response.body", "body": b""})
            return
        if methods and method not in methods and not (method == "HEAD" and "GET" in methods):
            allow = ", ".join(sorted(methods | {"OPTIONS"}))
            await answer(
                send,
                405,
                f"{method} is not a method of {scope['path']} (it takes {allow})",
                {"Allow": allow},
            )
            return
        length = _header(scope, b"content-length")
        if length is not None and length.strip().isdigit() and int(length) > self.max_body:
            await answer(
                send, 413, f"the body is {int(length)} bytes; at most {self.max_body} are taken"
            )
            return
        if self.routing.needs_token(scope) and not has_bearer(scope):
            await answer(send, 401, "a bearer token is needed", BEARER)
            return
        body = _LimitedBody(receive, send, self.max_body)
        await self.app(scope, body.receive, body.send)


class _LimitedBody:
    """One request's `receive` and `send`: once a streamed body passes the limit a 413 is
    sent, the app hears the client go, and what it answers then is dropped."""

    def __init__(self, receive: Receive, send: Send, limit: int) -> None:
        self._receive = receive
        self._send = send
        self.limit = limit
        self.seen = 0
        self.refused = False
        self.started = False  # the app's response has begun (it cannot be a 413 then)

    async def receive(self) -> Message:
        if self.refused:
            return {"type": "http.disconnect"}
        message = await self._receive()
        if message["type"] == "http.request":
            self.seen += len(message.get("body", b""))
            if self.seen > self.limit:
                if self.started:  # the app answered before it read it all: let it finish
                    return {"type": "http.disconnect"}
                self.refused = True
                await answer(self._send, 413, f"the body passed {self.limit} bytes, the most taken")
                return {"type": "http.disconnect"}
        return message

    async def send(self, message: Message) -> None:
        if message["type"] == "http.response.start":
            self.started = True
        if not self.refused:
            await self._send(message)


# --- WebSockets ------------------------------------------------------------------------


class SocketGate:
    """Open WebSockets per client address and in all: `clients` open now, `refused` since
    the start (what /api/health may show)."""

    def __init__(self, per_client: int = WS_PER_CLIENT, total: int = WS_TOTAL) -> None:
        if per_client < 1 or total < 1:
            raise ValueError(f"per_client ({per_client}) and total ({total}) must be ≥ 1")
        self.per_client = per_client
        self.total = total
        self.clients = 0
        self.refused = 0
        self._open: dict[str, int] = {}

    def admit(self, client: str) -> str | None:
        """Count a new socket in, or say why it is refused (then it is counted as refused)."""
        if self.clients >= self.total:
            self.refused += 1
            return f"the service holds {self.total} live connections, its most; try again later"
        if self._open.get(client, 0) >= self.per_client:
            self.refused += 1
            return f"{self.per_client} live connections from one address at most; try again later"
        self._open[client] = self._open.get(client, 0) + 1
        self.clients += 1
        return None

    def leave(self, client: str) -> None:
        """A socket `admit` let in has closed."""
        left = self._open.get(client, 0) - 1
        if left > 0:
            self._open[client] = left
        else:
            self._open.pop(client, None)
        self.clients = max(0, self.clients - 1)

    def counts(self) -> dict[str, int]:
        return {"clients": self.clients, "refused": self.refused}
