"""The host session and the device session back to back on a fake clock, every frame logged.

No port, no event loop, no wall clock: `Pair.run(until)` advances time in 1 ms steps,
carries each side's bytes to the other through a `Channel` that can drop frames, and
keeps every frame with the time it was sent, so a test reads the wire frame by frame.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from firmware_bridge.counters import Counters
from firmware_bridge.host_session import HostSession, LinkEvent, Outcome, Tag
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.errors import FrameError
from firmware_bridge.protocol.frame import Frame, FrameDecoder

STEP_MS = 1  # both ends are polled every millisecond
HOST, DEVICE = "host→dev", "dev→host"


@dataclass(frozen=True, slots=True)
class Seen:
    """One frame on the wire: when, which way, and the frame."""

    t: float
    way: str
    frame: Frame

    @property
    def type(self) -> int:
        return self.frame.type

    def message(self) -> Message:
        return c.from_frame(self.frame)


@dataclass
class MemoryStore:
    """An EventStore in memory; `fail` makes `store` raise as a full or locked outbox would."""

    known: tuple[int, int] | None = None
    events: list[LinkEvent] = field(default_factory=list)
    fail: bool = False
    damaged: str | None = None
    durable: bool = True

    def session(self) -> tuple[int, int] | None:
        return self.known

    def set_session(self, boot_id: int, last_seq: int) -> None:
        self.known = (boot_id, last_seq)

    def store(self, events: Sequence[LinkEvent], boot_id: int, last_seq: int) -> None:
        if self.fail:
            raise OSError("store: disk full")
        self.events.extend(events)
        self.known = (boot_id, last_seq)

    def damage(self) -> str | None:
        return self.damaged


Drop = Callable[[Seen], bool]


@dataclass
class Pair:
    """A host and a device session joined by a wire that drops what `drop` says."""

    timing: Timing = field(default_factory=Timing)
    boot_id: int = 0xB0
    controller_id: int | None = None
    table_id: int = 1
    queue_limit: int | None = None
    store: MemoryStore = field(default_factory=MemoryStore)
    ms: int = 0
    wire: list[Seen] = field(default_factory=list)
    drop: Drop = lambda seen: False
    errors: list[tuple[str, str]] = field(default_factory=list)
    outcomes: list[tuple[Tag, Outcome, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.counters = Counters()
        self.host = HostSession(
            self.store, self.counters, timing=self.timing, now=0.0, wall_clock=lambda: 1.8e9,
            controller_id=self.controller_id, name="wire",
            on_error=lambda reason, detail, raw: self.errors.append((reason, detail)),
            on_outcome=lambda tag, outcome, detail: self.outcomes.append((tag, outcome, detail)),
        )  # fmt: skip
        self.device = self.new_device(self.boot_id)
        self.host.opened(0.0)
        self._decoders = {HOST: FrameDecoder(), DEVICE: FrameDecoder()}
        self.bad: list[tuple[float, str, str]] = []  # runs that were not frames

    def new_device(self, boot_id: int) -> DeviceSession:
        """Power the board on (again): a reset is a new DeviceSession."""
        self.device = DeviceSession(
            boot_id, self.table_id, (1, 2, 3), self.timing, self.now, queue_limit=self.queue_limit
        )
        return self.device

    @property
    def now(self) -> float:
        return self.ms / 1000

    def run(self, seconds: float) -> None:
        """Advance the clock by `seconds`, polling both ends each millisecond."""
        end = self.ms + round(seconds * 1000)
        while self.ms < end:
            self.ms += STEP_MS
            self.exchange()

    def run_until(self, check: Callable[[], bool], limit: float = 10.0) -> None:
        end = self.ms + round(limit * 1000)
        while not check():
            assert self.ms < end, f"not reached within {limit} s"
            self.ms += STEP_MS
            self.exchange()

    def exchange(self) -> None:
        now = self.now
        self._carry(self.host.poll(now), HOST)
        self._carry(self.device.poll(now), DEVICE)

    def inject(self, data: bytes, way: str) -> None:
        """Raw bytes onto the wire (a forged, echoed or broken frame), logged like the rest."""
        self._carry(data, way, never_drop=True)

    def _carry(self, data: bytes, way: str, never_drop: bool = False) -> None:
        if not data:
            return
        now = self.now
        keep = bytearray()
        for run in data.split(b"\x00")[:-1] if data.endswith(b"\x00") else data.split(b"\x00"):
            raw = run + b"\x00"
            for item in self._decoders[way].feed(raw):
                if isinstance(item, FrameError):
                    self.bad.append((now, way, item.reason))
                    keep += raw
                    continue
                seen = Seen(now, way, item)
                self.wire.append(seen)
                if never_drop or not self.drop(seen):
                    keep += raw
            if not run:
                keep += raw  # a bare delimiter
        if keep:
            if way == HOST:
                self.device.receive(bytes(keep), now)
            else:
                self.host.receive(bytes(keep), now)

    # --- reading the wire ---------------------------------------------------------

    def frames(self, way: str, kind: type[Message] | None = None, since: float = 0.0) -> list[Seen]:
        return [
            s
            for s in self.wire
            if s.way == way and s.t >= since and (kind is None or s.type == kind.TYPE)
        ]

    def events_sent(self, since: float = 0.0) -> list[Seen]:
        """Event frames the device put on the wire (first sendings and resends)."""
        return [s for s in self.frames(DEVICE, since=since) if 0x10 <= s.type <= 0x3F]

    def commands_sent(self, since: float = 0.0) -> list[Seen]:
        return [s for s in self.frames(HOST, since=since) if 0x40 <= s.type <= 0x7F]

    def handshake(self) -> None:
        self.run_until(lambda: self.host.up and self.device.welcomed, 2.0)
        self.run(0.02)  # the TIME_SYNC after WELCOME delivered and acknowledged

    def hold_one_event(self, message: Message) -> None:
        """Up, then `message` sent as event 1 and lost on the wire: outstanding, unacked."""
        self.handshake()
        self.drop = is_event
        self.device.emit(message)
        self.run(0.005)
        assert [s for s, _ in self.device.sender.outstanding] == [1]

    def hold_one_command(self, message: Message, tag: Tag) -> Seen:
        """Up, then `message` sent and lost on the wire (every sending of its type): the
        frame that went out, outstanding on the host."""
        self.handshake()
        self.drop = lambda s: s.way == HOST and s.type == message.TYPE
        self.host.send(message, self.now, tag=tag)
        self.run(0.005)
        [sent] = [s for s in self.commands_sent() if s.type == message.TYPE]
        return sent


def is_event(s: Seen) -> bool:
    """An event frame on its way from the device."""
    return s.way == DEVICE and 0x10 <= s.type <= 0x3F


def times(seen: list[Seen]) -> list[float]:
    return [s.t for s in seen]


def gaps_ms(ts: list[float]) -> list[int]:
    """Intervals between consecutive times, in whole milliseconds."""
    return [round((b - a) * 1000) for a, b in itertools.pairwise(ts)]
