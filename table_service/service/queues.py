"""Waiting on a queue and on work under way (or a deadline) at once."""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

T = TypeVar("T")


class WakingQueue(asyncio.Queue[T]):
    """An asyncio queue its one consumer can wait on beside other things (`next_or_done`):
    a put wakes the future the consumer waits on, with no task made for a `get`. At the
    intake's pace a task and an `asyncio.wait` for each wait were a few percent of the
    event loop's time."""

    def _init(self, maxsize: int) -> None:
        super()._init(maxsize)
        self.waiter: asyncio.Future[None] | None = None

    def _put(self, item: T) -> None:
        super()._put(item)
        _wake(self.waiter)


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


async def next_or_done(
    queue: WakingQueue[T], work: asyncio.Future[Any] | None, timeout: float | None = None
) -> T | None:
    """The queue's next item, or None when `work` ends first (or `timeout` seconds pass):
    its end is seen at once though nothing more comes. A message that arrives as `work`
    ends stays queued. One consumer at a time."""
    if not queue.empty():
        return queue.get_nowait()
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()
    queue.waiter = waiter

    def wake(*_: object) -> None:
        _wake(waiter)

    if work is not None:
        work.add_done_callback(wake)
    timer = loop.call_later(timeout, wake) if timeout is not None else None
    try:
        await waiter
    finally:
        queue.waiter = None
        if work is not None:
            work.remove_done_callback(wake)
        if timer is not None:
            timer.cancel()
    return None if queue.empty() else queue.get_nowait()
