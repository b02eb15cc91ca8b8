"""A short time slice asked of the kernel for the event loop's thread.

Linux's scheduler (EEVDF, 6.6 and later) lets a running task finish its slice (1.4 ms by
default on a 2-core machine) before a task that wakes takes its core, whatever their
priorities: the loop's thread, woken by an event, waited behind the slices of whatever
ran (the bridges of a benchmark at nice 19, PostgreSQL, the broker), 3–5 ms at a time
at 500 events/s (`perf sched`). Since 6.12 a task may ask for a shorter slice
(`sched_setattr`'s `sched_runtime`, no privilege needed), and a woken task with a shorter
slice than the running one's takes the core at once (the kernel's PREEMPT_SHORT). It
pays for that by being preempted as soon too, which suits a loop that works in short
turns. Threads the loop's thread starts later (the writer's, the pool's) inherit it.

Elsewhere (another OS, an older kernel that ignores the field, a sandbox that refuses
the call) nothing changes and `ask` says so.
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from typing import Final

# sched_setattr's number on the architectures Linux runs this service on
SCHED_SETATTR: Final = {"x86_64": 314, "aarch64": 274, "armv7l": 380}
FAIR: Final = frozenset({os.SCHED_OTHER, os.SCHED_BATCH, os.SCHED_IDLE})  # slices apply
SCHED_FLAG_RESET_ON_FORK: Final = 0x01
SLICE_FIELD: Final = "se.slice"  # in /proc/thread-self/sched since the kernel honours it


class _SchedAttr(ctypes.Structure):
    """`struct sched_attr` as of SCHED_ATTR_SIZE_VER1 (56 bytes)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64),
        ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32),
        ("sched_runtime", ctypes.c_uint64),
        ("sched_deadline", ctypes.c_uint64),
        ("sched_period", ctypes.c_uint64),
        ("sched_util_min", ctypes.c_uint32),
        ("sched_util_max", ctypes.c_uint32),
    ]


def current_slice_us() -> int | None:
    """The calling thread's slice as the kernel reports it, None where it does not."""
    try:
        with open("/proc/thread-self/sched") as f:
            for line in f:
                if line.startswith(SLICE_FIELD):
                    return int(line.split(":")[1]) // 1000
    except (OSError, ValueError, IndexError):
        return None
    return None


def ask(slice_us: int) -> str:
    """Ask a slice of `slice_us` µs for the calling thread (its policy, nice and
    reset-on-fork kept; a real-time policy is not touched); what came of it, for the log."""
    if slice_us <= 0:
        return "the kernel's own slice (cpu_slice_us 0)"
    number = SCHED_SETATTR.get(platform.machine())
    if not sys.platform.startswith("linux") or number is None:
        return f"the kernel's own slice ({sys.platform} {platform.machine()}: no sched_setattr)"
    policy = os.sched_getscheduler(0)
    reset_on_fork = policy & os.SCHED_RESET_ON_FORK
    policy &= ~os.SCHED_RESET_ON_FORK
    if policy not in FAIR:  # a real-time policy an operator chose: left as it is
        return f"the kernel's own slice (scheduling policy {policy} is not a fair one)"
    attr = _SchedAttr(
        size=ctypes.sizeof(_SchedAttr),
        sched_policy=policy,  # kept, as are its nice and its reset-on-fork
        sched_flags=SCHED_FLAG_RESET_ON_FORK if reset_on_fork else 0,
        sched_nice=os.getpriority(os.PRIO_PROCESS, 0),  # PRIO_PROCESS 0: this thread
        sched_runtime=slice_us * 1000,
    )
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, 0, ctypes.byref(attr), 0) != 0:
        return f"the kernel's own slice (sched_setattr refused: {os.strerror(ctypes.get_errno())})"
    granted = current_slice_us()
    if granted is None:
        return "the kernel's own slice (this kernel has no slice to ask for)"
    return f"a slice of {granted} µs on the event loop's thread (asked {slice_us})"
