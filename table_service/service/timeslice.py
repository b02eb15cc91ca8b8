"""A short time slice for the event loop's thread, asked of the kernel.

On a server that also runs the broker and the database, most of the loop's pauses over
10 ms were the loop's thread waiting for a core behind them (loop_watch.py counts them
as "core"). Linux's scheduler (EEVDF, 6.6+; custom slices since 6.12) lets a thread ask
for a shorter slice: it then gets an earlier deadline when it wakes, and runs before a
thread that has the core for a long stretch, while its share of the CPU is unchanged. A
thread that wakes for a message and sleeps again is what short slices are for. Nothing
privileged: any thread may shorten its own slice. Elsewhere (another system, an older
kernel, an unknown architecture) nothing is asked and the loop runs as before.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from typing import Final

# sched_setattr(2) and sched_getattr(2) by machine (glibc has no wrapper for either).
SYSCALLS: Final[dict[str, tuple[int, int]]] = {
    "x86_64": (314, 315),
    "aarch64": (274, 275),
    "riscv64": (274, 275),
    "armv7l": (380, 381),
    "armv6l": (380, 381),
    "i686": (351, 352),
}
SCHED_PROC: Final = "/proc/thread-self/sched"  # "se.slice : <ns>" on kernels that have it


class SchedAttr(ctypes.Structure):
    """`struct sched_attr` of sched_setattr(2)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64),
        ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32),
        ("sched_runtime", ctypes.c_uint64),  # the slice, in ns, of a normal thread
        ("sched_deadline", ctypes.c_uint64),
        ("sched_period", ctypes.c_uint64),
        ("sched_util_min", ctypes.c_uint32),
        ("sched_util_max", ctypes.c_uint32),
    ]


def ask_short_slice(seconds: float) -> str | None:
    """Ask for a slice of `seconds` for the calling thread (the kernel keeps it between
    0.1 and 100 ms); None when asked, else why not. Its policy and nice stay as they are."""
    numbers = SYSCALLS.get(platform.machine())
    if not sys.platform.startswith("linux") or numbers is None:
        return f"no custom time slices on {sys.platform}/{platform.machine()}"
    setattr_nr, getattr_nr = numbers
    libc = ctypes.CDLL(None, use_errno=True)
    attr = SchedAttr()
    if libc.syscall(getattr_nr, 0, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        return f"sched_getattr: {os.strerror(ctypes.get_errno())}"
    attr.size = ctypes.sizeof(attr)
    attr.sched_flags = 0
    attr.sched_runtime = round(seconds * 1e9)
    if libc.syscall(setattr_nr, 0, ctypes.byref(attr), 0) != 0:
        return f"sched_setattr: {os.strerror(ctypes.get_errno())}"
    return None


def thread_slice() -> float | None:
    """The calling thread's slice in seconds, as the kernel has it (None: not told)."""
    try:
        with open(SCHED_PROC) as sched:
            for line in sched:
                name, _, value = line.partition(":")
                if name.strip() == "se.slice":
                    return int(value) / 1e9
    except (OSError, ValueError):
        return None
    return None
