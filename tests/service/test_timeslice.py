"""The event loop's thread asks Linux for a short time slice, and only its own changes."""

from __future__ import annotations

import os
import platform
import sys
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from table_service.service.timeslice import ask_short_slice, thread_slice
from tests.service.kit import Server

T = TypeVar("T")


def custom_slices() -> bool:
    """Linux 6.12 and later keep a normal thread's own slice."""
    if not sys.platform.startswith("linux"):
        return False
    major, minor = (int(part) for part in platform.release().split(".")[:2])
    return (major, minor) >= (6, 12) and thread_slice() is not None


needs_custom_slices = pytest.mark.skipif(
    not custom_slices(), reason="the kernel has no custom time slices (Linux 6.12+)"
)


def in_a_thread(work: Callable[[], T]) -> T:
    """`work` on a thread of its own, so the test's own thread keeps its slice."""
    out: list[T] = []
    thread = threading.Thread(target=lambda: out.append(work()))
    thread.start()
    thread.join()
    return out[0]


@needs_custom_slices
def test_the_thread_gets_the_slice_it_asks_for_and_keeps_its_nice() -> None:
    def ask() -> tuple[str | None, float | None, float | None, int]:
        before = thread_slice()
        os.setpriority(os.PRIO_PROCESS, 0, 3)  # Linux: this thread's nice
        refused = ask_short_slice(0.0003)
        return refused, before, thread_slice(), os.getpriority(os.PRIO_PROCESS, 0)

    default = thread_slice()
    refused, before, after, nice = in_a_thread(ask)
    assert refused is None
    assert before == default and after == pytest.approx(0.0003)
    assert nice == 3  # sched_setattr was given the thread's own nice back
    assert thread_slice() == default  # another thread's slice is its own


@needs_custom_slices
def test_the_kernel_keeps_a_slice_within_its_bounds() -> None:
    """Asking below 0.1 ms gets 0.1 ms: what the kernel allows, not an error."""
    refused, after = in_a_thread(lambda: (ask_short_slice(0.00001), thread_slice()))
    assert refused is None and after == pytest.approx(0.0001)


def test_elsewhere_nothing_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "s390x")
    assert ask_short_slice(0.0002) == f"no custom time slices on {sys.platform}/s390x"


def process_slice(pid: int) -> float:
    """The slice of a process's main thread (its event loop's), in seconds."""
    with open(f"/proc/{pid}/sched") as sched:
        for line in sched:
            name, _, value = line.partition(":")
            if name.strip() == "se.slice":
                return int(value) / 1e9
    raise AssertionError("no se.slice")


@needs_custom_slices
@pytest.mark.parametrize("asked", [0.0002, 0.0])
async def test_mjtable_serve_runs_its_loop_in_the_slice_of_its_settings(
    mqtt_url: str, tmp_path: Path, asked: float
) -> None:
    base = f"svc-{uuid.uuid4().hex[:8]}"
    db = f"sqlite:///{tmp_path / 'mjtable.db'}"
    server = Server(mqtt_url, db, base, tmp_path, "--loop-slice", str(asked), "--log-level", "INFO")
    try:
        await server.start()
        assert server.proc is not None
        expected = asked or in_a_thread(thread_slice)  # 0: a new thread's default
        assert process_slice(server.proc.pid) == pytest.approx(expected)
    finally:
        server.stop()
    said = "the loop's thread runs in 0.20 ms time slices"
    assert (said in server.errors()) == bool(asked)
