"""What both ends of the link do alike, sans I/O: bytes in, bytes out, the time passed in.

`LinkSession` holds the rules the device and the host share (docs/protocol.md §3.3-§3.7):
which frames count and whose `ack` is applied, in-order delivery (DELIVER / DUPLICATE /
GAP → NAK), the lost tail a link frame's `seq` reveals, NAK answers, ACKs and
heartbeats. Each role adds its handshake: `DeviceSession` (the controller's side, the
reference for firmware) and `HostSession` (the bridge's side, driven by `HostLink`).

Drive either one the same way: `receive(data, now)` with what the peer sent, `poll(now)`
after every receive and every few milliseconds, and write the bytes `poll` returns.
"""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Direction, Message, from_frame, to_frame
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import PROTOCOL_VERSION, Frame, FrameDecoder, encode_frame

CONTROL_TYPES = range(0x01, 0x10)  # link control, 0x07-0x0F reserved (§4)
SEQUENCED_TYPES = range(0x10, 0x80)  # events and commands, known or not (§3.6)
BOTH_WAYS: frozenset[type[Message]] = frozenset({c.Ack, c.Nak, c.Heartbeat})


class LinkSession:
    """The shared core of one end of the link; subclasses add the handshake of their role."""

    # the control messages this end may receive (§3.6: any other is from the wrong direction)
    ACCEPTS: ClassVar[frozenset[type[Message]]] = BOTH_WAYS
    # the sequenced messages it receives: commands (the device) or events (the host)
    RECEIVES: ClassVar[Direction]

    def __init__(self, timing: Timing | None, now: float) -> None:
        self.timing = timing or Timing()
        self.sender = Sender(1, self.timing)
        self.receiver = Receiver(1, self.timing)
        self.errors: Counter[str] = Counter()  # refused frames by reason, duplicates, gaps
        self.wire_version = PROTOCOL_VERSION
        self._decoder = FrameDecoder()
        self._out = bytearray()
        self._last_tx = now
        self._last_rx = now
        self._started = now
        self._ack_due = False

    # --- what a role decides -----------------------------------------------------

    @property
    def up(self) -> bool:
        """True while a session is up: sequenced frames are delivered and acks applied."""
        raise NotImplementedError

    def _on_handshake(self, frame: Frame, message: Message, now: float) -> None:
        """A HELLO, WELCOME or SYNC from the right direction."""
        raise NotImplementedError

    def _deliver(
        self, frame: Frame, message: Message | None, error: str | None, now: float
    ) -> None:
        """A sequenced message delivered in order (`message` None when the catalogue refused it)."""
        raise NotImplementedError

    def _outside_session(self, frame: Frame, now: float) -> None:
        """A sequenced frame while no session is up (the device ignores it)."""

    def _released(self, released: list[tuple[int, Message]], now: float) -> None:
        """Sequenced messages the peer acknowledged, oldest first."""

    def _count(self, reason: str) -> None:
        self.errors[reason] += 1

    def _ack_value(self) -> int:
        """The `ack` this end sends: the last message delivered (the host: and stored)."""
        return self.receiver.last

    # --- receiving ----------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        """Take bytes from the peer; answers wait in the output until `poll`."""
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self._on_bad(item, now)
            else:
                self._on_frame(item, now)
        self._after_receive(now)

    def _after_receive(self, now: float) -> None:
        """End of one `receive` (the host stores what it delivered, then may acknowledge)."""

    def _on_bad(self, error: FrameError, now: float) -> None:
        """§3.6: dropped and counted; NAKed while a session is up so the peer resends at once."""
        self._count(error.reason)
        if self.up:
            self._nak(now)

    def _on_frame(self, frame: Frame, now: float) -> None:
        error: str | None = None
        reason = "malformed"
        try:
            message: Message | None = from_frame(frame)
        except PayloadError as exc:
            message, error = None, str(exc)
            reason = exc.reason
        if frame.type in SEQUENCED_TYPES:
            self._last_rx = now
            self._on_sequenced(frame, message, error, now)
            return
        if message is None:  # control frame of a wrong length, or an unknown type: ignored whole
            self._refused(frame, reason, error or "", now)
            return
        if frame.type not in CONTROL_TYPES or type(message) not in self.ACCEPTS:
            self._refused(frame, "malformed", f"{message.KIND}: from the wrong direction", now)
            return
        problem = self._malformed(message)
        if problem is not None:
            self._refused(frame, "malformed", f"type 0x{frame.type:02X}: {problem}", now)
            return
        # §3.7: only a frame §3.6 does not ignore is a valid frame (it keeps the link up)
        self._last_rx = now
        if type(message) in BOTH_WAYS:
            self._on_link_frame(frame, message, now)
        else:
            self._on_handshake(frame, message, now)

    def _malformed(self, message: Message) -> str | None:
        """Why a well-formed control frame from the right direction breaks the protocol anyway
        (§5.2: a WELCOME that accepts another version), or None; it is then ignored whole."""
        return None

    def _from_peer(self, frame: Frame) -> bool:
        """False for a sequenced frame of a known type this end sends itself (§3.3, §3.6): it may
        be an echo of its own frame on a faulty cable, so its `ack` is never applied."""
        cls = c.BY_TYPE.get(frame.type)
        return cls is None or cls.DIRECTION is self.RECEIVES

    def silent(self, now: float) -> bool:
        """§3.7: no valid frame for `silence` (3.5 s); frames §3.6 ignores do not count."""
        return now - self._last_rx > self.timing.silence

    def _refused(self, frame: Frame, reason: str, detail: str, now: float) -> None:
        """A CRC-valid frame ignored whole, its `ack` and `seq` included (§3.6)."""
        self._count(reason)

    def _on_link_frame(self, frame: Frame, message: Message, now: float) -> None:
        """ACK, NAK, HEARTBEAT: their `ack` counts while a session is up (§3.3)."""
        if not self.up:
            return
        self._apply_ack(frame.ack, now)
        if isinstance(message, c.Nak):
            self._released(self.sender.on_ack((message.expected - 1) % 65536, now), now)
            for seq, m in self.sender.on_nak(message.expected, now):
                self._send(m, seq, now)
        elif self.receiver.behind(frame.seq):
            self._peer_sent(frame.seq)
            self._nak(now)  # §3.2: the tail was lost

    def _on_sequenced(
        self, frame: Frame, message: Message | None, error: str | None, now: float
    ) -> None:
        """§3.4, with the frame's `ack` applied first unless the type is one this end sends."""
        if not self.up:
            self._outside_session(frame, now)
            return
        if self._from_peer(frame):
            self._apply_ack(frame.ack, now)
        verdict = self.receiver.classify(frame.seq)
        if verdict is Verdict.DELIVER:
            self.receiver.advance()
            self._ack_due = True
            self._deliver(frame, message, error, now)
        elif verdict is Verdict.DUPLICATE:
            self._count("duplicate")
            self._ack_due = True
        else:
            self._count("gap")
            self._peer_sent(frame.seq)
            self._nak(now)

    def _peer_sent(self, seq: int) -> None:
        """The peer said it sent `seq` (a gap, a link frame's `seq`)."""

    def _apply_ack(self, ack: int, now: float) -> None:
        self._released(self.sender.on_ack(ack, now), now)

    def _nak(self, now: float) -> None:
        """NAK(`expected`), at most one per `expected` value per 50 ms (§3.4)."""
        if self.receiver.nak_due(now):
            self._send(c.Nak(self.receiver.expected), self.sender.last_sent, now)

    # --- sending ------------------------------------------------------------------

    def poll(self, now: float) -> bytes:
        """Bytes to write now: the role's handshake, new and resent messages, ACK, HEARTBEAT."""
        self._tick(now)
        if self.up:
            for seq, m in self._sendable(now):
                self._send(m, seq, now)
            if self._ack_due:
                self._send(c.Ack(), self.sender.last_sent, now)
        self._ack_due = False
        if self._beats() and now - self._last_tx >= self.timing.heartbeat:
            uptime = int((now - self._started) * 1000) % 2**32
            self._send(c.Heartbeat(uptime), self.sender.last_sent, now)
        return self.take_output()

    def take_output(self) -> bytes:
        """What was written since the last call (also between polls, for an answer at once)."""
        out = bytes(self._out)
        self._out.clear()
        return out

    def _tick(self, now: float) -> None:
        """The role's timers (HELLO repeat, SYNC repeat, silence)."""

    def _beats(self) -> bool:
        """Whether a HEARTBEAT is due when idle (§3.7)."""
        return True

    def _sendable(self, now: float) -> list[tuple[int, Message]]:
        return self.sender.poll(now)

    def _send(self, message: Message, seq: int, now: float) -> None:
        frame = to_frame(message, seq, self._ack_value())
        if self.wire_version != PROTOCOL_VERSION:
            frame = Frame(frame.type, frame.seq, frame.ack, frame.payload, self.wire_version)
        self._out += encode_frame(frame)
        self._last_tx = now
        self._ack_due = False
