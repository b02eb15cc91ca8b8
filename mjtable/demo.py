"""The whole system on one machine: `mjtable demo`.

Every part is the real one, wired as in a club: an MQTT broker (amqtt in its own
process unless a URL is given), N simulated tables each behind a pseudo-terminal and
its own bridge exactly as on hardware, the table service on SQLite (or --db) with its
API and dashboard. The bots play at a pace a person can follow and break a rule now
and then, so the referee is seen at work.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from firmware_bridge.bridge import Bridge
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait
from mjtable.commands.serve import ServiceParts, running_service
from table_service.mirror.session import SessionStart
from table_service.service.settings import ServeSettings
from table_service.store import Store
from table_sim.broker import OwnedBroker
from table_sim.controller import Controller
from table_sim.service_end import stored_up_to
from table_sim.soak import boot_id_for, ensure_open_files
from table_sim.table import SimulatedTable
from table_sim.transports import PtyTransport
from table_sim.violations import Violations

log = logging.getLogger("mjtable.demo")

PLAYERS = (
    ("阿明", "Bea", "陳小華", "Dora"),
    ("林志豪", "王美玲", "Chen", "Ann"),
    ("張偉", "李娜", "黃建國", "吳淑芬"),
    ("Kai", "美惠", "Bob", "志明"),
)
DRAIN_SECONDS = 10.0  # at a stop: how long the bridges may take to hand over what they hold


@dataclass(frozen=True)
class DemoConfig:
    tables: int = 4
    speed: float = 4.0  # 1 = a real table's pace
    hands: int = 0  # per table; 0 = until stopped
    mqtt: str | None = None  # an external broker; None starts amqtt
    mqtt_port: int | None = None  # the embedded broker's port; None: a free one
    db: str | None = None  # None: SQLite in a temporary folder, removed at the end
    host: str = "127.0.0.1"
    port: int = 8000
    seed: int = 1
    violations: float = 0.01  # the bots' chance per opportunity to break a rule
    base: int = 100
    per_tai: int = 20


@dataclass
class DemoTable:
    name: str
    table: SimulatedTable
    bridge: Bridge


def check_port_free(host: str, port: int, option: str = "--port") -> None:
    """Fail before anything starts, with a sentence rather than uvicorn's (or the
    broker's) exit."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            raise DemoError(f"{option} {port}: {host}:{port} is in use ({exc.strerror})") from None


class DemoError(RuntimeError):
    """A demo that cannot start; the message says why."""


@contextlib.asynccontextmanager
async def broker_for(config: DemoConfig, workdir: Path) -> AsyncIterator[str]:
    """The broker's URL: the one given, or an embedded amqtt in its own process (run in
    the demo's process, amqtt races its PUBACKs with the bridges' and the service's own
    clients: see table_sim/broker.py)."""
    if config.mqtt:
        yield config.mqtt
        return
    broker = OwnedBroker(workdir / "broker", port=config.mqtt_port, embedded=True)
    (workdir / "broker").mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(broker.start)
    try:
        yield broker.url
    finally:
        await asyncio.to_thread(broker.stop)


async def run_demo(
    config: DemoConfig, stop: asyncio.Event, say: Callable[[str], None] = print
) -> None:
    """Run until `stop` is set (or every table has played `hands`), then stop every part
    in the order that keeps the records whole: tables, bridges, service, broker."""
    if config.tables < 1:
        raise DemoError("--tables: at least 1")
    ensure_open_files(config.tables)
    if config.mqtt and config.mqtt_port is not None:
        raise DemoError("--mqtt-port: the embedded broker's port; not with --mqtt")
    check_port_free(config.host, config.port)
    if config.mqtt is None and config.mqtt_port is not None:
        check_port_free("127.0.0.1", config.mqtt_port, "--mqtt-port")
    workdir = Path(tempfile.mkdtemp(prefix="mjtable-demo-"))
    missing: dict[str, str] = {}
    db = config.db or f"sqlite:///{workdir / 'mjtable.db'}"
    try:
        async with broker_for(config, workdir) as url:
            settings = ServeSettings(
                mqtt=url,
                db=db,
                host=config.host,
                port=config.port,
                client_id="mjtable-demo-service",
                log_level="WARNING",
            )
            async with running_service(settings) as parts:
                tables = await _start_tables(config, workdir, url)
                bridges = [asyncio.create_task(t.bridge.run()) for t in tables]
                try:
                    await _open_sessions(parts, tables, config)
                    _announce(parts, tables, config, url, db, say)
                    await _play_until_stopped(
                        tables, config.hands, stop, {parts.running, parts.http, *bridges}, say
                    )
                    missing = await _drain(tables, parts.store)
                finally:
                    await cancel_and_wait(bridges)
                    for t in tables:
                        await t.table.stop()
        if missing:
            say(f"stopped; events sent but not recorded (the service stalled): {missing}")
        else:
            say("stopped: every part closed; the records hold every event the tables sent")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)  # ptys, outboxes, broker; and the db if ours


