"""`mjtable bench`: every benchmark in bench/, one table of figures (and the machine).

The benchmarks live in the repository's bench/ folder, not in the package: they need the
test extras (the `mahjong` library the scoring is compared with) and the repository's
services, and a wheel has no use for them. So this command finds bench/ next to the
installed `mjtable` package (an editable install or a checkout) and says so, exit 2,
when it is not there. Each measurement runs in a fresh Python process (`python -m
mjtable.commands.bench`), which imports the bench module's `measure` function and writes
its figures as JSON: every bench starts cold, as when it is run alone, and one that
breaks (or exits) cannot take the others with it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import mjtable
from mjtable.commands.bench_cells import Row, verdict

BENCH_DIR = Path(mjtable.__file__).resolve().parent.parent / "bench"
BENCHES = ("scoring", "codec", "bridge", "mirror", "sim", "storing", "service", "hardening", "soak")
EXIT_USAGE = 2


@dataclass(frozen=True)
class Job:
    """One measurement: `module`'s `function(**kwargs)` in a process of its own."""

    bench: str  # the name --only selects
    key: str  # its figures' key in the JSON
    module: str  # bench/<module>.py, or "" for a function of this module
    function: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    rows: str = "summary_rows"  # the module's function that makes its table rows


def jobs(quick: bool, mqtt: str | None, db: str | None) -> list[Job]:
    """The measurements and their sizes: the benches' own defaults, or short runs."""
    broker = {"mqtt": mqtt} if mqtt else {}
    bridge_broker = mqtt or os.environ.get("MJTABLE_TEST_MQTT")  # as bench/bridge.py
    service_db = {"db": db} if db else {}
    if quick:
        service_1 = {"tables": 1, "rates": "100,500", "step_seconds": 10.0}
        service_50 = {"tables": 50, "rates": "100,500", "step_seconds": 10.0}
        drain = {"drain_seconds": 15.0}
    else:
        service_1 = {"tables": 1, "rates": "100,500,1000", "step_seconds": 20.0}
        service_50 = {"tables": 50, "rates": "100,250,500,1000,2000", "step_seconds": 40.0}
        drain = {"drain_seconds": 30.0}
    q = quick
    hardening = (
        {"seconds": 40.0, "drain_seconds": 30.0, "phase_seconds": 8.0, "ws_clients": 600}
        if q else {}
    )  # fmt: skip
    bridge = {"events": 500 if q else 3000, "latency_events": 100 if q else 500}
    return [
        Job("scoring", "scoring", "scoring", "measure",
            {"seconds": 0.3, "pool": 500, "cli_hands": 5000} if q else {}),
        Job("codec", "codec", "bridge", "bench_codec", {"n": 20_000 if q else 200_000},
            "codec_rows"),
        Job("bridge", "bridge", "bridge", "measure_bridge",
            {"mqtt": bridge_broker, **bridge}),
        Job("mirror", "mirror", "mirror", "measure", {"hands": 100} if q else {}),
        Job("sim", "sim", "sim", "measure",
            {**broker, **({"hands_one": 10, "hands_many": 50} if q else {})}),
        Job("storing", "storing", "storing", "measure",
            {"tables": 50, "hands": 2, "db": db, "runs": 1 if q else 3}),
        Job("service", "service_1", "service", "measure",
            {**service_1, **drain, **broker, **service_db}),
        Job("service", "service_50", "service", "measure",
            {**service_50, **drain, **broker, **service_db}),
        Job("hardening", "hardening", "hardening", "measure",
            {**hardening, **broker, **service_db}),
        Job("soak", "soak", "", "soak",
            {"hands": 10 if q else 50, "tables": 2 if q else 5, "mqtt": mqtt}, "soak_rows"),
    ]  # fmt: skip


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench",
        help="run every benchmark and print one table of figures",
        description=(
            "Runs the benchmarks of the repository's bench/ folder (scoring and waits beside "
            "the `mahjong` library, the wire codec, the bridge, the game mirror and replay, "
            "the whole loop, the service's writer draining a backlog, the table service at 1 and "
            "50 tables, its hardening (memory "
            "under a flood, storing under crowds of readers and token guessers), and a soak "
            "with every fault) and prints the machine and one table: figure, value, unit, "
            "ratio or aim. The full run takes about 18 minutes on 2 cores; --quick about 7. "
            "The service "
            "needs PostgreSQL (--db) and an MQTT broker (--mqtt, default 127.0.0.1:1883). "
            "Exit 0 when every bench ran, 1 when one broke, 2 on bad options or when bench/ "
            "is missing (an install without the repository)."
        ),
    )
    p.add_argument("--quick", action="store_true", help="short runs for a first look")
    p.add_argument("--only", metavar="NAME[,NAME]", help=f"run only these: {', '.join(BENCHES)}")
    p.add_argument("--json", type=Path, metavar="FILE", help="save every figure to FILE")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    p.add_argument(
        "--mqtt", metavar="URL",
        help="the broker for the bridge, loop, service and soak (default: each bench's own)",
    )  # fmt: skip
    p.add_argument(
        "--db", metavar="URL",
        help="the service's database: a PostgreSQL URL or 'sqlite' (default: the local test "
        "PostgreSQL; SQLite for the hardening bench)",
    )  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not (BENCH_DIR / "scoring.py").is_file():
        print(
            f"mjtable bench: no benchmarks at {BENCH_DIR}: they live in the repository's bench/ "
            "folder, not in the package; run from a checkout (pip install -e '.[test]')",
            file=sys.stderr,
        )
        return EXIT_USAGE
    selected = list(BENCHES)
    if args.only:
        selected = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in selected if n not in BENCHES]
        if unknown or not selected:
            print(
                f"mjtable bench: no benchmark named {', '.join(unknown) or repr(args.only)}; "
                f"choose from {', '.join(BENCHES)}",
                file=sys.stderr,
            )
            return EXIT_USAGE
    machine = machine_facts()
    todo = [j for j in jobs(args.quick, args.mqtt, args.db) if j.bench in selected]
    figures: dict[str, Any] = {}
    seconds: dict[str, float] = {}
    errors: dict[str, str] = {}
    began = time.monotonic()
    for job in todo:
        say(f"bench {job.key}: {job.function}({json.dumps(job.kwargs)}) …")
        start = time.monotonic()
        result, error = run_job(job)
        seconds[job.key] = round(time.monotonic() - start, 1)
        if error is None:
            figures[job.key] = result
            say(f"bench {job.key}: done in {seconds[job.key]:.0f} s")
        else:
            errors[job.key] = error
            say(f"bench {job.key}: BROKE after {seconds[job.key]:.0f} s: {error}")
    total = round(time.monotonic() - began, 1)
    machine["load_average_end"] = round(os.getloadavg()[0], 2)
    rows = table_rows(todo, figures, errors)
    out = sys.stdout
    if args.markdown:
        out.write(markdown(machine, rows, args.quick, total))
    else:
        out.write(plain(machine, rows, args.quick, total))
    out.flush()
    if args.json:
        saved = {
            "machine": machine, "quick": args.quick, "total_seconds": total,
            "seconds": seconds, "figures": figures, "errors": errors,
            "rows": [list(r) for r in rows],
        }  # fmt: skip
        text = json.dumps(finite(saved), indent=1, default=str, allow_nan=False)
        args.json.write_text(text + "\n", encoding="utf-8")
    return 1 if errors else 0


