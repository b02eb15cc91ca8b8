"""Stopping tasks for sure: cancel, and cancel again until they are done.

Python 3.11's asyncio.wait_for (used inside aiomqtt) can swallow a cancellation
when its inner future completes at the same moment; a single cancel() can then be
lost and an `await task` hang for ever.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any


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
