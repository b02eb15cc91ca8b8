"""Run the checks in order on one port and say, per section, pass or fail with the frames."""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from firmware_bridge.conformance.checks import BY_NAME, CHECKS, Board, Check, Manual
from firmware_bridge.conformance.host import AT_ONCE, Failed, ScriptedHost
from firmware_bridge.conformance.wire import Exchange, Wire

Status = Literal["pass", "fail", "manual"]
MAX_FRAMES = 80  # the last frames of a failed check, enough to see the rule broken


@dataclass(frozen=True, slots=True)
class Result:
    name: str
    section: str
    title: str
    status: Status
    detail: str = ""
    since: str | None = None
    seconds: float = 0.0
    frames: list[str] = field(default_factory=list)

    def line(self) -> str:
        head = f"{self.status:<6} {self.name:<16} {self.section:<12} {self.title}"
        if self.since:
            head += f" [settled in {self.since}]"
        return f"{head}\n       {self.detail}" if self.detail else head


def format_exchange(x: Exchange, start: float) -> str:
    return f"{(x.t - start) * 1000:+9.1f} ms {x.direction} {x.raw.hex(' ')}  | {x.describe()}"


def run_check(host: ScriptedHost, check: Check, board: Board) -> Result:
    """One check on the suite's host (its link running); failures keep the frames exchanged."""
    wire = host.wire
    host.begin()
    begin = len(wire.transcript)
    start = time.monotonic()
    status: Status = "pass"
    detail = ""
    try:
        check.run(host, board)
    except Failed as exc:
        status, detail = "fail", str(exc)
    except Manual as exc:
        status, detail = "manual", str(exc)
    except Exception as exc:  # a device that breaks the script is a failure, not a crash
        status, detail = "fail", f"{type(exc).__name__}: {exc}"
    else:
        detail = "; ".join(host.notes)  # what a pass could not see (a busy device)
    frames: list[str] = []
    if status == "fail":
        exchanged = wire.transcript[begin:]
        if len(exchanged) > MAX_FRAMES:
            frames.append(f"… {len(exchanged) - MAX_FRAMES} earlier exchanges left out")
        frames += [format_exchange(x, start) for x in exchanged[-MAX_FRAMES:]]
    seconds = time.monotonic() - start
    return Result(
        check.name, check.section, check.title, status, detail, check.since, seconds, frames
    )


def select(only: Sequence[str] = ()) -> list[Check]:
    """The checks named in `only` (all when empty), in the suite's order."""
    unknown = [name for name in only if name not in BY_NAME]
    if unknown:
        known = ", ".join(BY_NAME)
        raise ValueError(f"--only: unknown section {unknown[0]!r} (known: {known})")
    return [check for check in CHECKS if not only or check.name in only]


@dataclass(frozen=True, slots=True)
class LinkFigures:
    """How the suite's host kept the link: its ack and WELCOME delays (§3.3, §3.9: 10 ms)."""

    acks: int
    ack_max_ms: float
    ack_p99_ms: float
    acks_late: int  # later than the page's 10 ms
    welcomes: int
    welcome_max_ms: float

    @classmethod
    def of(cls, host: ScriptedHost) -> LinkFigures:
        acks = sorted(host.ack_delays)
        welcomes = host.welcome_delays
        p99 = acks[min(len(acks) - 1, int(len(acks) * 0.99))] if acks else 0.0
        return cls(
            len(acks),
            round(max(acks, default=0.0) * 1000, 2),
            round(p99 * 1000, 2),
            sum(d > AT_ONCE for d in acks),
            len(welcomes),
            round(max(welcomes, default=0.0) * 1000, 2),
        )

    def line(self) -> str:
        return (
            f"host: {self.acks} acks sent, slowest {self.ack_max_ms:.1f} ms, 99 % within "
            f"{self.ack_p99_ms:.1f} ms, {self.acks_late} later than 10 ms; {self.welcomes} "
            f"HELLOs answered, slowest {self.welcome_max_ms:.1f} ms"
        )


def run_suite(
    url: str,
    board: Board | None = None,
    only: Sequence[str] = (),
    figures: list[LinkFigures] | None = None,
) -> list[Result]:
    """Every selected check against the device on `url` (raises PortError if it won't open).

    One host serves the whole run, its link acknowledging throughout (between checks
    too); `figures`, if given, receives how promptly it did."""
    checks = select(only)
    wire = Wire(url)
    host = ScriptedHost(wire)
    collecting = gc.isenabled()
    gc.disable()  # a full collection stops every thread for 25-100 ms: ten times the ACK delay
    host.start()
    try:
        return [run_check(host, check, board or Board()) for check in checks]
    finally:
        host.stop()
        wire.close()
        if collecting:
            gc.enable()
        if figures is not None:
            figures.append(LinkFigures.of(host))
