from __future__ import annotations

import asyncio
import bisect
import gc
import json
import logging
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from bench.service.config import MAX_BEHIND, PREROLL_RATE
from table_sim.table import PACE

# --- the load: simulated tables through real bridges, in a child process ----------------


def _play_game(args: tuple[int, int]) -> tuple[list[Any], int]:
    """One table's game, played beforehand: its events, and the first hand's length."""
    from table_sim.session import TableSim

    seed, hands = args
    messages: list[Any] = []
    sim = TableSim(seed, messages.append)
    for _ in sim.hands(hands):
        pass
    starts = [i for i, m in enumerate(messages) if m.KIND == "shuffle_started"]
    first_hand = starts[1] if len(starts) > 1 else len(messages)
    return messages, first_hand


class Clock:
    """The ramp's virtual time: it runs at the step's speed; PACE is spent in it."""

    def __init__(self, steps: list[tuple[float, float, float]]) -> None:
        self.steps = steps  # (start, end, speed), monotonic, contiguous
        self.at_start = [0.0]
        for start, end, speed in steps:
            self.at_start.append(self.at_start[-1] + (end - start) * speed)

    @property
    def end(self) -> float:
        return self.at_start[-1]

    def virtual(self, t: float) -> float:
        for i, (start, end, speed) in enumerate(self.steps):
            if t < end:
                return self.at_start[i] + max(0.0, t - start) * speed
        return self.end

    def real(self, v: float) -> float | None:
        """When virtual time `v` comes; None after the ramp."""
        i = bisect.bisect_right(self.at_start, v) - 1
        if i >= len(self.steps):
            return None
        start, _, speed = self.steps[max(i, 0)]
        return start + (v - self.at_start[max(i, 0)]) / speed


def _say(kind: str, **data: Any) -> None:
    print(json.dumps({"type": kind, **data}, separators=(",", ":")), flush=True)


async def load_main(cfg: dict[str, Any]) -> None:
    """The child: build the tables and bridges, pre-roll, run the schedule it is sent."""
    from concurrent.futures import ProcessPoolExecutor

    from firmware_bridge.bridge import Bridge
    from firmware_bridge.settings import BridgeSettings
    from firmware_bridge.stopping import cancel_and_wait
    from table_sim.controller import Controller
    from table_sim.soak import boot_id_for, ensure_open_files
    from table_sim.transports import PtyTransport

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    logging.getLogger("firmware_bridge").setLevel(logging.WARNING)
    if cfg.get("nice"):
        os.nice(cfg["nice"])
    indices: list[int] = cfg["tables"]
    ensure_open_files(len(indices))
    began = time.monotonic()
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        games = await asyncio.gather(
            *(
                loop.run_in_executor(pool, _play_game, (cfg["seed"] + t, cfg["hands"]))
                for t in indices
            )
        )
    gc.collect()
    gc.freeze()  # the games only shrink from here: keep full collections off them
    paced = sum(PACE.get(type(m), 0.5) for messages, _ in games for m in messages)
    per_table_at_1 = sum(len(messages) for messages, _ in games) / paced
    workdir = Path(cfg["workdir"])
    controllers: list[Controller] = []
    bridges: list[Bridge] = []
    tasks: list[asyncio.Task[None]] = []
    for t in indices:
        name = f"t{t + 1:02d}"
        transport = PtyTransport(workdir / f"{name}.tty")
        controller = Controller(
            transport, table_id=t + 1, boot_id=boot_id_for(cfg["seed"], t), seed=cfg["seed"] + t
        )
        await controller.start()
        settings = BridgeSettings(
            port=transport.url, table=name, mqtt=cfg["mqtt"], outbox=workdir / f"{name}.db",
            outbox_sync=cfg["outbox_sync"], mqtt_client_id=f"{cfg['base']}-{name}",
            base_topic=cfg["base"], log_level="WARNING",
        )  # fmt: skip
        bridge = Bridge(settings)
        tasks.append(asyncio.create_task(bridge.run()))
        controllers.append(controller)
        bridges.append(bridge)
    await asyncio.gather(*(c.wait_welcomed(60) for c in controllers))
    _say(
        "ready",
        tables=len(indices),
        events=sum(len(m) for m, _ in games),
        per_table_at_speed_1=per_table_at_1,
        seconds=round(time.monotonic() - began, 2),
    )
    rng = random.Random(cfg["seed"] * 7919 + indices[0])
    sent = 0
    command = json.loads(await asyncio.to_thread(sys.stdin.readline))  # {"do": "preroll"}
    assert command["do"] == "preroll"
    starts = [rng.randrange(1, max(2, first_hand)) for _, first_hand in games]
    # the tables in turn, each table's share spread over the same span, PREROLL_RATE in
    # all: a burst at full speed would overflow a broker's queue for the service
    # (Mosquitto's default max_queued_messages is 1000)
    turns = sorted((i / k, t) for t, k in enumerate(starts) for i in range(k))
    began = time.monotonic()
    cursor = [0] * len(starts)
    for n, (_, t) in enumerate(turns):
        controller, messages = controllers[t], games[t][0]
        await controller.wait_room()
        controller.emit(messages[cursor[t]])
        cursor[t] += 1
        sent += 1
        if n % 10 == 9:
            await asyncio.sleep(max(0.0, began + (n + 1) / PREROLL_RATE - time.monotonic()))
    await asyncio.gather(*(c.wait_idle(120) for c in controllers))
    _say("prerolled", sent=sent)

    schedule = json.loads(await asyncio.to_thread(sys.stdin.readline))
    clock = Clock([tuple(s) for s in schedule["steps"]])
    behind = exhausted = 0

    async def report() -> None:
        while True:
            _say("sent", t=time.monotonic(), n=sent)
            await asyncio.sleep(0.1)

    async def play(controller: Controller, messages: list[Any], i: int) -> None:
        nonlocal sent, behind, exhausted
        v = rng.random() * PACE.get(type(messages[i - 1]), 0.5)  # mid-wait, at a random point
        while i < len(messages):
            at = clock.real(v)
            if at is None:
                return
            now = time.monotonic()
            if at > now:
                await asyncio.sleep(at - now)
            elif now - at > MAX_BEHIND:
                behind += 1
                v = clock.virtual(now)
            await controller.wait_room()
            controller.emit(messages[i])
            sent += 1
            v += PACE.get(type(messages[i]), 0.5)
            i += 1
        exhausted += 1

    reporter = asyncio.create_task(report())
    await asyncio.gather(
        *(
            play(c, messages, k)
            for c, (messages, _), k in zip(controllers, games, starts, strict=True)
        )
    )
    idle = True
    try:
        await asyncio.gather(*(c.wait_idle(60) for c in controllers))
    except TimeoutError:
        idle = False
    await cancel_and_wait([reporter])
    _say("sent", t=time.monotonic(), n=sent)
    totals: dict[str, int] = {}
    for bridge in bridges:
        for key, value in bridge.counters.snapshot().items():
            if isinstance(value, int) and not isinstance(value, bool):
                totals[key] = totals.get(key, 0) + value
    _say("done", sent=sent, behind=behind, exhausted=exhausted, idle=idle, bridges=totals)
    await asyncio.to_thread(sys.stdin.readline)  # {"do": "exit"}: the service has drained
    await cancel_and_wait(tasks)
    for controller in controllers:
        await controller.stop()
