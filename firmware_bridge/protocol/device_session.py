"""The controller's side of the link, sans I/O: the reference for firmware, simulators and tests.

The production bridge never imports it. Feed received bytes to `receive`, call `poll`
often (after every receive or emit, and every ~10 ms) and write what it returns. The
rules it shares with the host live in `LinkSession` (protocol/session.py).
"""

from __future__ import annotations

from collections import deque

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Direction, Message, RefusalReason
from firmware_bridge.protocol.frame import PROTOCOL_VERSION, SEQ_MOD, Frame
from firmware_bridge.protocol.session import BOTH_WAYS, LinkSession


class DeviceSession(LinkSession):
    """One boot of a controller: a new instance is a reset (give it a new boot_id).

    `queue_limit` bounds the events it holds (sent and waiting); when one more is
    emitted into a full queue the oldest is discarded and HELLO announces the new
    oldest number (§3.8), so the host reports the loss with its exact numbers.
    """

    ACCEPTS = BOTH_WAYS | {c.Welcome, c.Sync}
    RECEIVES = Direction.COMMAND

    def __init__(
        self,
        boot_id: int,
        table_id: int = 1,
        firmware: tuple[int, int, int] = (1, 0, 0),
        timing: Timing | None = None,
        now: float = 0.0,
        protocol_version: int = PROTOCOL_VERSION,
        queue_limit: int | None = None,
    ) -> None:
        super().__init__(timing, now)
        self.boot_id = boot_id
        self.table_id = table_id
        self.firmware = firmware
        self.protocol_version = self.wire_version = protocol_version
        self.queue_limit = queue_limit
        self.welcomed = False
        self.rejected = False
        self.commands: deque[Message] = deque()
        self._out += b"\x00"  # flush the host's partial run after reset
        self._hello_at = float("-inf")

    @property
    def up(self) -> bool:
        return self.welcomed

    @property
    def idle(self) -> bool:
        """True when every emitted event has been acknowledged by the host."""
        return not self.sender.outstanding and not self.sender.waiting

    def emit(self, message: Message) -> None:
        """Queue an event for the host (discarding the oldest if the queue is full)."""
        limit = self.queue_limit
        if limit is not None and len(self.sender.outstanding) + len(self.sender.waiting) >= limit:
            self._discard_oldest()
        self.sender.push(message)

    def _discard_oldest(self) -> None:
        """§3.8: drop the oldest unacknowledged event, then HELLO with the new oldest number.

        The session ends (§3.7). The HELLO goes at once unless one went less than 500 ms
        ago, then at the HELLO repeat: one per 500 ms however fast the queue overflows. While
        silenced by WELCOME result 1 no HELLO goes; the one after SYNC names the new oldest.
        """
        sender = self.sender
        if sender.outstanding:
            sender.outstanding.popleft()
        elif sender.waiting:
            sender.waiting.popleft()  # never sent: it still takes its number, so it is counted
            sender.next_seq = (sender.next_seq + 1) % SEQ_MOD
        self.errors["queue_full"] += 1
        self.welcomed = False

    # --- receiving ----------------------------------------------------------------

    def _on_handshake(self, frame: Frame, message: Message, now: float) -> None:
        if isinstance(message, c.Sync):
            # a SYNC starts a new handshake, also after a refusal: a WELCOME that refused
            # us may have answered a HELLO we never sent (a forged or corrupted frame)
            self.welcomed = False
            self.rejected = False
            self._hello_at = float("-inf")
            return
        assert isinstance(message, c.Welcome)
        if self.rejected:
            return  # silenced: only a SYNC brings it back; no WELCOME counts, its ack included
        if message.result != c.HelloResult.ACCEPTED:
            # §3.8: stop sending, whether welcomed or not (the session ends, §3.7); its `ack`
            # is never applied: the host that refused us counts events of no session of ours
            self.rejected = True
            self.welcomed = False
            return
        if self.welcomed:
            # a late answer to an earlier HELLO of this handshake: its ack only (§3.8);
            # rewinding `expected` would run a command twice
            self._apply_ack(frame.ack, now)
            return
        self.welcomed = True
        self._apply_ack(frame.ack, now)
        self.receiver.expected = message.next_seq
        for seq, m in self.sender.resend_all(now):
            self._send(m, seq, now)

    def _malformed(self, message: Message) -> str | None:
        """§5.2: a WELCOME that accepts while speaking another version is a protocol error."""
        if (
            isinstance(message, c.Welcome)
            and message.result == c.HelloResult.ACCEPTED
            and message.protocol_version != PROTOCOL_VERSION
        ):
            return (
                f"welcome: result 0 (accepted) with protocol_version "
                f"{message.protocol_version}, not {PROTOCOL_VERSION}"
            )
        return None

    def _deliver(
        self, frame: Frame, message: Message | None, error: str | None, now: float
    ) -> None:
        """Act on a command, or refuse it with COMMAND_REFUSED (§3.6, §6.14)."""
        if message is not None and message.DIRECTION is Direction.COMMAND:
            self.commands.append(message)
            return
        if message is not None:
            reason = RefusalReason.WRONG_DIRECTION
        elif frame.type in c.BY_TYPE:
            reason = RefusalReason.BAD_PAYLOAD
        else:
            reason = RefusalReason.UNKNOWN_TYPE
        self.refuse(frame.seq, frame.type, reason)

    def refuse(self, seq: int, frame_type: int, reason: RefusalReason) -> None:
        """Report a delivered command as not carried out (also for NOT_NOW, by the table).

        It cannot wait for room (the command is acknowledged already): a full queue makes
        room for it like for any event that must be recorded (§3.8)."""
        self.errors["refused"] += 1
        self.emit(c.CommandRefused(seq, frame_type, reason))

    # --- sending ------------------------------------------------------------------

    def poll(self, now: float) -> bytes:
        """Bytes to write now: HELLO until welcomed, then new, resent and ack frames."""
        if self.rejected:
            self._out.clear()
            self._ack_due = False
            return b""
        return super().poll(now)

    def _tick(self, now: float) -> None:
        if not self.welcomed and now - self._hello_at >= self.timing.hello_repeat:
            self._hello_at = now
            major, minor, patch = self.firmware
            hello = c.Hello(
                self.protocol_version,
                major,
                minor,
                patch,
                self.table_id,
                self.boot_id,
                self.sender.oldest_unacked,
            )
            self._send(hello, 0, now)
