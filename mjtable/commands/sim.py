"""`mjtable sim`: a simulated automatic table (or several) for the bridge to talk to.

`mjtable sim` plays hands on a pseudo-terminal (or a TCP port) and prints one ground
truth line per hand; `mjtable sim soak` plays N hands through the whole loop and
prints a JSON summary, exiting 1 if anything was lost, duplicated or changed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
from pathlib import Path

from firmware_bridge.stopping import interruptible
from mjtable.commands.profile import add_profile_option, load_profile
from table_sim.controller import Controller
from table_sim.faults import Faults
from table_sim.soak import SoakConfig, boot_id_for, run_soak
from table_sim.table import SimulatedTable
from table_sim.transports import PtyTransport, TcpTransport, Transport
from table_sim.violations import SUPPORTED, Violations

VERDICT_KEYS = (
    "events_lost",
    "duplicates_delivered",
    "mismatches",
    "mirror_mismatches",
    "violations_missed",
    "violations_false",
    "faults_missed",
    "faults_false",
    "service_mismatches",
    "ledger_mismatches",
    "stored_violations_missed",
    "stored_violations_false",
)
DEFAULT_PTY = "mjtable-sim.tty"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "sim",
        help="run the table simulator, or a soak run through the whole loop",
        description=(
            "run (default): simulated tables on pseudo-terminals (--pty, the paths are printed "
            "first) or TCP ports (--tcp; the bridge then uses socket://HOST:PORT), one JSON "
            "line of ground truth per hand. soak: --hands hands through simulator → pty → "
            "bridge → MQTT → far end; the last line is a JSON summary and the exit status is "
            "1 unless events_lost, duplicates_delivered, mismatches, and the game mirror's "
            "mirror_mismatches, violations_missed, violations_false, faults_missed and "
            "faults_false are all 0 (`classes` gives the hands judged wrong by class injected)."
        ),
    )
    p.add_argument("mode", nargs="?", choices=("run", "soak"), default="run")
    p.add_argument(
        "--pty",
        metavar="PATH",
        nargs="?",
        const=DEFAULT_PTY,
        help=f"run on a pseudo-terminal linked at PATH (default ./{DEFAULT_PTY}); "
        "the default when --tcp is not given",
    )
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of a pty (run)")
    p.add_argument("--tables", type=int, default=1, help="tables in this process (default 1)")
    p.add_argument(
        "--hands",
        type=int,
        default=None,
        help="run: per table, 0 = for ever (default); soak: in all (50)",
    )
    p.add_argument(
        "--speed",
        type=float,
        default=None,
        help="1 = real time, 10 = ten times faster, 0 = as fast as possible "
        "(default: 1 for run, 0 for soak)",
    )
    p.add_argument("--seed", type=int, default=1, help="same seed, same game (default 1)")
    p.add_argument(
        "--faults",
        default="none",
        help="none, all, or a comma list: corruption, drop, duplicate, burst, unplug, "
        "reboot, broker_restart, misread, reread",
    )
    p.add_argument(
        "--violations",
        type=float,
        default=0.0,
        metavar="RATE",
        help="chance per opportunity that a player breaks a rule on purpose, "
        "recorded in the ground truth (default 0; rare breaches are tried "
        "more often)",
    )
    p.add_argument(
        "--violation-codes",
        default="all",
        metavar="CODES",
        help="all (default), or a comma list of the classes (codes, variants, "
        "situations): " + ", ".join(SUPPORTED),
    )
    p.add_argument("--mqtt", metavar="URL", help="soak: an external broker (default: start one)")
    p.add_argument("--workdir", type=Path, help="soak: keep ptys, outboxes, broker files here")
    p.add_argument(
        "--db",
        metavar="URL",
        help="soak: the table service's database (default SQLite in the workdir)",
    )
    p.add_argument(
        "--no-service",
        dest="service",
        action="store_false",
        help="soak: judge with the bare mirror only, no table service and records",
    )
    add_profile_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        faults = Faults.parse(args.faults)
        violations = Violations.parse(args.violations, args.violation_codes)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    if args.tables < 1:
        print("--tables: at least 1", file=sys.stderr)
        return 2
    try:
        if args.mode == "soak":
            return asyncio.run(interruptible(_soak(args, faults, violations)))
        return asyncio.run(interruptible(_run(args, faults, violations)))
    except KeyboardInterrupt:
        return 130


async def _soak(args: argparse.Namespace, faults: Faults, violations: Violations) -> int:
    hands = 50 if args.hands is None else args.hands
    with contextlib.ExitStack() as stack:
        workdir = args.workdir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        config = SoakConfig(
            hands=hands,
            workdir=workdir,
            tables=args.tables,
            faults=faults,
            seed=args.seed,
            mqtt=args.mqtt,
            speed=args.speed or 0.0,
            violations=violations,
            service=args.service,
            db=args.db,
        )
        summary = await run_soak(config)
    print(json.dumps(summary, ensure_ascii=False), flush=True)
    return 1 if any(summary[k] for k in VERDICT_KEYS) else 0


def _transport(args: argparse.Namespace, index: int) -> Transport:
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        return TcpTransport(host or "127.0.0.1", int(port) + index if int(port) else 0)
    base = Path(args.pty or DEFAULT_PTY).absolute()
    path = base if args.tables == 1 else base.with_name(f"{base.stem}-{index + 1}{base.suffix}")
    return PtyTransport(path)


async def _run(args: argparse.Namespace, faults: Faults, violations: Violations) -> int:
    profile = load_profile(args.profile)
    speed = 1.0 if args.speed is None else args.speed
    tables = []
    for i in range(args.tables):
        controller = Controller(
            _transport(args, i),
            table_id=i + 1,
            boot_id=boot_id_for(args.seed, i),
            faults=faults.link,
            seed=args.seed + i,
        )
        table = SimulatedTable(
            controller,
            args.seed + i,
            faults=faults,
            speed=speed,
            profile=profile,
            violations=violations,
        )
        await table.start()
        tables.append(table)
        print(controller.transport.url, flush=True)

    async def play(index: int, table: SimulatedTable) -> None:
        count = 0
        while not args.hands or count < args.hands:
            result = await table.play_hand()
            count += 1
            line = {"table": index + 1, "hand": count, **result.to_json()}
            print(json.dumps(line, ensure_ascii=False), flush=True)
        await table.controller.wait_idle(timeout=3600)

    try:
        await asyncio.gather(*(play(i, t) for i, t in enumerate(tables)))
    finally:
        for table in tables:
            await table.stop()
    return 0
