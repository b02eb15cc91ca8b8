"""The host side of the table link: handshake, in-order delivery, acks, heartbeats, reconnects.

Runs over pyserial-asyncio-fast on a device path or a `socket://` URL. An event is
acknowledged to the controller only after `EventStore.store` returned (it is then
durable), so nothing acknowledged is ever lost. Rules: docs/protocol.md §3.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Literal, Protocol

import serial  # type: ignore[import-untyped]
import serial_asyncio_fast

from firmware_bridge.counters import Counters
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Direction, Message, from_frame, to_frame
from firmware_bridge.protocol.errors import FrameError, PayloadError, VersionMismatch
from firmware_bridge.protocol.frame import (
    PROTOCOL_VERSION,
    SEQ_MOD,
    Frame,
    FrameDecoder,
    encode_frame,
    seq_diff,
)
from firmware_bridge.settings import redact_url

log = logging.getLogger(__name__)

LinkState = Literal["connecting", "handshaking", "up", "down", "version_mismatch"]


@dataclass(frozen=True, slots=True)
class LinkEvent:
    """One in-order event; `message` is None when the frame was intact but refused (`error`)."""

    boot_id: int
    seq: int
    ts: float
    frame_type: int
    payload: bytes
    message: Message | None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """What the link knows of the controller, published retained on …/bridge/link."""

    state: LinkState = "connecting"
    port: str = ""
    since: float = 0.0
    protocol_version: int | None = None
    firmware_version: str | None = None
    controller_table_id: int | None = None
    boot_id: int | None = None
    last_seq: int | None = None


class EventStore(Protocol):
    """Durable storage the link writes through before acknowledging."""

    def session(self) -> tuple[int, int] | None: ...
    def set_session(self, boot_id: int, last_seq: int) -> None: ...
    def store(self, events: Sequence[LinkEvent], boot_id: int, last_seq: int) -> None: ...

    def damage(self) -> str | None:
        """Why events this store acknowledged may be gone from it (a lost WAL), or None."""
        ...

    @property
    def durable(self) -> bool:
        """True if what it stored survives a power loss (not only a crash)."""
        ...


class LinkDown(RuntimeError):
    """A command was given while no session is up; it was not queued."""


def _new_future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass
class _Wire(asyncio.Protocol):
    on_data: Callable[[bytes], None]
    lost: asyncio.Future[None] = field(default_factory=_new_future)

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)


def _same(wire: _Wire) -> _Wire:
    return wire


class HostLink:
    """One table's link; `run()` keeps it up until cancelled, reopening the port as needed."""

    def __init__(
        self,
        url: str,
        store: EventStore,
        counters: Counters,
        *,
        baudrate: int = 115200,
        timing: Timing | None = None,
        reopen_min: float = 0.2,
        reopen_max: float = 5.0,
        reopen_after_down: float = 10.0,
        on_info: Callable[[LinkInfo], None] = lambda info: None,
        on_error: Callable[[str, str, bytes], None] = lambda reason, detail, raw: None,
        wall_clock: Callable[[], float] = time.time,
    ) -> None:
        self.url = url
        self.shown = redact_url(url)  # for logs and the published status
        self.store = store
        self.counters = counters
        self.baudrate = baudrate
        self.timing = timing or Timing()
        self.reopen_min, self.reopen_max = reopen_min, reopen_max
        self.reopen_after_down = reopen_after_down
        self.on_info, self.on_error = on_info, on_error
        self.wall_clock = wall_clock
        self.info = LinkInfo(port=self.shown, since=wall_clock())
        self._sender = Sender(1, self.timing)
        self._receiver = Receiver(1, self.timing)
        self._decoder = FrameDecoder()
        self._transport: asyncio.BaseTransport | None = None
        self._session = False
        self._peer_last: int | None = None
        self._known = store.session()
        self._last_seq = self._known[1] if self._known else 0
        self._last_rx = self._last_tx = self._last_sync = self._down_since = 0.0
        self._last_time_sync = 0.0
        self._started = time.monotonic()
        self._opened_once = False
        self._handshaken = False  # a session came up on the port as opened now

    @property
    def up(self) -> bool:
        return self._session

    def send(self, message: Message) -> None:
        """Queue a command for the controller; raises LinkDown when no session is up."""
        if message.DIRECTION is not Direction.COMMAND:
            raise ValueError(f"type: {message.KIND} is not a host→device command")
        if not self._session:
            raise LinkDown(f"link: {self.info.state}, command {message.KIND} not sent")
        self._sender.push(message)
        self.counters.commands_sent += 1
        self._flush(time.monotonic())

    def resync(self) -> None:
        """Ask the controller for a new handshake (SYNC)."""
        self._set_session(False, "handshaking")
        self._write(c.Sync(), time.monotonic())

    async def run(self) -> None:
        """Open, serve, and reopen for ever, with exponential backoff after every failure.

        A failure is a port that will not open, or one that closed or went quiet before
        a handshake (a TCP serial server that accepts and drops); only a session that
        came up resets the delay, so nothing can make the link spin.
        """
        delay = self.reopen_min
        while True:
            try:
                wire = await self._open()
            except (OSError, serial.SerialException) as exc:
                why = str(exc)
            else:
                self._handshaken = False
                try:
                    await self._serve(wire)
                finally:
                    if self._transport is not None:
                        self._transport.close()
                    self._transport = None
                    self._set_session(False, "connecting")
                if self._handshaken:
                    delay = self.reopen_min
                    continue  # a session was up: reopen at once
                why = "closed before a handshake" if wire.lost.done() else "no handshake"
            log.info("port %s: %s; reopening in %.2fs", self.shown, why, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.reopen_max)

    async def _open(self) -> _Wire:
        loop = asyncio.get_running_loop()
        wire = _Wire(self._on_data)
        transport, _ = await serial_asyncio_fast.create_serial_connection(
            loop, partial(_same, wire), self.url, baudrate=self.baudrate
        )
        if self._opened_once:
            self.counters.reconnects += 1
        self._opened_once = True
        self._transport = transport
        self._decoder = FrameDecoder()
        now = time.monotonic()
        self._last_rx = self._down_since = now
        self._set_session(False, "handshaking")
        self._write(b"", now)  # a bare delimiter flushes the controller's partial run
        self._write(c.Sync(), now)
        return wire

    async def _serve(self, wire: _Wire) -> None:
        tick = min(0.02, self.timing.rto_initial / 2)
        while not wire.lost.done():
            # asyncio.wait, not wait_for: 3.11's wait_for can swallow a cancellation
            await asyncio.wait({wire.lost}, timeout=tick)
            now = time.monotonic()
            self._flush(now)
            if self._session and now - self._last_rx > self.timing.silence:
                self.counters.link_downs += 1
                log.warning("link %s: silent %.1fs, down", self.shown, now - self._last_rx)
                self._set_session(False, "down")
                self._down_since = now
            if not self._session:
                if now - self._last_sync >= self.timing.sync_repeat:
                    self._write(c.Sync(), now)
                if now - self._down_since > self.reopen_after_down:
                    log.warning(
                        "link %s: no session for %.0fs, reopening",
                        self.shown,
                        now - self._down_since,
                    )
                    return
            if now - self._last_tx >= self.timing.heartbeat:
                self._write(c.Heartbeat(int((now - self._started) * 1000) % 2**32), now)
            if self._session and now - self._last_time_sync >= self.timing.time_sync:
                self._send_time_sync(now)

    # --- receiving --------------------------------------------------------------

    def _on_data(self, data: bytes) -> None:
        now = time.monotonic()
        batch: list[LinkEvent] = []
        ack_due = False
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self._on_bad(item, now)
                continue
            self.counters.frames_good += 1
            self._last_rx = now
            if item.type == c.Hello.TYPE:
                ack_due = self._commit(batch, ack_due, now)
                batch = []
                self._on_hello(item, now)
            elif 0x10 <= item.type <= 0x7F:
                ack_due |= self._on_sequenced(item, batch, now)
            elif self._session:
                self._on_link_frame(item, now)
        self._commit(batch, ack_due, now)
        self._flush(now)

    def _on_bad(self, error: FrameError, now: float) -> None:
        self.counters.bad(error.reason)
        log.info("link %s: bad frame: %s", self.shown, error)
        self.on_error(error.reason, str(error), b"")
        if isinstance(error, VersionMismatch) and error.frame_type == c.Hello.TYPE:
            self._set_session(False, "version_mismatch")
            welcome = c.Welcome(PROTOCOL_VERSION, c.HelloResult.VERSION_UNSUPPORTED, 1)
            self._write(welcome, now)
        elif self._session and self._receiver.nak_due(now):
            self._write(c.Nak(self._receiver.expected), now)

    def _on_sequenced(self, frame: Frame, batch: list[LinkEvent], now: float) -> bool:
        if not self._session:
            if now - self._last_sync > 0.2:
                self._write(c.Sync(), now)
            return False
        self._sender_ack(frame.ack, now)
        verdict = self._receiver.classify(frame.seq)
        if verdict is Verdict.DUPLICATE:
            self.counters.duplicates += 1
            return True
        if verdict is Verdict.GAP:
            self.counters.gaps += 1
            self._note_peer(frame.seq)
            if self._receiver.nak_due(now):
                self._write(c.Nak(self._receiver.expected), now)
            return False
        self._receiver.advance()
        self._last_seq += 1
        assert self.info.boot_id is not None
        batch.append(self._event(frame, self._last_seq, self.info.boot_id))
        return True

    def _event(self, frame: Frame, seq: int, boot_id: int) -> LinkEvent:
        message: Message | None = None
        error: str | None = None
        try:
            message = from_frame(frame)
            if message.DIRECTION is not Direction.EVENT:
                error = f"type 0x{frame.type:02X}: {message.KIND} is not a device→host event"
                message = None
        except PayloadError as exc:
            error = str(exc)
        if error is not None:
            self.counters.invalid_events += 1
            log.warning("link %s: event seq %d refused: %s", self.shown, seq, error)
            self.on_error("invalid_event", error, frame.payload)
        return LinkEvent(boot_id, seq, self.wall_clock(), frame.type, frame.payload, message, error)

    def _commit(self, batch: list[LinkEvent], ack_due: bool, now: float) -> bool:
        """Store the batch, then acknowledge; on a storage failure roll the receiver back."""
        if batch:
            assert self.info.boot_id is not None
            try:
                self.store.store(batch, self.info.boot_id, self._last_seq)
            except Exception:
                log.exception(
                    "link %s: storing %d events failed; not acknowledged", self.shown, len(batch)
                )
                self._last_seq -= len(batch)
                self._receiver.expected = (self._receiver.expected - len(batch)) % SEQ_MOD
                return False
            self.counters.events += len(batch)
            self._known = (self.info.boot_id, self._last_seq)
        if ack_due and self._session:
            self._write(c.Ack(), now)
        return False

    def _on_link_frame(self, frame: Frame, now: float) -> None:
        self._sender_ack(frame.ack, now)
        message = self._control_message(frame)
        if message is None:
            return
        if isinstance(message, c.Nak):
            for seq, m in self._sender.on_nak(message.expected, now):
                self._write(m, now, seq)
            self.counters.retransmits = self._sender.retransmits
        elif self._receiver.behind(frame.seq):
            self._note_peer(frame.seq)
            if self._receiver.nak_due(now):
                self._write(c.Nak(self._receiver.expected), now)  # the tail was lost

    def _note_peer(self, seq: int) -> None:
        """Remember the highest number the controller said it sent (for loss on reboot)."""
        if self._peer_last is None or seq_diff(seq, self._peer_last) > 0:
            self._peer_last = seq

    def _control_message(self, frame: Frame) -> Message | None:
        """A link-control frame's message, or None (counted and reported) if refused."""
        try:
            return from_frame(frame)
        except PayloadError as exc:
            self.counters.bad(exc.reason)
            self.on_error(exc.reason, str(exc), frame.payload)
            return None

    def _on_hello(self, frame: Frame, now: float) -> None:
        hello = self._control_message(frame)
        if hello is None:
            return
        assert isinstance(hello, c.Hello)
        known = self._known
        if known is not None and known[0] == hello.boot_id:
            last = known[1]
            skipped = seq_diff(hello.next_seq, (last + 1) % SEQ_MOD)
            if skipped > 0:
                self.counters.lost += skipped
                lost = f"{last + 1}..{last + skipped}"
                reason, detail = self._blame(f"boot {hello.boot_id}: events {lost}")
                log.error("link %s: %s", self.shown, detail)
                self.on_error(reason, detail, b"")
                last += skipped
        else:
            if known is not None:
                self.counters.reboots += 1
                detail = f"controller rebooted: boot {known[0]} → {hello.boot_id}"
                missing = 0
                if self._peer_last is not None:
                    missing = max(0, seq_diff(self._peer_last, self._receiver.last))
                if missing:
                    self.counters.lost += missing
                    detail += f"; {missing} events of boot {known[0]} were never received"
                log.warning("link %s: %s", self.shown, detail)
                self.on_error("reboot", detail, b"")
            last = hello.next_seq - 1
            if last > 0:
                self._unknown_history(hello.boot_id, last, known is None)
        self._peer_last = None
        self.store.set_session(hello.boot_id, last)
        self._known = (hello.boot_id, last)
        self._last_seq = last
        self._receiver.expected = (last + 1) % SEQ_MOD
        dropped = self._sender.reset(1)
        if dropped:
            self.counters.commands_dropped += len(dropped)
            self.on_error(
                "commands_dropped", f"{len(dropped)} commands dropped by a new handshake", b""
            )
        self.info = replace(
            self.info,
            protocol_version=hello.protocol_version,
            firmware_version=hello.firmware_version,
            controller_table_id=hello.table_id,
            boot_id=hello.boot_id,
        )
        self._write(c.Welcome(PROTOCOL_VERSION, c.HelloResult.ACCEPTED, 1), now)
        self._handshaken = True
        self._set_session(True, "up")
        self._send_time_sync(now)

    def _blame(self, events: str) -> tuple[str, str]:
        """(reason, detail) for events the controller skipped: whose loss it was.

        The controller moves past an event only once acknowledged; the host acknowledges
        only what it stored. So the loss is the outbox's when it knows it lost its tail
        (a deleted or damaged WAL), possibly its own when it is not power-safe.
        """
        damage = self.store.damage()
        if damage is not None:
            return "outbox_lost", (
                f"{events} were acknowledged to the controller and lost by the outbox: {damage}"
            )
        if not self.store.durable:
            return "lost", (
                f"{events} are missing: discarded by the controller, or acknowledged and "
                "lost by the outbox (outbox_sync=normal does not survive a power loss)"
            )
        return "lost", f"{events} lost by the controller (discarded before the host stored them)"

    def _unknown_history(self, boot_id: int, last: int, new_outbox: bool) -> None:
        """The controller had events acknowledged that this outbox never recorded."""
        events = f"boot {boot_id}: events 1..{last}"
        damage = self.store.damage()
        if damage is not None:
            self.counters.lost += last
            reason, detail = (
                "outbox_lost",
                (
                    f"{events} were acknowledged to the controller and are not in the outbox: "
                    f"{damage}"
                ),
            )
        elif new_outbox:
            reason, detail = (
                "unknown_history",
                (
                    f"{events} were acknowledged before this outbox knew the controller (a new, "
                    "replaced or emptied outbox, or another host): any of them not published "
                    "before are lost"
                ),
            )
        else:
            return  # a controller that restarted and sent before meeting this host
        log.error("link %s: %s", self.shown, detail)
        self.on_error(reason, detail, b"")

    def _send_time_sync(self, now: float) -> None:
        """The wall clock to the controller after each WELCOME and every hour (§7.4)."""
        self._last_time_sync = now
        self._sender.push(c.TimeSync(int(self.wall_clock() * 1000)))

    # --- sending ----------------------------------------------------------------

    def _sender_ack(self, ack: int, now: float) -> None:
        self._sender.on_ack(ack, now)

    def _flush(self, now: float) -> None:
        if self._session:
            for seq, m in self._sender.poll(now):
                self._write(m, now, seq)
            self.counters.retransmits = self._sender.retransmits

    def _write(self, message: Message | bytes, now: float, seq: int | None = None) -> None:
        if self._transport is None:
            return
        if isinstance(message, bytes):
            data = message + b"\x00"
        else:
            frame = to_frame(
                message, self._sender.last_sent if seq is None else seq, self._receiver.last
            )
            data = encode_frame(frame)
            if isinstance(message, c.Sync):
                self._last_sync = now
        assert isinstance(self._transport, asyncio.WriteTransport)
        self._transport.write(data)
        self._last_tx = now

    def _set_session(self, up: bool, state: LinkState) -> None:
        self._session = up
        if state != self.info.state:
            self.info = replace(
                self.info, state=state, since=self.wall_clock(), last_seq=self._last_seq
            )
            log.info("link %s: %s", self.shown, state)
            self.on_info(self.info)
