"""The collector kept to short walks (collector.py): each full collection's survivors are
frozen, freeing by reference count goes on, and a sweep finds the garbage cycles among the
frozen. `mjtable serve` runs it and its health says so."""

from __future__ import annotations

import asyncio
import gc
import uuid
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_service.service.collector import ShortCollections
from tests.service.kit import Server


class Node:
    """A weak-referable object that can be put in a cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def short_gc() -> Iterator[ShortCollections]:
    """Installed for one test; this process's objects thawed again after it."""
    short = ShortCollections(sweep_every=3600)
    try:
        yield short
    finally:
        short.remove()
        gc.unfreeze()


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_a_full_collections_survivors_are_frozen(short_gc: ShortCollections) -> None:
    short_gc.install()
    kept = [Node() for _ in range(1000)]
    before = gc.get_freeze_count()
    gc.collect()
    assert gc.get_freeze_count() >= before + len(kept)
    assert not any(gc.get_objects(generation) for generation in (1, 2))  # only the frozen
    assert short_gc.frozen().objects == before  # counted at the start (counting walks all)
    short_gc.sweep()
    assert short_gc.frozen().objects == gc.get_freeze_count()  # and at each sweep


def test_a_younger_collection_freezes_nothing(short_gc: ShortCollections) -> None:
    short_gc.install()
    before = gc.get_freeze_count()
    kept = [Node() for _ in range(100)]
    gc.collect(1)
    assert gc.get_freeze_count() == before
    assert kept  # alive through the collection


def test_a_frozen_object_is_still_freed_by_its_reference_count(
    short_gc: ShortCollections,
) -> None:
    node = Node()
    ref = weakref.ref(node)
    short_gc.install()  # `node` is frozen now
    del node
    assert ref() is None


def test_a_cycle_that_becomes_garbage_while_frozen_waits_for_the_sweep(
    short_gc: ShortCollections,
) -> None:
    holder = [Node(), Node()]
    holder[0].other, holder[1].other = holder[1], holder[0]
    ref = weakref.ref(holder[0])
    short_gc.install()  # the cycle is frozen, alive
    holder.clear()  # now garbage, but frozen
    gc.collect()
    assert ref() is not None  # the full collection did not walk it
    reclaimed = short_gc.sweep()
    assert ref() is None
    assert reclaimed >= 2  # the two nodes (and their dicts)
    frozen = short_gc.frozen()
    assert (frozen.sweeps, frozen.last_sweep_reclaimed) == (1, reclaimed)
    assert frozen.last_sweep_ms is not None and frozen.last_sweep_ms >= 0
    assert gc.get_freeze_count() > 0  # the sweep's survivors frozen again


def test_a_cycle_made_after_the_freeze_is_collected_as_ever(
    short_gc: ShortCollections,
) -> None:
    short_gc.install()
    ref = cycle()
    gc.collect()
    assert ref() is None


async def test_run_sweeps_on_its_period_and_uninstalls_when_cancelled() -> None:
    short = ShortCollections(sweep_every=0.05)
    task = asyncio.create_task(short.run())
    try:
        # each sweep collects the whole test process, seconds late in a full run on CI
        async with asyncio.timeout(60):
            while short.sweeps < 2:
                await asyncio.sleep(0.01)
        assert short._collected in gc.callbacks
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        gc.unfreeze()
    assert short._collected not in gc.callbacks
    assert short.frozen().sweeps >= 2


async def test_serve_keeps_its_objects_out_of_full_collections_and_sweeps(
    mqtt_url: str, store_url: str, tmp_path: Path
) -> None:
    base = f"gc-{uuid.uuid4().hex[:8]}"
    server = Server(mqtt_url, store_url, base, tmp_path, "--gc-sweep-every", "0.5")
    try:
        first = await server.start(poll=0.001)  # the first answer it gives
        assert first["collector"] is not None, "the API listened before the collector was set"
        async with asyncio.timeout(20):
            while True:
                collector = (await server.health())["collector"]
                assert collector is not None, "a health of `mjtable serve` without its collector"
                if collector["sweeps"] >= 1:
                    break
                await asyncio.sleep(0.1)
        assert collector["objects"] > 10_000  # the modules, the app: frozen from the start
        assert collector["last_sweep_reclaimed"] >= 0
    finally:
        server.stop()
