"""The HIL pytest plugin: the same tests against the simulator (default) or a real controller.

`--port /dev/ttyUSB0` (or any pyserial URL) puts a real table at the near end; tests
that need fault injection or ground truth are marked `simulator_only` and are
skipped there, with the reason. The loop under test is the real one: table →
serial link → bridge → MQTT broker → far-end consumer.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from firmware_bridge.bridge import Bridge
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait
from table_sim.broker import OwnedBroker
from table_sim.controller import Controller
from table_sim.faults import Faults
from table_sim.hand import HandResult
from table_sim.recorder import Received, Recorder, compare
from table_sim.soak import boot_id_for
from table_sim.table import SimulatedTable
from table_sim.transports import PtyTransport
from table_sim.truth import FarEnd, Judged
from table_sim.violations import Violations

Body = dict[str, Any]  # an event body as JSON

HARDWARE_HAND_TIMEOUT = 1800.0  # people play a real hand; give them half an hour
LINK_UP_TIMEOUT = 20.0
BROKEN = pytest.StashKey[str]()  # set once the table fails to come up: the rest skip


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hil", "hardware in the loop")
    group.addoption("--port", help="a real table controller (device path or pyserial URL)")
    group.addoption("--hil-mqtt", help="broker URL (default $MJTABLE_TEST_MQTT, else embedded)")
    group.addoption(
        "--hil-link-timeout", type=float, default=LINK_UP_TIMEOUT,
        help="seconds for the link to come up before the table counts as broken",
    )  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "simulator_only(reason): needs fault injection or ground truth"
    )
    config.addinivalue_line("markers", "seed(n): the simulated table's seed")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--port"):
        return
    for item in items:
        marker = item.get_closest_marker("simulator_only")
        if marker is not None:
            why = marker.args[0] if marker.args else "needs the simulator"
            item.add_marker(pytest.mark.skip(reason=f"on hardware: {why}"))


@pytest.fixture(scope="session")
def hil_broker(request: pytest.FixtureRequest) -> Iterator[str]:
    url = request.config.getoption("--hil-mqtt") or os.environ.get("MJTABLE_TEST_MQTT")
    if url:
        yield url
        return
    with tempfile.TemporaryDirectory() as tmp:
        broker = OwnedBroker(Path(tmp), embedded=True)
        broker.start()
        try:
            yield broker.url
        finally:
            broker.stop()


@dataclass
class Loop:
    """One table in the loop and the far end's view of it."""

    name: str
    recorder: Recorder
    bridge: Bridge
    sim: SimulatedTable | None
    far: FarEnd
    results: list[HandResult] = field(default_factory=list)
    base: str = "mjtable"  # the loop's base topic

    @property
    def received(self) -> Received:
        return self.recorder.tables.get(self.name, Received())

    def bodies(self) -> list[Body]:
        """Every event the far end holds, boot by boot, each boot in seq order."""
        out: list[Body] = []
        for arrivals in self.received.by_boot.values():
            out += [body for _, body in sorted(arrivals, key=lambda a: a[0])]
        return out

    def hands(self) -> list[list[Body]]:
        """The event bodies cut into hands at each shuffle."""
        hands: list[list[Body]] = []
        for body in self.bodies():
            if body["kind"] == "shuffle_started":
                hands.append([])
            if hands:
                hands[-1].append(body)
        return hands

    def judged(self) -> list[Judged]:
        """The hands the game mirror has closed (a 荒局 still open at the end is closed)."""
        self.far.finish()
        return self.far.judged.get(self.name, [])

    async def play_hand(self) -> HandResult | None:
        """Simulator: play one hand and wait until the far end holds all of it.
        Hardware: wait for the table to finish a hand (no ground truth: None)."""
        if self.sim is None:
            before = len(self.judged())
            async with asyncio.timeout(HARDWARE_HAND_TIMEOUT):
                while len(self.judged()) <= before:
                    await asyncio.sleep(0.5)
            return None
        result = await self.sim.play_hand()
        self.results.append(result)
        await self.delivered()
        return result

    async def delivered(self, timeout: float = 60.0) -> None:
        """Until the far end holds every event sent (asking replays for lost tails) and its
        mirror has been given them all (delivery waits on holes, so it can trail)."""
        assert self.sim is not None
        await self.sim.controller.wait_idle(timeout)
        async with asyncio.timeout(timeout):
            while self.received.count < self.sim.sent.count:
                if not await self.recorder.wait_for({self.name: self.sim.sent.count}, 3.0):
                    await self.recorder.request_replay(self.name)
        if not await self.far.caught_up({self.name: self.sim.sent.count}, timeout):
            raise TimeoutError(f"the far end's mirror trailed {self.name}'s events")

    def exactly_once(self) -> bool:
        assert self.sim is not None
        return compare(self.sim.sent, self.received).exact


