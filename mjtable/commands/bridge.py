"""`mjtable bridge`: run one table's firmware bridge (serial link ⇄ MQTT) until stopped."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from firmware_bridge.bridge import Bridge
from firmware_bridge.settings import BridgeSettings, load_settings
from firmware_bridge.stopping import cancel_and_wait

EXIT_BAD_CONFIG = 2
METAVARS = {"port": "URL", "mqtt": "URL", "outbox": "PATH", "table": "ID"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bridge",
        help="bridge a table controller's serial link to MQTT",
        description=(
            "Connect to a table controller (docs/protocol.md) on --port and publish its "
            "events to MQTT under <base-topic>/<table>/. Every option can also be set in "
            "the [bridge] table of the --config TOML file or as MJTABLE_BRIDGE_<OPTION> in "
            "the environment; the command line wins, then the environment, then the file. "
            "Runs until SIGINT/SIGTERM; exit 2 on a bad configuration."
        ),
    )
    p.add_argument("--config", type=Path, metavar="TOML", help="settings file ([bridge] table)")
    for name, field in BridgeSettings.model_fields.items():
        flag = "--" + name.replace("_", "-")
        help_text = field.description or name.replace("_", " ")
        if not field.is_required() and field.default is not None and field.annotation is not bool:
            help_text += f" (default: {field.default})"
        if field.annotation is bool:
            p.add_argument(
                flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text
            )
        else:
            metavar = METAVARS.get(name, name.split("_")[-1].upper())
            p.add_argument(flag, dest=name, metavar=metavar, help=help_text)
    p.set_defaults(func=run)


def settings_from(args: argparse.Namespace) -> BridgeSettings:
    """The settings the arguments, environment and file make; exits 2 naming the bad field."""
    given: dict[str, Any] = {n: getattr(args, n) for n in BridgeSettings.model_fields}
    try:
        return load_settings(args.config, **given)
    except FileNotFoundError as exc:
        print(f"bridge: {exc}", file=sys.stderr)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"]) or "settings"
            hint = " (--port, MJTABLE_BRIDGE_PORT or [bridge] port)" if where == "port" else ""
            print(f"bridge: {where}: {error['msg']}{hint}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_CONFIG)


def run(args: argparse.Namespace) -> int:
    settings = settings_from(args)
    logging.basicConfig(
        level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(_serve(settings))
    return 0


async def _serve(settings: BridgeSettings) -> None:
    """Run until SIGINT/SIGTERM, then stop cleanly (the bridge publishes `offline`)."""
    task = asyncio.create_task(Bridge(settings).run())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    stopper = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
    await cancel_and_wait([task, stopper])
    error = None if task.cancelled() else task.exception()
    if error is not None:
        raise error