def finite(value: Any) -> Any:
    """`value` with every infinite or NaN float as None: strict JSON (a latency never seen
    is infinite in the service's figures)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v) for v in value]
    return value


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- running one measurement in its own process ------------------------------------------


def run_job(job: Job) -> tuple[Any, str | None]:
    """The job's figures from a child process, or None and why it broke."""
    with tempfile.TemporaryDirectory(prefix="mjtable-bench-") as tmp:
        result_file = Path(tmp) / "result.json"
        spec = json.dumps({"module": job.module, "function": job.function, "kwargs": job.kwargs})
        proc = subprocess.run(
            [sys.executable, "-m", "mjtable.commands.bench", spec, str(result_file)],
            stdin=subprocess.DEVNULL,
            stdout=2,  # the benches' own progress lines go to stderr: the table owns stdout
            check=False,
        )
        if result_file.is_file():
            data = json.loads(result_file.read_text(encoding="utf-8"))
            if "error" in data:
                return None, str(data["error"])
            return data["result"], None
        return None, f"the bench process exited {proc.returncode} without figures"


def load_bench(name: str) -> ModuleType:
    """bench/<name>.py, or the package bench/<name>/, as `bench.<name>` (bench/ is a folder
    of the checkout beside the packages, not installed: its parent goes on the path)."""
    checkout = str(BENCH_DIR.parent)
    if checkout not in sys.path:
        sys.path.insert(0, checkout)
    return importlib.import_module(f"bench.{name}")


def soak(hands: int, tables: int, mqtt: str | None = None, seed: int = 1) -> dict[str, Any]:
    """`mjtable sim soak --faults all --violations 0.02` (CI's soak): the JSON summary."""
    import asyncio

    from table_sim.faults import Faults
    from table_sim.soak import SoakConfig, run_soak
    from table_sim.violations import Violations

    with tempfile.TemporaryDirectory(prefix="mjtable-bench-soak-") as tmp:
        config = SoakConfig(
            hands=hands, workdir=Path(tmp), tables=tables, faults=Faults.parse("all"),
            seed=seed, mqtt=mqtt, violations=Violations.parse(0.02),
        )  # fmt: skip
        summary = asyncio.run(run_soak(config))
    summary.pop("bridge", None)  # per-table counters: too much for the table's JSON
    return {**summary, "violation_rate": 0.02, "fault_spec": "all"}


