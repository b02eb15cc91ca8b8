"""Waiting on a queue and on work under way (or a deadline) at once."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

T = TypeVar("T")


async def next_or_done(
    queue: asyncio.Queue[T], work: asyncio.Future[Any] | None, timeout: float | None = None
) -> T | None:
    """The queue's next item, or None when `work` ends first (or `timeout` seconds pass):
    its end is seen at once though nothing more comes. A message that arrives as `work`
    ends stays queued."""
    if not queue.empty():
        return queue.get_nowait()
    getter = asyncio.ensure_future(queue.get())
    waited: set[asyncio.Future[Any]] = {getter} if work is None else {getter, work}
    try:
        await asyncio.wait(waited, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if not getter.done():
            getter.cancel()  # a cancelled get leaves its item in the queue
    return getter.result() if getter.done() else None
