"""A bridge link and a pty controller wired together, for the link tests."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.counters import Counters
from firmware_bridge.event_store import OutboxEventStore
from firmware_bridge.link import HostLink, LinkInfo
from firmware_bridge.messages import Event, Topics
from firmware_bridge.outbox import Outbox
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.stopping import cancel_and_wait
from table_sim.controller import PtyController

TABLE = "t1"


@dataclass
class LinkRig:
    """One host link over a real pty, storing into a real SQLite outbox."""

    port: Path | str
    db: Path
    timing: Timing = field(default_factory=Timing)
    counters: Counters = field(default_factory=Counters)
    infos: list[LinkInfo] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    link: HostLink | None = None
    outbox: Outbox | None = None
    task: asyncio.Task[None] | None = None

    async def start(self) -> HostLink:
        self.outbox = Outbox(self.db, synchronous="normal")
        store = OutboxEventStore(self.outbox, Topics("mjtable", TABLE), TABLE, lambda: None)
        self.link = HostLink(
            str(self.port),
            store,
            self.counters,
            timing=self.timing,
            reopen_min=0.05,
            reopen_max=0.2,
            on_info=self.infos.append,
            on_error=lambda reason, detail, raw: self.errors.append((reason, detail)),
        )
        self.task = asyncio.create_task(self.link.run())
        return self.link

    async def stop(self) -> None:
        if self.task is not None:
            await cancel_and_wait([self.task])
        if self.outbox is not None:
            self.outbox.close()
        self.task = self.link = self.outbox = None

    def events(self) -> list[Event]:
        assert self.outbox is not None
        return [Event.model_validate_json(p) for _, _, p in self.outbox.peek(1_000_000)]

    async def wait_state(self, state: str, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while self.link is None or self.link.info.state != state:
                await asyncio.sleep(0.005)


@contextlib.asynccontextmanager
async def rig(
    tmp_path: Path, *, timing: Timing | None = None, noise: float = 0.0, boot_id: int = 0x1000
) -> AsyncIterator[tuple[LinkRig, PtyController]]:
    timing = timing or Timing()
    port = tmp_path / "ttyTABLE"
    device = PtyController(port, boot_id, noise=noise, seed=7, timing=timing)
    await device.start()
    host = LinkRig(port, tmp_path / "outbox.db", timing)
    await host.start()
    try:
        yield host, device
    finally:
        await host.stop()
        await device.stop()


def sample_events() -> list[Message]:
    """At least one of every device→host event kind, in a plausible order."""
    return [
        c.ShuffleStarted(),
        c.ShuffleFinished(),
        c.WallBuilt(18, 18, 18, 18),
        c.DiceRolled(c.DiceRoll.DEAL, 3, 5, 6),
        c.TileDrawn(0, 37, c.End.FRONT),
        c.FlowerRevealed(0, 140),
        c.TileDrawn(0, 5, c.End.BACK),
        c.TileDiscarded(0, 108),
        c.SeatButton(1, c.Button.PONG),
        c.MeldExposed(1, c.MeldKind.PONG, 0, (108, 109, 110)),
        c.MeldExposed(2, c.MeldKind.KONG_CONCEALED, 0xFF, (0, 1, 2, 3)),
        c.TilesLeft(71),
        c.Fault(c.FaultCode.SENSOR, 3, 1),
        c.State(c.Phase.PLAYING, 71, 2, 0),
        c.TilesShown(2, (53, 54)),
        c.SeatButton(3, c.Button.WIN),
        c.HandRevealed(
            3, (4, 8, 12, 40, 44, 48, 72, 76, 80, 112, 113, 114, 116, 117, 120, 121, 122)
        ),
    ]


# The JSON bodies the bridge must publish for sample_events(), written out by hand (an
# oracle independent of the code under test: names as docs/events.md gives them).
SAMPLE_BODIES: list[dict[str, object]] = [
    {"kind": "shuffle_started"},
    {"kind": "shuffle_finished"},
    {"kind": "wall_built", "stacks_0": 18, "stacks_1": 18, "stacks_2": 18, "stacks_3": 18},
    {"kind": "dice_rolled", "roll": "deal", "die_1": 3, "die_2": 5, "die_3": 6},
    {"kind": "tile_drawn", "seat": 0, "tile": 37, "end": "front"},
    {"kind": "flower_revealed", "seat": 0, "tile": 140},
    {"kind": "tile_drawn", "seat": 0, "tile": 5, "end": "back"},
    {"kind": "tile_discarded", "seat": 0, "tile": 108},
    {"kind": "seat_button", "seat": 1, "button": "pong"},
    {"kind": "meld_exposed", "seat": 1, "meld": "pong", "from_seat": 0, "tiles": [108, 109, 110]},
    {"kind": "meld_exposed", "seat": 2, "meld": "kong_concealed", "from_seat": 255,
     "tiles": [0, 1, 2, 3]},
    {"kind": "tiles_left", "count": 71},
    {"kind": "fault", "code": "sensor", "unit": 3, "active": 1},
    {"kind": "state", "phase": "playing", "tiles_left": 71, "turn": 2, "dealer": 0},
    {"kind": "tiles_shown", "seat": 2, "tiles": [53, 54]},
    {"kind": "seat_button", "seat": 3, "button": "win"},
    {"kind": "hand_revealed", "seat": 3,
     "tiles": [4, 8, 12, 40, 44, 48, 72, 76, 80, 112, 113, 114, 116, 117, 120, 121, 122]},
]  # fmt: skip


def numbered(n: int) -> list[Message]:
    """n distinct events: a discard whose (seat, tile) encodes its index."""
    return [c.TileDiscarded(i % 4, (i // 4) % 144) for i in range(n)]


def numbered_bodies(n: int) -> list[dict[str, object]]:
    """The bodies of numbered(n), written out."""
    return [{"kind": "tile_discarded", "seat": i % 4, "tile": (i // 4) % 144} for i in range(n)]
