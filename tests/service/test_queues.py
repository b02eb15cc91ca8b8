"""Waiting on a queue and on work under way (or a deadline) at once (queues.py): the
work's end is seen though nothing is queued, and an item that arrives as it ends is
never lost."""

from __future__ import annotations

import asyncio

from table_service.service.queues import WakingQueue, next_or_done


async def test_the_work_ending_is_seen_though_nothing_is_queued() -> None:
    queue: WakingQueue[str] = WakingQueue()
    work: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiting = asyncio.create_task(next_or_done(queue, work))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    work.set_result(None)
    assert await waiting is None


async def test_an_item_queued_as_the_work_ends_is_never_lost() -> None:
    queue: WakingQueue[str] = WakingQueue()
    work: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiting = asyncio.create_task(next_or_done(queue, work))
    await asyncio.sleep(0.01)
    queue.put_nowait("an item")  # in the same turn as the work's end
    work.set_result(None)
    found = await waiting
    await asyncio.sleep(0.01)  # a cancelled get has wound up
    assert found == "an item" or (found is None and queue.get_nowait() == "an item")
    assert queue.empty()


async def test_a_queued_item_is_taken_at_once() -> None:
    queue: WakingQueue[str] = WakingQueue()
    queue.put_nowait("waiting")
    work: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    assert await next_or_done(queue, work) == "waiting"


async def test_with_no_work_the_wait_ends_at_its_deadline_or_the_next_item() -> None:
    queue: WakingQueue[str] = WakingQueue()
    assert await next_or_done(queue, None, timeout=0.05) is None
    waiting = asyncio.create_task(next_or_done(queue, None, timeout=5))
    await asyncio.sleep(0.01)
    queue.put_nowait("an item")
    assert await asyncio.wait_for(waiting, 1) == "an item"


async def test_a_wait_cancelled_leaves_nothing_behind() -> None:
    """The consumer's task cancelled mid-wait: no waiter stays on the queue, no callback
    on the work, and the next put is there for the next wait."""
    queue: WakingQueue[str] = WakingQueue()
    work: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    waiting = asyncio.create_task(next_or_done(queue, work, timeout=5))
    await asyncio.sleep(0.01)
    assert queue.waiter is not None
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    assert queue.waiter is None
    assert not work._callbacks  # type: ignore[attr-defined]  # none piles up
    queue.put_nowait("next")
    assert await next_or_done(queue, work) == "next"
