"""`python -m bench.service`: the table service under load, a step ramp of offered events/s
(what each figure means: README.md beside this file)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import sys

from bench.service.config import DEFAULT_DB, DEFAULT_MQTT
from bench.service.load import load_main
from bench.service.report import report
from bench.service.run import measure


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        asyncio.run(load_main(json.loads(sys.argv[2])))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mqtt", default=DEFAULT_MQTT, help="broker URL, or 'private'")
    parser.add_argument(
        "--db", default=DEFAULT_DB, help="PostgreSQL URL (a scratch schema), or 'sqlite'"
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument(
        "--rates", default="100,250,500,1000,2000", help="offered events/s per step"
    )
    parser.add_argument("--step-seconds", type=float, default=40.0)
    parser.add_argument("--drain-seconds", type=float, default=30.0)
    parser.add_argument("--load-procs", type=int, default=1, help="processes the tables run in")
    parser.add_argument(
        "--load-nice",
        type=int,
        default=0,
        help="niceness of the load processes (the bridges of a club run on other machines)",
    )
    parser.add_argument(
        "--probe-nice",
        type=int,
        default=0,
        help="niceness of the probe's thread (the pages and MQTT followers of a club run on "
        "other machines); above 0 its latencies include its own waits for a core: read the "
        "service's loop pauses only",
    )
    parser.add_argument("--outbox-sync", choices=("full", "normal"), default="normal")
    parser.add_argument(
        "--ws-deflate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="permessage-deflate on the WebSocket (a browser asks for it)",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"python {platform.python_version()}, {os.cpu_count()} cpus, load average"
        f" {os.getloadavg()[0]:.2f} at start",
        flush=True,
    )
    try:
        result = measure(**vars(args))
    except RuntimeError as exc:
        print(f"the run broke: {exc}")
        print(json.dumps({"ok": False, "error": str(exc)}))
        sys.exit(1)
    report(result)
    for s in result["steps"]:
        s.pop("ws_p99_raw")
    print(f"wall {result['wall_seconds']} s")
    print(json.dumps({**result, "ok": True}, separators=(",", ":")))


if __name__ == "__main__":
    main()
