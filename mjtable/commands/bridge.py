"""`mjtable bridge`: run one table's firmware bridge (serial link ⇄ MQTT) until stopped."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys

from firmware_bridge.bridge import Bridge
from firmware_bridge.outbox import OutboxDamaged
from firmware_bridge.settings import BridgeSettings, load_settings
from firmware_bridge.stopping import cancel_and_wait
from mjtable.logs import configure_logging
from mjtable.settings_cli import EXIT_BAD_CONFIG, add_settings_arguments, settings_from

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
            "Runs until SIGINT/SIGTERM; exit 2 on a bad configuration or a damaged outbox."
        ),
    )
    add_settings_arguments(p, BridgeSettings, "bridge", METAVARS)
    p.set_defaults(func=run)


def bridge_settings(args: argparse.Namespace) -> BridgeSettings:
    """The bridge's settings from flags, environment and file; exits 2 naming a bad field."""
    hints = {"port": " (--port, MJTABLE_BRIDGE_PORT or [bridge] port)"}
    return settings_from(args, BridgeSettings, load_settings, "bridge", hints)


def run(args: argparse.Namespace) -> int:
    settings = bridge_settings(args)
    configure_logging(settings.log_level)
    try:
        bridge = Bridge(settings)
    except OutboxDamaged as exc:
        print(f"bridge: {exc}", file=sys.stderr)
        return EXIT_BAD_CONFIG
    asyncio.run(_serve(bridge))
    return 0


async def _serve(bridge: Bridge) -> None:
    """Run until SIGINT/SIGTERM, then stop cleanly (the bridge publishes `offline`)."""
    task = asyncio.create_task(bridge.run())
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
