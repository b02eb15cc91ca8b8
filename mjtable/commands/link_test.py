"""`mjtable link-test`: check a table controller against docs/protocol.md, one line per section.

`--port` takes what the bridge takes (a device path or socket:// URL); `--sim` starts
the simulator's controller on a pseudo-terminal in this process, as CI does.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from firmware_bridge.conformance import CHECKS, Board, PortError, Result, run_suite, select
from firmware_bridge.conformance.checks import BY_NAME
from firmware_bridge.conformance.suite import LinkFigures
from firmware_bridge.protocol.arq import Timing
from table_sim.controller import PtyController


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    names = ", ".join(check.name for check in CHECKS)
    p = sub.add_parser(
        "link-test",
        help="check a table controller's link against docs/protocol.md",
        description=(
            "Drive the controller on --port through every rule of docs/protocol.md as a "
            "scripted host and print one line per section: pass, fail with the rule and the "
            "frames that show it, or manual (a reset this run cannot do); then how promptly "
            "the host itself acknowledged. Exit 0 when nothing failed, 1 when a check failed, "
            "2 when the port cannot be opened. "
            "The host acknowledges every event as it arrives (within the page's 10 ms) and "
            "answers every HELLO at once for the whole run, so the table may be quiet on a "
            "bench or in play: its own events are taken in and acknowledged, and each check "
            "judges only the frames of its rule. What the suite needs of the device: the port "
            "to itself (no bridge on it); a STATE for every REQUEST_STATE (the checks ask for "
            "events that way); for the reboot check a reset (--reboot-prompt, else manual). "
            "Where a rule can only be seen on a quiet device the check says what a busy one "
            "must do instead: a HEARTBEAT is due only after 1 s with nothing sent, so a "
            "device that is never idle passes heartbeat by never falling silent for longer; "
            "retransmission withholds acks for up to 5 s, and a queue that fills meanwhile "
            "(HELLO, §3.8) ends the RTO ladder early, judged as far as it went. link_down "
            "keeps the host silent for 4 s. The commands check sends START_SHUFFLE and "
            "RAISE_WALL: run it on a bench, not at a table in play (--skip commands there). "
            f"Sections: {names}."
        ),
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="URL", help="device path or socket://host:port")
    where.add_argument(
        "--sim", action="store_true", help="test the simulator's controller (on a pty)"
    )
    p.add_argument(
        "--only",
        metavar="SECTION",
        action="append",
        default=[],
        help="run only this section (repeat or comma-separate for several)",
    )
    p.add_argument(
        "--skip",
        metavar="SECTION",
        action="append",
        default=[],
        help="leave this section out (repeat or comma-separate; at a table in play: commands)",
    )
    p.add_argument("--json", action="store_true", help="print the results as one JSON list")
    p.add_argument(
        "--reboot-prompt",
        action="store_true",
        help="for the reboot check: ask a person to press the board's reset (waits 30 s)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    only = _names(args.only)
    skip = _names(args.skip)
    try:
        select(only)
        select(skip)
    except ValueError as exc:
        flag = "--only" if any(name not in BY_NAME for name in only) else "--skip"
        print(f"mjtable link-test: {str(exc).replace('--only', flag)}", file=sys.stderr)
        return 2
    if skip:
        only = [check.name for check in select(only) if check.name not in skip]
        if not only:
            print("mjtable link-test: --skip leaves no section to run", file=sys.stderr)
            return 2
    figures: list[LinkFigures] = []
    try:
        if args.sim:
            directory = Path(tempfile.mkdtemp(prefix="mjtable-link-test-"))
            with SimBoard(directory, _default_controller) as sim:
                results = run_suite(str(sim.port), sim.board(), only, figures)
        else:
            board = Board(_prompt_reset, 30.0) if args.reboot_prompt else Board()
            results = run_suite(args.port, board, only, figures)
    except PortError as exc:
        print(f"mjtable link-test: {exc}", file=sys.stderr)
        return 2
    print_results(results, as_json=args.json)
    if figures and not args.json:
        print(figures[0].line())
    return 1 if any(r.status == "fail" for r in results) else 0


def _names(args: list[str]) -> list[str]:
    return [name.strip() for arg in args for name in arg.split(",") if name.strip()]


def print_results(results: list[Result], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps([dataclasses.asdict(r) for r in results], ensure_ascii=False, indent=1))
        return
    for r in results:
        print(r.line(), flush=True)
        for line in r.frames:
            print(f"         {line}")
    counts = {s: sum(r.status == s for r in results) for s in ("pass", "fail", "manual")}
    print(f"{counts['pass']} pass, {counts['fail']} fail, {counts['manual']} manual")


def _prompt_reset() -> None:
    print("link-test: press the board's reset button now (waiting 30 s)", file=sys.stderr)


ControllerFactory = Callable[[Path, Timing], PtyController]


def _default_controller(port: Path, timing: Timing) -> PtyController:
    return PtyController(port, 0x5100, timing=timing, tick=0.002)


class SimBoard:
    """The simulator's controller on a pty, run by its own event loop in a thread."""

    def __init__(self, directory: Path, factory: ControllerFactory = _default_controller) -> None:
        self.port = directory / "ttyTABLE"
        self.controller = factory(self.port, Timing())
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._next_boot = 0x5200

    def __enter__(self) -> SimBoard:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.controller.start(), self._loop).result(5)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        asyncio.run_coroutine_threadsafe(self.controller.stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        self._loop.close()

    def reboot(self) -> None:
        """A reset of the simulated board: a new boot id, its queue gone."""
        self._next_boot += 1
        self._loop.call_soon_threadsafe(self.controller.reboot, self._next_boot)

    def board(self) -> Board:
        return Board(self.reboot, 2.0)
