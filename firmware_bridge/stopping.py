"""Stopping tasks for sure: cancel, and cancel again until they are done.

Python 3.11's asyncio.wait_for (used inside aiomqtt) can swallow a cancellation
when its inner future completes at the same moment; a single cancel() can then be
lost and an `await task` hang for ever.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any]], timeout: float = 10.0) -> None:
    """Cancel `tasks` and wait until all are done, re-cancelling any that ignored it."""
    tasks = list(tasks)
    pending = {t for t in tasks if not t.done()}
    deadline = time.monotonic() + timeout
    while pending and time.monotonic() < deadline:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.1)
    for task in tasks:
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" noise


async def last_words(work: Coroutine[Any, Any, Any], timeout: float = 2.0) -> None:
    """Run `work` (a clean stop's last message) to its end, though the task running this
    is cancelled again meanwhile (`cancel_and_wait` re-cancels every 0.1 s); give up after
    `timeout`. Call it where a cancellation is already on its way out (a `finally`)."""
    job = asyncio.ensure_future(work)
    deadline = time.monotonic() + timeout
    while not job.done():
        left = deadline - time.monotonic()
        if left <= 0:
            job.cancel()
            break
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait({job}, timeout=left)
    with contextlib.suppress(asyncio.CancelledError, asyncio.InvalidStateError):
        job.exception()  # retrieved: the caller already stops, it has no use for it


def stopping() -> bool:
    """Whether the current task is being cancelled (a clean stop, not a lost connection)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


async def interruptible(work: Coroutine[Any, Any, T]) -> T:
    """Run `work` until it ends or a Ctrl-C (SIGINT) comes; then cancel it for sure (again
    until it is done, for a cancel swallowed as above must not leave a command running)
    and raise KeyboardInterrupt. asyncio.run's own SIGINT handling cancels only once."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    interrupted = asyncio.Event()
    loop.add_signal_handler(signal.SIGINT, interrupted.set)
    waiter = asyncio.ensure_future(interrupted.wait())
    try:
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await cancel_and_wait([task])
            raise KeyboardInterrupt
        return task.result()
    finally:
        waiter.cancel()
        loop.remove_signal_handler(signal.SIGINT)
