"""Lighthouse (its default: the mobile preset, a throttled mid-range phone) on the pages a
room looks at, against the demo as it plays: the table, club and session pages.

    .venv/bin/python bench/lighthouse.py                 # starts `mjtable demo` on a free port
    .venv/bin/python bench/lighthouse.py --url http://127.0.0.1:8000   # a running service
    .venv/bin/python bench/lighthouse.py --runs 2 --keep /tmp/lh   # every run shown, reports kept

Needs Node.js and npm (Lighthouse is installed once into bench/.lighthouse/ from the npm
registry) and Debian's Chromium at /usr/bin/chromium. Prints each page's performance,
accessibility and best-practices scores beside the aims (≥ 90, 100, 100), the metrics
behind performance (FCP, LCP, TBT, CLS, bytes sent), and the score's ratio to its aim;
with --runs N, every run's line, then the median's; with --keep DIR, each report's JSON as
DIR/<page>-<run>.json (its opportunities, requests and diagnostics). Exit status 1 when a
page misses an aim. Run it on an otherwise idle machine: total
blocking time is CPU time.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from table_sim.broker import free_port  # noqa: E402  (the project's one free-port finder)

TOOL = ROOT / "bench" / ".lighthouse"
VERSION = "12"
CHROMIUM = os.environ.get("MJTABLE_TEST_CHROMIUM") or "/usr/bin/chromium"
AIMS = {"performance": 90, "accessibility": 100, "best-practices": 100}
METRICS = {
    "first-contentful-paint": "FCP",
    "largest-contentful-paint": "LCP",
    "total-blocking-time": "TBT",
    "cumulative-layout-shift": "CLS",
    "total-byte-weight": "bytes",
}


def lighthouse() -> Path:
    """The Lighthouse CLI, installed into bench/.lighthouse on first use."""
    binary = TOOL / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        TOOL.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(TOOL), "--no-audit", "--no-fund",
             f"lighthouse@{VERSION}"],
            check=True,
        )  # fmt: skip
    return binary


def get_json(url: str) -> object:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


@contextlib.contextmanager
def demo(seconds: float) -> Iterator[str]:
    """`mjtable demo` on a free port, played `seconds` so every page has something on it."""
    port = free_port()
    mjtable = shutil.which("mjtable", path=str(Path(sys.executable).parent)) or "mjtable"
    proc = subprocess.Popen(
        [mjtable, "demo", "--port", str(port), "--tables", "4", "--speed", "8", "--seed", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError, ValueError):
                if get_json(f"{url}/api/tables"):
                    break
            time.sleep(0.5)
        else:
            raise SystemExit("the demo did not come up in 60 s")
        time.sleep(seconds)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def pages(url: str) -> dict[str, str]:
    tables = get_json(f"{url}/api/tables")
    assert isinstance(tables, list) and tables, "no table yet"
    first = tables[0]
    pages = {"table": f"{url}/table.html?t={first['table']}", "club": f"{url}/"}
    session = next((t["session_id"] for t in tables if t.get("session_id")), None)
    if session is not None:
        pages["session"] = f"{url}/session.html?id={session}"
    return pages


def audit(tool: Path, address: str, workdir: Path, keep: Path | None = None) -> dict[str, object]:
    out = keep or workdir / "report.json"
    subprocess.run(
        [str(tool), address, "--output=json", f"--output-path={out}", "--quiet",
         f"--chrome-flags=--headless=new --no-sandbox --user-data-dir={workdir / 'profile'}",
         "--only-categories=performance,accessibility,best-practices"],
        check=True, env={**os.environ, "CHROME_PATH": CHROMIUM},
    )  # fmt: skip
    report = json.loads(out.read_text())
    scores = {k: round(100 * (report["categories"][k]["score"] or 0)) for k in AIMS}
    metrics = {name: report["audits"][key].get("numericValue") for key, name in METRICS.items()}
    failed = [
        f"{k}: {a['title']}"
        for k, a in report["audits"].items()
        if a.get("score") is not None and a["score"] < 1 and a.get("scoreDisplayMode") == "binary"
    ]
    return {"scores": scores, "metrics": metrics, "failed": failed}


def row(label: str, result: dict[str, object]) -> str:
    s, m = result["scores"], result["metrics"]
    assert isinstance(s, dict) and isinstance(m, dict)
    return (
        f"{label:10} {s['performance']:>5} {s['accessibility']:>5} "
        f"{s['best-practices']:>5}  {m['FCP']:6.0f}  {m['LCP']:6.0f}  {m['TBT']:6.0f} "
        f"{m['CLS']:5.3f} {m['bytes'] / 1024:5.0f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a running service (default: start the demo)")
    parser.add_argument("--play", type=float, default=20.0, help="seconds the demo plays first")
    parser.add_argument("--runs", type=int, default=1, help="audits per page (the median)")
    parser.add_argument("--keep", type=Path, help="a folder for each report's JSON")
    args = parser.parse_args()
    tool = lighthouse()
    with contextlib.ExitStack() as stack:
        url = args.url or stack.enter_context(demo(args.play))
        missed = 0
        print(f"{'page':10}  perf  a11y  best  FCP ms  LCP ms  TBT ms   CLS   KiB")
        for name, address in pages(url).items():
            results = []
            for run in range(1, args.runs + 1):
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                keep = args.keep / f"{name}-{run}.json" if args.keep else None
                with tempfile.TemporaryDirectory() as tmp:
                    results.append(audit(tool, address, Path(tmp), keep))
                if args.runs > 1:
                    print(row(f"{name} {run}", results[-1]))
            results.sort(key=lambda r: r["scores"]["performance"])  # type: ignore[index]
            r = results[len(results) // 2]
            s = r["scores"]
            assert isinstance(s, dict)
            print(row(name if args.runs == 1 else f"{name} med", r))
            ratios = ", ".join(f"{k} {s[k] / aim:.2f}" for k, aim in AIMS.items())
            print(f"{'':10} score / aim: {ratios}")
            for line in r["failed"]:  # type: ignore[union-attr]
                print(f"{'':10} failed: {line}")
            missed += any(s[k] < aim for k, aim in AIMS.items())
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
