"""The event loop's thread asks the kernel for a short slice (cpu_slice.py), and what the
kernel granted is what /proc says; `mjtable serve` asks it with its setting. Where the
kernel has no slice to ask for (before Linux 6.12), the tests that need one skip."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from table_service.service import cpu_slice
from tests.service.kit import Server

T = TypeVar("T")


def in_a_thread(work: Callable[[], T]) -> T:
    """`work` in a thread of its own, so the test process's threads keep their slices."""
    results: list[T] = []
    thread = threading.Thread(target=lambda: results.append(work()))
    thread.start()
    thread.join()
    return results[0]


def needs_slices() -> int:
    default = in_a_thread(cpu_slice.current_slice_us)
    if default is None:
        pytest.skip("this kernel has no slice to ask for (Linux 6.12 and later)")
    return default


def test_a_thread_gets_the_slice_it_asks_and_the_threads_it_starts_inherit_it() -> None:
    default = needs_slices()
    wanted = 300 if default != 300 else 500

    def ask_then_start() -> tuple[str, int | None, int | None]:
        said = cpu_slice.ask(wanted)
        inherited = in_a_thread(cpu_slice.current_slice_us)
        return said, cpu_slice.current_slice_us(), inherited

    said, own, inherited = in_a_thread(ask_then_start)
    assert (own, inherited) == (wanted, wanted)
    assert f"a slice of {wanted} µs" in said
    assert in_a_thread(cpu_slice.current_slice_us) == default  # the asker's alone


def test_a_batch_thread_keeps_its_policy_and_nice() -> None:
    needs_slices()

    def batch_then_ask() -> tuple[int, int, int | None]:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, 0, 5)  # this thread only, on Linux
        cpu_slice.ask(300)
        return (
            os.sched_getscheduler(0),
            os.getpriority(os.PRIO_PROCESS, 0),
            cpu_slice.current_slice_us(),
        )

    assert in_a_thread(batch_then_ask) == (os.SCHED_BATCH, 5, 300)


def test_zero_leaves_the_kernels_own_slice() -> None:
    default = needs_slices()

    def ask_zero() -> tuple[str, int | None]:
        return cpu_slice.ask(0), cpu_slice.current_slice_us()

    said, own = in_a_thread(ask_zero)
    assert own == default
    assert "the kernel's own slice" in said


async def test_serve_asks_its_setting_for_the_loops_thread(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    default = needs_slices()
    wanted = 200 if default != 200 else 400
    base = f"slice-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path, "--cpu-slice-us", str(wanted))
    try:
        await server.start()
        assert server.proc is not None
        pid = server.proc.pid
        with open(f"/proc/{pid}/task/{pid}/sched") as f:  # the main thread runs the loop
            granted = [line for line in f if line.startswith(cpu_slice.SLICE_FIELD)]
        assert int(granted[0].split(":")[1]) == wanted * 1000
    finally:
        server.stop()
