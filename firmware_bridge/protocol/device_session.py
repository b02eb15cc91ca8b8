"""The controller's side of the link, sans I/O: the reference for firmware, simulators and tests.

The production bridge never imports it. Feed received bytes to `receive`, call `poll`
often (after every receive or emit, and every ~10 ms) and write what it returns.
"""

from __future__ import annotations

from collections import Counter, deque

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Receiver, Sender, Timing, Verdict
from firmware_bridge.protocol.catalogue import Message, from_frame, to_frame
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import PROTOCOL_VERSION, Frame, FrameDecoder, encode_frame


class DeviceSession:
    """One boot of a controller: a new instance is a reset (give it a new boot_id)."""

    def __init__(
        self,
        boot_id: int,
        table_id: int = 1,
        firmware: tuple[int, int, int] = (1, 0, 0),
        timing: Timing | None = None,
        now: float = 0.0,
        protocol_version: int = PROTOCOL_VERSION,
    ) -> None:
        self.timing = timing or Timing()
        self.boot_id = boot_id
        self.table_id = table_id
        self.firmware = firmware
        self.protocol_version = protocol_version
        self.sender = Sender(1, self.timing)
        self.receiver = Receiver(1, self.timing)
        self.welcomed = False
        self.rejected = False
        self.commands: deque[Message] = deque()
        self.errors: Counter[str] = Counter()
        self._decoder = FrameDecoder()
        self._out = bytearray(b"\x00")  # flush the host's partial run after reset
        self._hello_at = float("-inf")
        self._last_tx = now
        self._ack_due = False
        self._started = now

    @property
    def idle(self) -> bool:
        """True when every emitted event has been acknowledged by the host."""
        return not self.sender.outstanding and not self.sender.waiting

    def emit(self, message: Message) -> None:
        """Queue an event for the host."""
        self.sender.push(message)

    def receive(self, data: bytes, now: float) -> None:
        """Process bytes from the host."""
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError):
                self.errors[item.reason] += 1
                if self.welcomed and self.receiver.nak_due(now):
                    self._send(c.Nak(self.receiver.expected), self.sender.last_sent, now)
                continue
            self._on_frame(item, now)

    def _on_frame(self, frame: Frame, now: float) -> None:
        try:
            message: Message | None = from_frame(frame)
        except PayloadError as exc:
            self.errors[exc.reason] += 1
            message = None
        if isinstance(message, c.Sync):
            # a SYNC starts a new handshake, also after a refusal: a WELCOME that refused
            # us may have answered a HELLO we never sent (a forged or corrupted frame)
            self.welcomed = False
            self.rejected = False
            self._hello_at = float("-inf")
            return
        if isinstance(message, c.Welcome):
            if message.result != c.HelloResult.ACCEPTED:
                self.rejected = True
                return
            self.welcomed = True
            self.sender.on_ack(frame.ack, now)
            self.receiver.expected = message.next_seq
            for seq, m in self.sender.resend_all(now):
                self._send(m, seq, now)
            return
        if not self.welcomed:
            return
        self.sender.on_ack(frame.ack, now)
        if isinstance(message, c.Nak):
            for seq, m in self.sender.on_nak(message.expected, now):
                self._send(m, seq, now)
        elif 0x10 <= frame.type <= 0x7F:
            verdict = self.receiver.classify(frame.seq)
            if verdict is Verdict.DELIVER:
                self.receiver.advance()
                if message is not None:
                    self.commands.append(message)
                self._ack_due = True
            elif verdict is Verdict.DUPLICATE:
                self._ack_due = True
            elif self.receiver.nak_due(now):
                self._send(c.Nak(self.receiver.expected), self.sender.last_sent, now)
        elif self.receiver.behind(frame.seq) and self.receiver.nak_due(now):
            self._send(c.Nak(self.receiver.expected), self.sender.last_sent, now)

    def poll(self, now: float) -> bytes:
        """Bytes to write now: HELLO until welcomed, then new, resent and ack frames."""
        if self.rejected:
            return b""
        if not self.welcomed:
            if now - self._hello_at >= self.timing.hello_repeat:
                self._hello_at = now
                major, minor, patch = self.firmware
                hello = c.Hello(
                    self.protocol_version, major, minor, patch,
                    self.table_id, self.boot_id, self.sender.oldest_unacked,
                )  # fmt: skip
                self._send(hello, 0, now)
        else:
            for seq, m in self.sender.poll(now):
                self._send(m, seq, now)
            if self._ack_due:
                self._send(c.Ack(), self.sender.last_sent, now)
        self._ack_due = False
        if now - self._last_tx >= self.timing.heartbeat:
            uptime = int((now - self._started) * 1000) % 2**32
            self._send(c.Heartbeat(uptime), self.sender.last_sent if self.welcomed else 0, now)
        out = bytes(self._out)
        self._out.clear()
        return out

    def _send(self, message: Message, seq: int, now: float) -> None:
        frame = to_frame(message, seq, self.receiver.last)
        if self.protocol_version != PROTOCOL_VERSION:
            frame = Frame(frame.type, frame.seq, frame.ack, frame.payload, self.protocol_version)
        self._out += encode_frame(frame)
        self._last_tx = now
        self._ack_due = False
