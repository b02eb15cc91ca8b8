"""The bridge's side of the link, sans I/O: handshake, store-then-acknowledge, command outcomes.

`HostSession` adds the host's handshake (docs/protocol.md §3.8) to the rules both ends
share (`LinkSession`). It never reads a clock or touches the port: `HostLink` passes the
time in and writes what `poll` returns. The event store and the report callbacks are
passed in; an event is acknowledged only once `EventStore.store` returned.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from firmware_bridge.counters import Counters
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Direction, Message
from firmware_bridge.protocol.errors import FrameError, VersionMismatch
from firmware_bridge.protocol.frame import PROTOCOL_VERSION, SEQ_MOD, Frame, seq_diff
from firmware_bridge.protocol.session import BOTH_WAYS, LinkSession

log = logging.getLogger(__name__)

LinkState = Literal["connecting", "handshaking", "up", "down", "version_mismatch", "wrong_table"]
Outcome = Literal["done", "refused", "unknown", "error"]
Tag = Hashable  # what the caller of `send` gets back with the command's outcome
SYNC_ON_STRAY = 0.2  # a sequenced frame outside a session draws a SYNC, at most this often


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


def _ignore_outcome(tag: Tag, outcome: Outcome, detail: str) -> None:
    return None


class HostSession(LinkSession):
    """The host's end for one table; it lives as long as the bridge process.

    Command numbers start at 1 with it and survive every handshake (§3.2); the event
    position (boot_id, last seq) comes from and goes to the store.
    """

    ACCEPTS = BOTH_WAYS | {c.Hello}
    RECEIVES = Direction.EVENT

    def __init__(
        self,
        store: EventStore,
        counters: Counters,
        *,
        timing: Timing | None = None,
        now: float = 0.0,
        wall_clock: Callable[[], float],
        controller_id: int | None = None,
        name: str = "",
        on_info: Callable[[LinkInfo], None] = lambda info: None,
        on_error: Callable[[str, str, bytes], None] = lambda reason, detail, raw: None,
        on_outcome: Callable[[Tag, Outcome, str], None] = _ignore_outcome,
    ) -> None:
        super().__init__(timing, now)
        self.store = store
        self.counters = counters
        self.wall_clock = wall_clock
        self.controller_id = controller_id
        self.name = name  # the port, for logs
        self.on_info, self.on_error, self.on_outcome = on_info, on_error, on_outcome
        self.info = LinkInfo(port=name, since=wall_clock())
        self._session = False
        self._open = False
        self._known = store.session()
        self._last_seq = self._known[1] if self._known else 0
        self._peer_last: int | None = None
        self._batch: list[LinkEvent] = []
        self._last_sync = float("-inf")
        self._last_time_sync = float("-inf")
        self._down_since = now
        self._handshaken = False
        # command tags: waiting ones in the sender's order, sent ones by number
        self._tags: deque[Tag | None] = deque()
        self._tag_of: dict[int, Tag | None] = {}
        self._acked: list[tuple[int, Tag | None]] = []  # outcome due once the batch is stored
        self._refusals: dict[int, str] = {}  # command seq → reason, from COMMAND_REFUSED

    # --- the adapter's calls -------------------------------------------------------

    @property
    def up(self) -> bool:
        return self._session

    @property
    def handshaken(self) -> bool:
        """A session came up since the port was (re)opened."""
        return self._handshaken

    def opened(self, now: float) -> None:
        """The port was (re)opened: flush the controller's partial run, then SYNC (§3.8)."""
        self._open = True
        self._handshaken = False
        self._decoder = type(self._decoder)()
        self._last_rx = self._down_since = now
        self._set_session(False, "handshaking")
        self._out += b"\x00"
        self._send(c.Sync(), self.sender.last_sent, now)

    def closed(self) -> None:
        """The port closed: nothing is written until `opened` again; commands stay queued."""
        self._open = False
        self._out.clear()
        self._set_session(False, "connecting")

    def no_session_for(self, now: float) -> float:
        """How long there has been no session (0 while one is up)."""
        return 0.0 if self._session else now - self._down_since

    def send(self, message: Message, now: float, tag: Tag | None = None) -> None:
        """Queue a command; raises LinkDown when no session is up (it is then not queued)."""
        if message.DIRECTION is not Direction.COMMAND:
            raise ValueError(f"type: {message.KIND} is not a host→device command")
        if not self._session:
            raise LinkDown(f"link: {self.info.state}, command {message.KIND} not sent")
        self._push(message, tag)
        self.counters.commands_sent += 1

    def resync(self, now: float) -> None:
        """Ask the controller for a new handshake (SYNC)."""
        self._set_session(False, "handshaking")
        self._send(c.Sync(), self.sender.last_sent, now)

    # --- receiving ----------------------------------------------------------------

    def _count(self, reason: str) -> None:
        if reason == "duplicate":
            self.counters.duplicates += 1
        elif reason == "gap":
            self.counters.gaps += 1
        else:
            self.counters.bad(reason)

    def _on_frame(self, frame: Frame, now: float) -> None:
        self.counters.frames_good += 1
        super()._on_frame(frame, now)

    def _on_bad(self, error: FrameError, now: float) -> None:
        log.info("link %s: bad frame: %s", self.name, error)
        self.on_error(error.reason, str(error), b"")
        if isinstance(error, VersionMismatch) and error.frame_type == c.Hello.TYPE:
            self._count(error.reason)
            self._refuse_version(now)
        else:
            super()._on_bad(error, now)

    def _refused(self, frame: Frame, reason: str, detail: str, now: float) -> None:
        super()._refused(frame, reason, detail, now)
        where = f"type 0x{frame.type:02X}: "
        self.on_error(reason, detail if detail.startswith(where) else where + detail, frame.payload)

    def _outside_session(self, frame: Frame, now: float) -> None:
        if now - self._last_sync > SYNC_ON_STRAY:
            self._send(c.Sync(), self.sender.last_sent, now)

    def _peer_sent(self, seq: int) -> None:
        """Remember the highest number the controller said it sent (for loss on reboot)."""
        if self._peer_last is None or seq_diff(seq, self._peer_last) > 0:
            self._peer_last = seq

    def _deliver(
        self, frame: Frame, message: Message | None, error: str | None, now: float
    ) -> None:
        self._last_seq += 1
        if message is not None and message.DIRECTION is not Direction.EVENT:
            error = f"type 0x{frame.type:02X}: {message.KIND} is not a device→host event"
            message = None
        if error is not None:
            self.counters.invalid_events += 1
            log.warning("link %s: event seq %d refused: %s", self.name, self._last_seq, error)
            self.on_error("invalid_event", error, frame.payload)
        elif isinstance(message, c.CommandRefused):
            self._refusals[message.command_seq] = message.reason.name.lower()
        assert self.info.boot_id is not None
        self._batch.append(
            LinkEvent(
                boot_id=self.info.boot_id,
                seq=self._last_seq,
                ts=self.wall_clock(),
                frame_type=frame.type,
                payload=frame.payload,
                message=message,
                error=error,
            )
        )

    def _ack_value(self) -> int:
        """Only what is stored is acknowledged (§3.3): the batch still in hand is not."""
        return (self.receiver.expected - 1 - len(self._batch)) % SEQ_MOD

    def _after_receive(self, now: float) -> None:
        self._commit()
        self._resolve()

    def _commit(self) -> bool:
        """Store the batch; on a storage failure roll the receiver back (nothing acknowledged)."""
        batch, self._batch = self._batch, []
        if not batch:
            return True
        assert self.info.boot_id is not None
        try:
            self.store.store(batch, self.info.boot_id, self._last_seq)
        except Exception:
            log.exception(
                "link %s: storing %d events failed; not acknowledged", self.name, len(batch)
            )
            self._last_seq -= len(batch)
            self.receiver.expected = (self.receiver.expected - len(batch)) % SEQ_MOD
            self._ack_due = False
            for event in batch:
                if isinstance(event.message, c.CommandRefused):
                    self._refusals.pop(event.message.command_seq, None)
            return False
        self.counters.events += len(batch)
        self._known = (self.info.boot_id, self._last_seq)
        return True

    def _released(self, released: list[tuple[int, Message]], now: float) -> None:
        for seq, _ in released:
            self._acked.append((seq, self._tag_of.pop(seq, None)))

    def _resolve(self) -> None:
        """Outcomes of the commands acknowledged in this receive: refused if a COMMAND_REFUSED
        in it names them, else done (§3.10)."""
        for seq, tag in self._acked:
            reason = self._refusals.pop(seq, None)
            if tag is not None:
                if reason is None:
                    self.on_outcome(tag, "done", "")
                else:
                    self.on_outcome(tag, "refused", reason)
        self._acked.clear()
        for seq, reason in self._refusals.items():  # a refusal after its command's `done`
            self.on_error("command_refused", f"command {seq} was refused ({reason})", b"")
        self._refusals.clear()

    def _on_handshake(self, frame: Frame, message: Message, now: float) -> None:
        assert isinstance(message, c.Hello)
        self._commit()  # what came before the HELLO is stored under the old session
        self._on_hello(frame, message, now)

    def _on_hello(self, frame: Frame, hello: c.Hello, now: float) -> None:
        self.info = replace(
            self.info,
            protocol_version=hello.protocol_version,
            firmware_version=hello.firmware_version,
            controller_table_id=hello.table_id,
        )
        if hello.protocol_version != PROTOCOL_VERSION:
            self._refuse_version(now)
            return
        if self.controller_id is not None and hello.table_id != self.controller_id:
            if self.info.state != "wrong_table":
                detail = (
                    f"HELLO from controller table_id {hello.table_id}, this bridge is "
                    f"--controller-id {self.controller_id}: no WELCOME"
                )
                log.error("link %s: %s", self.name, detail)
                self.on_error("wrong_table", detail, frame.payload)
            self._set_session(False, "wrong_table")
            return
        known = self._known
        if known is not None and known[0] == hello.boot_id:
            last = self._same_boot(hello, known[1])
            self._apply_ack(frame.ack, now)  # §3.3: those ran; every later one did not
        else:
            last = self._new_boot(hello, known)
        self._peer_last = None
        self.store.set_session(hello.boot_id, last)
        self._known = (hello.boot_id, last)
        self._last_seq = last
        self.receiver.expected = (last + 1) % SEQ_MOD
        self.info = replace(self.info, boot_id=hello.boot_id)
        welcome = c.Welcome(PROTOCOL_VERSION, c.HelloResult.ACCEPTED, self.sender.oldest_unacked)
        self._send(welcome, 0, now)
        for seq, m in self.sender.resend_all(now):
            self._send(m, seq, now)
        self.counters.retransmits = self.sender.retransmits
        self._handshaken = True
        self._set_session(True, "up")
        self._time_sync(now)

    def _same_boot(self, hello: c.Hello, last: int) -> int:
        """A re-handshake (or a host restart): keep `expected`; an announced skip is a loss."""
        skipped = seq_diff(hello.next_seq, (last + 1) % SEQ_MOD)
        if skipped > 0:
            self.counters.lost += skipped
            lost = f"{last + 1}..{last + skipped}"
            reason, detail = self._blame(f"boot {hello.boot_id}: events {lost}")
            log.error("link %s: %s", self.name, detail)
            self.on_error(reason, detail, b"")
            last += skipped
        return last

    def _new_boot(self, hello: c.Hello, known: tuple[int, int] | None) -> int:
        """A reset (or the first controller this outbox meets): numbering starts over."""
        if known is not None:
            self.counters.reboots += 1
            missing = 0
            if self._peer_last is not None:
                missing = max(0, seq_diff(self._peer_last, self.receiver.last))
            self.counters.lost += missing
            lost = f"{missing} it had sent are lost" if missing else "none it had sent is lost"
            detail = (
                f"controller rebooted: boot {known[0]} → {hello.boot_id}; {lost}, and events "
                "it had not sent yet cannot be known (protocol §3.2)"
            )
            log.warning("link %s: %s", self.name, detail)
            self.on_error("reboot", detail, b"")
            dropped = list(self.sender.outstanding)
            self.sender.outstanding.clear()  # §3.10: ran or not, nobody knows; never resent
            if dropped:
                self.counters.commands_dropped += len(dropped)
                self.on_error(
                    "commands_unknown",
                    f"{len(dropped)} commands not acknowledged before the reboot: outcome "
                    "unknown, not resent",
                    b"",
                )
            for seq, _ in dropped:
                tag = self._tag_of.pop(seq, None)
                if tag is not None:
                    self.on_outcome(
                        tag, "unknown", "the controller rebooted before acknowledging it"
                    )
        last = hello.next_seq - 1
        if last > 0:
            self._unknown_history(hello.boot_id, last, known is None)
        return last

    def _refuse_version(self, now: float) -> None:
        self._set_session(False, "version_mismatch")
        welcome = c.Welcome(PROTOCOL_VERSION, c.HelloResult.VERSION_UNSUPPORTED, 1)
        self._send(welcome, 0, now)

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
            reason = "outbox_lost"
            detail = (
                f"{events} were acknowledged to the controller and are not in the outbox: {damage}"
            )
        elif new_outbox:
            reason = "unknown_history"
            detail = (
                f"{events} were acknowledged before this outbox knew the controller (a new, "
                "replaced or emptied outbox, or another host): any of them not published "
                "before are lost"
            )
        else:
            return  # a controller that restarted and sent before meeting this host
        log.error("link %s: %s", self.name, detail)
        self.on_error(reason, detail, b"")

    # --- sending ------------------------------------------------------------------

    def poll(self, now: float) -> bytes:
        if not self._open:
            self._out.clear()
            return b""
        out = super().poll(now)
        self.counters.retransmits = self.sender.retransmits
        return out

    def _tick(self, now: float) -> None:
        if self._session and self.silent(now):
            self.counters.link_downs += 1
            log.warning("link %s: silent %.1fs, down", self.name, now - self._last_rx)
            self._set_session(False, "down")
            self._down_since = now
        if not self._session and now - self._last_sync >= self.timing.sync_repeat:
            self._send(c.Sync(), self.sender.last_sent, now)
        if self._session and now - self._last_time_sync >= self.timing.time_sync:
            self._time_sync(now)

    def _time_sync(self, now: float) -> None:
        """The wall clock to the controller after each WELCOME and every hour (§7.4)."""
        self._last_time_sync = now
        self._push(c.TimeSync(int(self.wall_clock() * 1000)), None)

    def _push(self, message: Message, tag: Tag | None) -> None:
        self.sender.push(message)
        self._tags.append(tag)

    def _sendable(self, now: float) -> list[tuple[int, Message]]:
        before = len(self.sender.waiting)
        out = self.sender.poll(now)
        new = before - len(self.sender.waiting)
        for seq, _ in out[len(out) - new :]:
            self._tag_of[seq] = self._tags.popleft()
        return out

    def _send(self, message: Message, seq: int, now: float) -> None:
        if isinstance(message, c.Sync):
            self._last_sync = now
        super()._send(message, seq, now)

    def _set_session(self, up: bool, state: LinkState) -> None:
        self._session = up
        if state != self.info.state:
            self.info = replace(
                self.info, state=state, since=self.wall_clock(), last_seq=self._last_seq
            )
            log.info("link %s: %s", self.name, state)
            self.on_info(self.info)