@contextlib.asynccontextmanager
async def open_loop(
    url: str, workdir: Path, *, port: str | None = None, seed: int = 1,
    faults: Faults | None = None, name: str = "hil", violations: Violations | None = None,
) -> AsyncIterator[Loop]:  # fmt: skip
    """Start the far end, the table (or take the real port) and a bridge between them."""
    parts = urlsplit(url)
    base = f"hil-{uuid.uuid4().hex[:8]}"  # this loop's topics and sessions alone
    results: list[HandResult] = []
    far = FarEnd(lambda _, n: results[n] if 0 <= n < len(results) else None)
    recorder = Recorder(
        parts.hostname or "127.0.0.1", parts.port or 1883, base, f"{base}-far",
        on_event=far.apply,
    )  # fmt: skip
    tasks = [asyncio.create_task(recorder.run())]
    sim: SimulatedTable | None = None
    if port is None:
        transport = PtyTransport(workdir / f"{name}.tty")
        controller = Controller(
            transport, boot_id=boot_id_for(seed, 0), faults=(faults or Faults()).link, seed=seed
        )
        sim = SimulatedTable(controller, seed, faults=faults, violations=violations)
        await sim.start()
        port = transport.url
    settings = BridgeSettings(
        port=port, table=name, mqtt=url, outbox=workdir / f"{name}.db", outbox_sync="normal",
        mqtt_client_id=f"{base}-{name}", base_topic=base, mqtt_reconnect_min=0.1,
        mqtt_reconnect_max=1.0,
        reopen_max=1.0,
    )  # fmt: skip
    bridge = Bridge(settings)
    tasks.append(asyncio.create_task(bridge.run()))
    try:
        async with asyncio.timeout(15):
            await recorder.subscribed.wait()
        yield Loop(name, recorder, bridge, sim, far, results, base)
    finally:
        await cancel_and_wait(tasks)
        await recorder.forget()
        if sim is not None:
            await sim.stop()


@pytest.fixture
async def loop(request: pytest.FixtureRequest, hil_broker: str) -> AsyncIterator[Loop]:
    """The table under test in the whole loop (simulator unless --port names a real one)."""
    marker = request.node.get_closest_marker("seed")
    seed = int(marker.args[0]) if marker else 1
    port: Any = request.config.getoption("--port")
    name = "hil" + request.node.name.replace("_", "")[-20:].replace("[", "").replace("]", "")
    broken = request.config.stash.get(BROKEN, None)
    if broken:
        pytest.skip(f"the table is broken: {broken}")
    with tempfile.TemporaryDirectory() as tmp:
        async with open_loop(hil_broker, Path(tmp), port=port, seed=seed, name=name) as opened:
            limit = float(request.config.getoption("--hil-link-timeout"))
            try:
                async with asyncio.timeout(limit):
                    while opened.bridge.link.info.state != "up":
                        await asyncio.sleep(0.05)
            except TimeoutError:
                why = f"no link to {port or 'the simulator'} after {limit:g} s"
                request.config.stash[BROKEN] = why  # fail here once, skip the rest
                pytest.fail(why)
            yield opened