def child(argv: Sequence[str]) -> int:
    """In the child process: run one measurement, write {"result"} or {"error"} as JSON."""
    spec, result_file = json.loads(argv[0]), Path(argv[1])
    try:
        with contextlib.redirect_stdout(sys.stderr):
            if spec["module"]:
                func: Callable[..., Any] = getattr(load_bench(spec["module"]), spec["function"])
            else:
                func = globals()[spec["function"]]
            result: Any = func(**spec["kwargs"])
        data: dict[str, Any] = {"result": result}
    except (Exception, SystemExit) as exc:
        traceback.print_exc()
        data = {"error": f"{type(exc).__name__}: {exc}"}
    result_file.write_text(json.dumps(data, default=str), encoding="utf-8")
    return 0 if "result" in data else 1


# --- the machine --------------------------------------------------------------------------


def machine_facts() -> dict[str, Any]:
    """What the figures depend on: CPU, cores, RAM, Python, OS, when."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram_gib = None
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram_gib = round(int(line.split()[1]) / 2**20, 1)
                break
    os_name = f"{platform.system()} {platform.release()}"
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = f"{line.split('=', 1)[1].strip(chr(34))}, {os_name}"
                break
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gib": ram_gib,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": os_name,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average": round(os.getloadavg()[0], 2),
    }


def machine_line(m: dict[str, Any]) -> str:
    ram = f"{m['ram_gib']} GiB RAM" if m["ram_gib"] is not None else "RAM unknown"
    load = f"load average {m['load_average']} at start"
    if "load_average_end" in m:
        load += f", {m['load_average_end']} at the end"
    return f"{m['cpu']}, {m['cores']} cores, {ram}; {m['python']}; {m['os']}; {m['date']} ({load})"


# --- the table ----------------------------------------------------------------------------


def table_rows(done: list[Job], figures: dict[str, Any], errors: dict[str, str]) -> list[Row]:
    """Every figure of the benches that ran, each bench's rows made by its own module."""
    rows: list[Row] = []
    for job in done:
        if job.key in figures:
            module = load_bench(job.module) if job.module else sys.modules[__name__]
            rows += getattr(module, job.rows)(figures[job.key])
        elif job.key in errors:
            rows.append((f"{job.key}: did not run", "—", "", errors[job.key][:120]))
    return rows


def soak_rows(f: dict[str, Any]) -> list[Row]:
    faults = sum(f["faults"].values())
    clean = (
        f["events_lost"] == f["duplicates_delivered"] == f["mismatches"] == 0
        and f["mirror_mismatches"] == f["service_mismatches"] == f["ledger_mismatches"] == 0
    )
    caught = f["violations_missed"] == f["violations_false"] == 0
    label = f"soak ({f['tables']} tables, every fault, violations at {f['violation_rate']})"
    return [
        (f"{label}: hands / events / faults injected",
         f"{f['hands']} / {f['events']:,} / {faults:,}", "",
         f"{f['seconds']:.0f} s, broker {f['broker']}"),
        ("soak: events lost / duplicated / changed; mirror / service mismatches",
         f"{f['events_lost']} / {f['duplicates_delivered']} / {f['mismatches']};"
         f" {f['mirror_mismatches']} / {f['service_mismatches']}", "", f"all 0: {verdict(clean)}"),
        ("soak: violations injected / flagged (missed, false)",
         f"{f['violations_injected']} / {f['violations_flagged']}"
         f" ({f['violations_missed']}, {f['violations_false']})", "",
         f"none missed or false: {verdict(caught)}"),
    ]  # fmt: skip


def _title(quick: bool, total: float) -> str:
    mode = "--quick (short runs: a first look, not figures to quote)" if quick else "full run"
    took = f"{total:.0f} s" if total < 120 else f"{total / 60:.1f} min"
    return f"mjtable bench, {mode}, {took}"


def plain(machine: dict[str, Any], rows: list[Row], quick: bool, total: float) -> str:
    """The table for a terminal: aligned columns."""
    head: Row = ("figure", "value", "unit", "ratio / aim")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    lines = [_title(quick, total), f"machine: {machine_line(machine)}", ""]
    for i, r in enumerate([head, *rows]):
        lines.append(
            f"{r[0]:<{widths[0]}}  {r[1]:>{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}".rstrip()
        )
        if i == 0:
            lines.append("-" * (sum(widths) + 6))
    return "\n".join(lines) + "\n"


def markdown(machine: dict[str, Any], rows: list[Row], quick: bool, total: float) -> str:
    """The table for the README."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        f"{_title(quick, total)}; machine: {machine_line(machine)}",
        "",
        "| figure | value | unit | ratio / aim |",
        "|---|---:|---|---|",
    ]
    lines += [f"| {' | '.join(cell(c) for c in r)} |" for r in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(child(sys.argv[1:]))
