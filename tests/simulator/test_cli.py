"""`mjtable sim` as a user runs it: real processes, a real pty, a real bridge and broker."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.bridge.kit_mqtt import Recorder, new_table, running_bridge

MJTABLE = [sys.executable, "-m", "mjtable"]


def test_soak_prints_a_clean_summary_last(tmp_path: Path) -> None:
    done = subprocess.run(
        [*MJTABLE, "sim", "soak", "--hands", "3", "--tables", "2", "--seed", "4",
         "--faults", "duplicate,misread", "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["hands"] == 3 and summary["tables"] == 2
    assert summary["events"] > 500
    assert (summary["events_lost"], summary["duplicates_delivered"], summary["mismatches"]) == (
        0, 0, 0,
    )  # fmt: skip
    assert set(summary["faults"]) <= {"duplicate", "misread"}


def test_unknown_fault_is_refused_by_name() -> None:
    done = subprocess.run(
        [*MJTABLE, "sim", "soak", "--faults", "gremlins"], capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and "unknown fault 'gremlins'" in done.stderr


@pytest.mark.parametrize("link", ["pty", "tcp"])
async def test_sim_talks_to_a_real_bridge(tmp_path: Path, mqtt_url: str, link: str) -> None:
    """On a pty (the default), or on TCP as a serial server would (`socket://`)."""
    pty = tmp_path / "table.tty"
    where = ["--pty", str(pty)] if link == "pty" else ["--tcp", "127.0.0.1:0"]
    proc = await asyncio.create_subprocess_exec(
        *MJTABLE, "sim", *where, "--hands", "2", "--speed", "0", "--seed", "9",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    try:
        first = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode().strip()
        if link == "pty":
            assert first == str(pty)
        else:
            assert re.fullmatch(r"socket://127\.0\.0\.1:[1-9][0-9]*", first), first
        table = new_table()
        async with (
            Recorder(mqtt_url, table) as rec,
            running_bridge(tmp_path, mqtt_url, table, first),  # type: ignore[arg-type]
        ):
            lines = [
                json.loads(await asyncio.wait_for(proc.stdout.readline(), 60)) for _ in range(2)
            ]
            assert [line["hand"] for line in lines] == [1, 2]
            assert all(line["end"] in ("win", "draw") for line in lines)
            events = sum(line["events"] for line in lines)
            events += 2  # the 將's seating and dealer rolls come before the first hand
            await rec.wait(lambda: len(rec.events()) >= events, timeout=60)
            assert await asyncio.wait_for(proc.wait(), 60) == 0
        kinds = [e.body.kind for e in rec.events()]
        assert kinds.count("shuffle_started") == 2 and len(kinds) == events
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


@pytest.mark.parametrize("argv", [["sim", "--help"], ["sim", "soak", "--help"]])
def test_help_names_every_option(argv: list[str]) -> None:
    done = subprocess.run([*MJTABLE, *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    for option in ("--pty", "--tcp", "--tables", "--speed", "--faults", "--hands", "--seed",
                   "--violations", "--violation-codes"):  # fmt: skip
        assert option in done.stdout
