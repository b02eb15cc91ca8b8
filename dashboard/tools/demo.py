"""A live demo of the dashboard: a real service fed simulated games at a watchable pace.

    .venv/bin/python -m dashboard.tools.demo --tables 3 --rate 8
    # then open http://127.0.0.1:8765/ (club), /table.html?t=d1, /referee.html

Needs a broker (default mqtt://127.0.0.1:1883). Each table plays a recorded simulator
game (players breaking rules now and then, a sensor misreading a tile now and then)
published as its bridge would, `--rate` events a second. It prints an admin and a
referee token. The database is a fresh SQLite file in a temporary folder.

Development equipment only: imports the simulator from hil_tests/.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import uuid
from pathlib import Path

import aiomqtt
import uvicorn

from firmware_bridge.messages import Event
from hil_tests.simulator.faults import TableFaults
from hil_tests.simulator.recording import record_game
from hil_tests.simulator.violations import Violations
from table_service.mirror.session import SessionStart
from table_service.service.api import create_app
from table_service.service.live import Service
from table_service.service.settings import ServeSettings
from table_service.store import Store

NAMES = [
    ("阿明", "Bea", "陳小華", "<img src=x onerror=alert(1)>"),
    ("林志豪", "王美玲", "Chen", "Dora"),
    ("張偉", "李娜", "黃建國", "吳淑芬"),
    ("Ann", "Bob", "Cy", "Di"),
]


async def feed(host: str, port: int, base: str, table: str, events: list[Event],
               rate: float, stop_after_offline: bool) -> None:  # fmt: skip
    """Publish `events` as the table's bridge would, `rate` a second; answer no replay
    (the demo's broker is local and QoS 1 loses nothing here)."""
    async with aiomqtt.Client(host, port) as client:
        topic = f"{base}/{table}/bridge/availability"
        await client.publish(topic, "online", qos=1, retain=True)
        for event in events:
            event = event.model_copy(update={"table": table})
            await client.publish(f"{base}/{table}/event", event.model_dump_json(), qos=1)
            await asyncio.sleep(1 / rate)
        if stop_after_offline:
            await client.publish(topic, "offline", qos=1, retain=True)


async def main(args: argparse.Namespace) -> None:
    base = f"demo-{uuid.uuid4().hex[:6]}"
    host, _, port = args.mqtt.removeprefix("mqtt://").partition(":")
    tmp = Path(tempfile.mkdtemp(prefix="mjtable-demo-"))
    settings = ServeSettings(
        mqtt=args.mqtt, db=f"sqlite:///{tmp / 'demo.db'}", base_topic=base, client_id=base
    )
    store = Store(settings.database_url)
    service = Service(settings, store)
    runner = asyncio.create_task(service.run())
    await service.ready.wait()
    _, admin = store.create_token("admin", "demo admin")
    _, referee = store.create_token("referee", "demo referee")
    app = create_app(service, store)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port,
                                           log_level="warning", lifespan="off"))  # fmt: skip
    serving = asyncio.create_task(server.serve())
    tables = [f"d{i + 1}" for i in range(args.tables)]
    feeds = []
    for i, table in enumerate(tables):
        players = NAMES[i % len(NAMES)]
        await service.start_session(table, SessionStart(players=players, base=100, per_tai=20))
        game = record_game(args.seed + i, args.hands, violations=Violations(args.violations),
                           faults=TableFaults(misread=args.misread))  # fmt: skip
        events = [e for hand in game for e in hand.events]
        last = i == len(tables) - 1 and len(tables) > 1  # the last table goes offline at the end
        feeds.append(asyncio.create_task(feed(host, int(port or 1883), base, table, events,
                                              args.rate, last)))  # fmt: skip
    print(f"dashboard: http://127.0.0.1:{args.port}/  tables: {', '.join(tables)}")
    print(f"admin token: {admin}\nreferee token: {referee}", flush=True)
    try:
        await asyncio.gather(serving, *feeds)
        await serving
    finally:
        server.should_exit = True
        runner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await runner


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mqtt", default="mqtt://127.0.0.1:1883")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--hands", type=int, default=8)
    parser.add_argument("--rate", type=float, default=10.0, help="events a second per table")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--violations", type=float, default=0.02)
    parser.add_argument("--misread", type=float, default=0.002)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(main(parser.parse_args()))
