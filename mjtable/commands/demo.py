"""`mjtable demo`: the whole system on this machine, one command (see mjtable/demo.py)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from mjtable.commands.serve import stop_on_signals
from mjtable.demo import DemoConfig, DemoError, run_demo
from mjtable.logs import configure_logging


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    d = DemoConfig()
    p = sub.add_parser(
        "demo",
        help="the whole system at once: simulated tables, bridges, broker, service, dashboard",
        description=(
            "Start an MQTT broker (embedded amqtt unless --mqtt names one; on --mqtt-port, or "
            "a free port), --tables simulated tables each on a pseudo-terminal behind its "
            "own bridge, and the table service "
            "with its dashboard on --port (SQLite in a temporary folder unless --db). Bots "
            "play at --speed times a real table's pace and break a rule now and then "
            "(--violations) so the referee is seen at work. Ctrl-C or SIGTERM stops every "
            "part cleanly."
        ),
    )
    add = p.add_argument
    add("--tables", type=int, default=d.tables, help=f"tables (default {d.tables})")
    add(
        "--speed",
        type=float,
        default=d.speed,
        help=f"times a real table's pace, 0 = flat out (default {d.speed:g})",
    )
    add("--hands", type=int, default=d.hands, help="hands per table (default 0: for ever)")
    add("--mqtt", metavar="URL", help="a broker to use (default: start amqtt)")
    add(
        "--mqtt-port",
        type=int,
        metavar="PORT",
        help="the embedded broker's port on 127.0.0.1 (default: a free one)",
    )
    add("--db", metavar="URL", help="the records' database (default: SQLite, temporary)")
    add("--host", default=d.host, help=f"address the dashboard binds ({d.host})")
    add("--port", type=int, default=d.port, help=f"dashboard port ({d.port})")
    add("--seed", type=int, default=d.seed, help="same seed, same games")
    add(
        "--violations",
        type=float,
        default=d.violations,
        metavar="RATE",
        help=f"chance a bot breaks a rule, per chance (default {d.violations:g})",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    problems = []
    if args.tables < 1:
        problems.append(f"--tables: at least 1, got {args.tables}")
    if args.speed < 0:
        problems.append(f"--speed: 0 or more, got {args.speed:g}")
    if args.hands < 0:
        problems.append(f"--hands: 0 or more, got {args.hands}")
    if not 0 <= args.violations <= 1:
        problems.append(f"--violations: a rate from 0 to 1, got {args.violations:g}")
    if not 0 <= args.port <= 65535:
        problems.append(f"--port: 0 to 65535, got {args.port}")
    if args.mqtt_port is not None and not 1 <= args.mqtt_port <= 65535:
        problems.append(f"--mqtt-port: 1 to 65535, got {args.mqtt_port}")
    if args.mqtt_port is not None and args.mqtt:
        problems.append("--mqtt-port: the embedded broker's port; not with --mqtt")
    if problems:
        print("\n".join(f"demo: {p}" for p in problems), file=sys.stderr)
        return 2
    config = DemoConfig(
        tables=args.tables,
        speed=args.speed,
        hands=args.hands,
        mqtt=args.mqtt,
        mqtt_port=args.mqtt_port,
        db=args.db,
        host=args.host,
        port=args.port,
        seed=args.seed,
        violations=args.violations,
    )
    configure_logging(logging.WARNING)
    try:
        asyncio.run(_main(config))
    except DemoError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return 2
    return 0


async def _main(config: DemoConfig) -> None:
    """A signal once running stops the demo in order (run_demo watches it); one while it
    is still starting cancels the start."""
    stop = stop_on_signals()
    started = asyncio.Event()

    def say(line: str) -> None:
        print(line, flush=True)
        started.set()

    demo = asyncio.create_task(run_demo(config, stop, say))
    early = asyncio.create_task(stop.wait())
    first = asyncio.create_task(started.wait())
    await asyncio.wait({demo, early, first}, return_when=asyncio.FIRST_COMPLETED)
    early.cancel()
    first.cancel()
    if stop.is_set() and not started.is_set():
        demo.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await demo
        return
    await demo