async def _open_sessions(parts: ServiceParts, tables: list[DemoTable], config: DemoConfig) -> None:
    for i, t in enumerate(tables):
        players = PLAYERS[i % len(PLAYERS)]
        session = SessionStart(players=players, base=config.base, per_tai=config.per_tai)
        await parts.service.start_session(t.name, session)


def _announce(
    parts: ServiceParts,
    tables: list[DemoTable],
    config: DemoConfig,
    url: str,
    db: str,
    say: Callable[[str], None],
) -> None:
    """Where to look, and the tokens the referee page and the API's writes ask for."""
    admin = parts.store.create_token("admin", "demo admin")[1]
    referee = parts.store.create_token("referee", "demo referee")[1]
    shown = "localhost" if config.host in ("127.0.0.1", "0.0.0.0") else config.host
    say(f"dashboard: http://{shown}:{config.port}/")
    say(f"tables: {', '.join(t.name for t in tables)}  broker: {url}  db: {db}")
    say(f"admin token: {admin}")
    say(f"referee token: {referee}")
    say("Ctrl-C stops every part.")


async def _play_until_stopped(
    tables: list[DemoTable],
    hands: int,
    stop: asyncio.Event,
    watched: set[asyncio.Task[None]],
    say: Callable[[str], None],
) -> None:
    """Play until `stop` is set; a part in `watched` that ends early ends it with its error."""
    play = [asyncio.create_task(_play(t, hands)) for t in tables]
    stopper = asyncio.create_task(stop.wait())
    everything = asyncio.gather(*play)
    waiting: set[asyncio.Future[Any]] = {*watched, stopper, everything}
    try:
        done, _ = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if everything in done and not stop.is_set():
            everything.result()  # a table that broke raises here
            say("every table has played its hands; Ctrl-C stops the demo")
            await asyncio.wait({*watched, stopper}, return_when=asyncio.FIRST_COMPLETED)
        for task in watched:
            if task.done() and not task.cancelled() and (error := task.exception()):
                raise error
    finally:
        await cancel_and_wait([*play, stopper])
        everything.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):  # raised above if it broke
            await everything


async def _start_tables(config: DemoConfig, workdir: Path, url: str) -> list[DemoTable]:
    tables = []
    for i in range(config.tables):
        name = f"t{i + 1:02d}"
        transport = PtyTransport(workdir / f"{name}.tty")
        controller = Controller(
            transport, table_id=i + 1, boot_id=boot_id_for(config.seed, i), seed=config.seed + i
        )
        table = SimulatedTable(
            controller,
            config.seed + i,
            speed=config.speed,
            violations=Violations(config.violations),
        )
        await table.start()
        settings = BridgeSettings(
            port=transport.url,
            table=name,
            mqtt=url,
            outbox=workdir / f"{name}.outbox.db",
            mqtt_client_id=f"mjtable-demo-{name}",
            log_level="WARNING",
        )
        tables.append(DemoTable(name, table, Bridge(settings)))
    return tables


async def _play(t: DemoTable, hands: int) -> None:
    played = 0
    while not hands or played < hands:
        await t.table.play_hand()
        played += 1


async def _drain(tables: list[DemoTable], store: Store) -> dict[str, str]:
    """Let every event a controller sent reach the records before the parts stop, so a
    stop between two events leaves the records whole and up to date. A service that is
    behind (--speed 0) is waited for while it makes progress; one stuck for
    DRAIN_SECONDS is not. Returns what is still missing, by table."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*(t.table.controller.wait_idle(DRAIN_SECONDS) for t in tables)),
            DRAIN_SECONDS,
        )
    last = {t.name: key for t in tables if (key := t.table.sent.last_key) is not None}
    held: dict[str, tuple[int, int] | None] = {}
    while True:
        if await stored_up_to(store, last, DRAIN_SECONDS):
            return {}
        before, held = held, {name: store.last_event_key(name) for name in last}
        if held == before:
            break
    return {n: f"stored {held[n]} of sent {key}" for n, key in last.items() if held[n] != key}
