"""`mjtable serve`: the table service (live mirror over MQTT, records, API) until stopped."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware_bridge.stopping import cancel_and_wait
from mjtable.settings_cli import add_settings_arguments, settings_from
from table_service.service import cpu_slice
from table_service.service.collector import ShortCollections
from table_service.service.settings import ServeSettings, load_serve_settings

if TYPE_CHECKING:
    from table_service.service.live import Service
    from table_service.store import Store

METAVARS = {"mqtt": "URL", "db": "URL", "data_dir": "DIR", "host": "ADDR", "port": "PORT"}
EXIT_IN_USE = 1
EXIT_UNUSABLE_DATABASE = 3

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve",
        help="run the table service: every table live from MQTT, the records, the API",
        description=(
            "Follow every table under <base-topic>/+/event, judge it with the game mirror, "
            "keep the records (SQLite in --data-dir, or PostgreSQL by --db URL) and serve the "
            "API and WebSockets on --host:--port (127.0.0.1 unless told otherwise; OpenAPI at "
            "/docs). Every option can also be set in the [serve] table of the --config TOML "
            "file or as MJTABLE_SERVE_<OPTION>; the command line wins, then the environment, "
            "then the file. Runs until SIGINT/SIGTERM; exit 2 on a bad configuration, 1 when "
            "another service holds the SQLite database, 3 when the database cannot be used "
            "(an empty, corrupt or non-SQLite file, tables that are not mjtable's, or a "
            "newer mjtable's migration): one line says which and what to do."
        ),
    )
    add_settings_arguments(p, ServeSettings, "serve", METAVARS)
    p.set_defaults(func=run)


def serve_settings(args: argparse.Namespace) -> ServeSettings:
    return settings_from(args, ServeSettings, load_serve_settings, "serve")


def run(args: argparse.Namespace) -> int:
    from mjtable.logs import configure_logging
    from table_service.store import StoreAhead, StoreDamaged

    settings = serve_settings(args)
    configure_logging(settings.log_level)
    try:
        with (
            single_writer(settings),
            asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner,
        ):
            runner.run(serve(settings))
    except (StoreDamaged, StoreAhead) as exc:  # one line, not the traceback of a startup
        print(f"serve: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE_DATABASE
    except BlockingIOError:
        print(
            f"serve: another mjtable serve holds {settings.database_url}; SQLite takes one "
            "service process (use PostgreSQL for more)",
            file=sys.stderr,
        )
        return EXIT_IN_USE
    return 0


def loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """The event loop `serve` runs on: uvloop's (a tenth less CPU an event, measured by
    bench/scaling.py) unless told otherwise or not installed; None: asyncio's own. Which
    one it got is said once the service runs (a service that cannot start says one line)."""
    if name == "uvloop":
        try:
            import uvloop
        except ImportError:
            return None
        return uvloop.new_event_loop
    return None


@contextlib.contextmanager
def single_writer(settings: ServeSettings) -> Iterator[None]:
    """On SQLite, one service process per database: an exclusive lock on a file beside it
    (PostgreSQL takes several: each table is owned through an advisory lock)."""
    from sqlalchemy.engine import make_url

    url = make_url(settings.database_url)
    if url.get_backend_name() != "sqlite" or not url.database:
        yield
        return
    import fcntl
    from pathlib import Path

    database = Path(url.database)
    database.parent.mkdir(parents=True, exist_ok=True)
    with open(database.with_name(database.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield


@contextlib.asynccontextmanager
async def running_service(
    settings: ServeSettings, collector: ShortCollections | None = None
) -> AsyncIterator[ServiceParts]:
    """The service and its HTTP server running in this loop; on exit both stop, the
    store closes, and an error that stopped the service is raised. `demo` shares it.
    A `collector` is the service's before its API listens, so no health lacks it."""
    import uvicorn

    from dashboard import STATIC
    from table_service.service.api import create_app
    from table_service.service.http_server import QuietServer
    from table_service.service.live import Service
    from table_service.store import Store

    store = Store(settings.database_url)
    service = Service(settings, store)
    service.collector = collector
    app = create_app(
        service,
        store,
        static=STATIC,
        max_body=settings.max_body,
        auth_free=settings.auth_free,
        auth_rate=settings.auth_rate,
        ws_per_client=settings.ws_per_client,
        ws_total=settings.ws_total,
    )
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        lifespan="off",
        log_config=None,  # its lines through the root handler's LogOnce
    )
    server = QuietServer(config)
    # uvicorn (0.29+) catches SIGINT/SIGTERM while it serves: `serve()` ends, and the
    # service then stops as on any end of the server (its tables handed on, the store closed)
    running = asyncio.create_task(service.run())
    http: asyncio.Task[None] | None = None
    try:
        ready = asyncio.create_task(service.ready.wait())
        await asyncio.wait({running, ready}, return_when=asyncio.FIRST_COMPLETED)
        if running.done():
            ready.cancel()
            running.result()  # the service could not start: raise why
        http = asyncio.create_task(server.serve())
        while not server.started and not http.done():
            await asyncio.sleep(0.02)
        if http.done():
            http.result()
            raise RuntimeError(f"the API could not listen on {settings.host}:{settings.port}")
        yield ServiceParts(service, store, running, http)
    finally:
        if http is not None and not running.done():  # started: its tables go on to the others
            with contextlib.suppress(Exception, asyncio.CancelledError):  # stop regardless
                await service.leave(settings.leave_wait)
        server.stop()
        if http is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(http), 5)
        await cancel_and_wait([t for t in (running, http) if t is not None])
        store.close()
    error = None if running.cancelled() else running.exception()
    if error is not None:
        raise error


@dataclass
class ServiceParts:
    """What `running_service` yields: the parts a caller may use, and the two tasks that
    end early only on a failure."""

    service: Service
    store: Store
    running: asyncio.Task[None]
    http: asyncio.Task[None]


def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM (a clean stop, not a KeyboardInterrupt)."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def cancelled_on(stop: asyncio.Event, work: Coroutine[Any, Any, None]) -> None:
    """Run `work`; if `stop` is set first (a signal while it is still starting, say,
    waiting for a broker that is down), cancel it and let its cleanup run."""
    task = asyncio.create_task(work)
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    stopper.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    else:
        task.result()


async def serve(settings: ServeSettings) -> None:
    """The service and its HTTP server in one loop; SIGINT/SIGTERM stop both."""

    async def until_one_ends() -> None:
        # asked on the loop's thread before any other starts: they inherit it (said once
        # started, so a service that cannot start says one line)
        scheduling = cpu_slice.ask(settings.cpu_slice_us)
        # Everything made to start, and from now on each full collection's survivors,
        # kept out of the collector's walks (collector.py: a walk held every client).
        collector = ShortCollections(settings.gc_sweep_every)
        async with running_service(settings, collector) as parts:
            on_uvloop = type(asyncio.get_running_loop()).__module__.startswith("uvloop")
            if settings.event_loop == "uvloop" and not on_uvloop:
                log.warning("uvloop is not installed: running on the event loop: asyncio")
            else:
                log.info("running on the event loop: %s", settings.event_loop)
            log.info("scheduling: %s", scheduling)
            collecting = asyncio.create_task(collector.run())
            try:
                await asyncio.wait({parts.running, parts.http}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                await cancel_and_wait([collecting])

    await cancelled_on(stop_on_signals(), until_one_ends())
