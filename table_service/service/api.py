"""The HTTP and WebSocket face of the service (FastAPI; OpenAPI at /docs).

Reads are public (the scoreboard); writes need a bearer token with a role: `referee`
(decide violations, enter corrections and penalties) or `admin` (also sessions and
tokens). Every error is a JSON `{"error": …}` with a precise 4xx status (a body or a
parameter that does not validate: 422, with `detail` naming each field at fault), and
every route declares in the schema the errors it can give.

Before the app reads a request, guards.py refuses what would cost it dear: a body over
the limit (413), a write without a bearer token (401), a client that guesses tokens
(429, with `Retry-After`), a crowd of WebSockets (closed at accept with 1013). Every list
is a page, newest first (`limit`, `before` an id); the exports give a session whole.

The routes live in routes/, a module per resource; `create_app` assembles them: the
guards and headers, the error handlers, the query parameters' check, then each router.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.routing import Match

from table_service.service.guards import (
    AUTH_CLIENTS,
    AUTH_FREE,
    AUTH_RATE,
    MAX_BODY,
    WS_PER_CLIENT,
    WS_TOTAL,
    AuthLimiter,
    RequestGuard,
    Routing,
    SocketGate,
)
from table_service.service.live import OwnedElsewhere, Service
from table_service.service.routes import (
    hands,
    live,
    pages,
    players,
    referee,
    rules,
    seats,
    sessions,
    tables,
    tokens,
)
from table_service.service.routes.common import (
    READ_THREADS,
    ROLE_OF,
    Backend,
    authorize,
    bearer,
)
from table_service.service.static import GZIP_MIN_BYTES, DashboardFiles
from table_service.store import Role, Store

# No inline script anywhere (a name like `<img onerror=…>` can never run), nothing from
# elsewhere: every page, script, style, font and socket is this service's own.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)
DOCS_CSP = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")  # Swagger UI


def create_app(
    service: Service,
    store: Store,
    *,
    static: Path | None = None,
    max_body: int = MAX_BODY,
    auth_free: int = AUTH_FREE,
    auth_rate: float = AUTH_RATE,
    auth_clients: int = AUTH_CLIENTS,
    ws_per_client: int = WS_PER_CLIENT,
    ws_total: int = WS_TOTAL,
) -> FastAPI:
    """The app over a running service and its store (the app runs in the service's loop).

    `static`: the dashboard's folder, served at / with /docs and the icon (`mjtable serve`
    passes `dashboard.STATIC`); None: the API alone.

    `max_body`: bytes a request body may have; `auth_free` unknown tokens a client may
    present at once, then `auth_rate` a second (of `auth_clients` addresses tracked at
    most); `ws_per_client` WebSockets from one address and `ws_total` in all."""
    query_names: dict[Any, frozenset[str]] = {}  # each endpoint's query parameters (below)

    async def known_query(connection: HTTPConnection) -> None:
        """A query parameter no route takes is refused, not ignored: the schema says
        exactly what the API takes."""
        known = query_names.get(connection.scope.get("endpoint"))
        if known is None or connection.scope["type"] != "http":
            return
        unknown = sorted({k for k in connection.query_params if k not in known})
        if unknown:
            taken = ", ".join(sorted(known)) or "none"
            raise RequestValidationError(
                [
                    {
                        "loc": ("query", name),
                        "msg": f"unknown parameter (taken: {taken})",
                        "type": "extra_forbidden",
                    }
                    for name in unknown
                ]
            )

    app = FastAPI(
        title="mjtable",
        description="Live state, records and referee tools of automatic mahjong tables "
        "(Taiwanese 16-tile rules).",
        version="1",
        docs_url=None,  # served by routes/pages.py from vendored files: nothing from a CDN
        redoc_url=None,
        dependencies=[Depends(known_query)],  # every router's routes take it too
    )
    app.state.service = service
    app.state.store = store
    app.state.auth_limiter = AuthLimiter(auth_free, auth_rate, auth_clients)
    sockets = app.state.sockets = SocketGate(ws_per_client, ws_total)  # .clients, .refused
    needs: dict[Any, Role] = {}  # each endpoint that takes a token, and its role (below)

    def error(status: int, message: str, **extra: Any) -> JSONResponse:
        return JSONResponse({"error": message, **extra}, status)

    async def denied(request: Request) -> JSONResponse | None:
        """A write is refused for its token before anything else is said about it."""
        needed = needs.get(request.scope.get("endpoint"))
        if needed is None:
            return None
        try:
            await authorize(request, await bearer(request), needed)
        except HTTPException as exc:
            return JSONResponse({"error": exc.detail}, exc.status_code, headers=exc.headers)
        return None

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 400 and (refused := await denied(request)) is not None:
            return refused
        return JSONResponse({"error": str(exc.detail)}, exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        refused = await denied(request)
        if refused is not None:
            return refused
        detail = [
            {
                "loc": [p if isinstance(p, int) else str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg", "")).removeprefix("Value error, "),
            }
            for e in exc.errors()
        ]
        first = detail[0] if detail else {"loc": [], "msg": "invalid"}
        where = ".".join(str(p) for p in first["loc"])
        return error(422, f"{where}: {first['msg']}", detail=detail)

    @app.exception_handler(OwnedElsewhere)
    async def elsewhere(_: Request, exc: OwnedElsewhere) -> Response:
        return error(409, str(exc))  # several processes: another follows the table

    @app.exception_handler(Exception)
    async def crashed(_: Request, exc: Exception) -> Response:
        return error(500, f"internal error ({type(exc).__name__})")

    # --- the routes, by resource (no two routers' paths overlap) ------------------------
    backend = Backend(
        service, store, ThreadPoolExecutor(READ_THREADS, thread_name_prefix="mjtable-reader")
    )
    routers = [
        live.router(backend, sockets),
        tables.router(backend),
        rules.router(),
        hands.router(backend),
        sessions.router(backend),
        seats.router(backend),
        referee.router(backend),
        players.router(backend),
        tokens.router(backend),
        *([pages.router(static)] if static is not None else []),
    ]
    for router in routers:
        app.include_router(router)

    # Each endpoint's query parameters and token, read from the routers' own routes (the
    # app's may be copies of them, or, in newer FastAPI, wrappers holding them).
    api_routes = [r for router in routers for r in router.routes if isinstance(r, APIRoute)]
    for route in api_routes:
        query_names[route.endpoint] = frozenset(p.alias for p in route.dependant.query_params)
        for dependency in route.dependant.dependencies:
            if dependency.call in ROLE_OF:
                needs[route.endpoint] = ROLE_OF[dependency.call]

    def methods(scope: Any) -> Iterator[str]:
        for route in api_routes:
            if route.path_regex.match(scope["path"]):
                yield from route.methods or ()

    def needs_token(scope: Any) -> bool:
        return any(
            route.endpoint in needs and route.matches(scope)[0] is Match.FULL
            for route in api_routes
        )

    app.add_middleware(RequestGuard, routing=Routing(methods, needs_token), max_body=max_body)

    @app.middleware("http")
    async def security_headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        docs = request.url.path == "/docs"
        response.headers["Content-Security-Policy"] = DOCS_CSP if docs else CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    app.add_middleware(GZipMiddleware, minimum_size=GZIP_MIN_BYTES)  # outermost: the bytes sent
    if static is not None:
        app.mount("/", DashboardFiles(directory=static, html=True), name="dashboard")
    return app
