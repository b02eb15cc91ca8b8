"""The scripted host's end of the cable: raw frames over pyserial, every one kept in a transcript.

Synchronous on purpose: a conformance run is a script, one step after another, and
pyserial's timeouts are all it needs (a pty path, /dev/ttyUSB0 or a socket:// URL).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

import serial  # type: ignore[import-untyped]

from firmware_bridge.protocol.catalogue import from_frame, plain
from firmware_bridge.protocol.errors import FrameError, PayloadError
from firmware_bridge.protocol.frame import Frame, FrameDecoder, encode_frame, split_frames

Direction = Literal["host→dev", "dev→host"]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One run of bytes on the wire at `t` (monotonic seconds), decoded for a reader."""

    t: float
    direction: Direction
    raw: bytes
    frame: Frame | None
    error: str | None = None

    def describe(self) -> str:
        """`KIND seq=.. ack=.. {fields}`, or the reason the bytes are not a frame."""
        if self.frame is None:
            return self.error or "raw bytes"
        return describe_frame(self.frame)


def describe_frame(frame: Frame) -> str:
    head = f"seq={frame.seq} ack={frame.ack}"
    if frame.version != 1:
        head += f" version={frame.version}"
    try:
        message = from_frame(frame)
    except PayloadError as exc:
        return f"type 0x{frame.type:02X} {head} refused: {exc} payload={frame.payload.hex(' ')}"
    return f"{message.KIND.upper()} {head} {plain(message)}"


class PortError(RuntimeError):
    """The port could not be opened (exit 2 in the command)."""


class Wire:
    """Frames to and from the device; `transcript` holds every exchange in order."""

    def __init__(self, url: str, baudrate: int = 115200) -> None:
        try:
            self._port = serial.serial_for_url(url, baudrate=baudrate, timeout=0.002)
        except (OSError, ValueError, serial.SerialException) as exc:
            raise PortError(f"port: cannot open {url!r}: {exc}") from None
        self.url = url
        self._decoder = FrameDecoder()
        self._pending: list[tuple[float, bytes, Frame | FrameError]] = []
        self.transcript: list[Exchange] = []
        self._rx_raw = bytearray()

    def close(self) -> None:
        self._port.close()

    def send(self, frame: Frame) -> float:
        """Write one frame; returns the time it was written."""
        return self.send_raw(encode_frame(frame), frame)

    def send_raw(self, data: bytes, frame: Frame | None = None, note: str | None = None) -> float:
        """Write bytes as they are (malformed frames, bare delimiters)."""
        self._port.write(data)
        self._port.flush()
        now = time.monotonic()
        self.transcript.append(Exchange(now, "host→dev", data, frame, note))
        return now

    def drain(self) -> None:
        """Forget whatever the device sent so far (kept in the transcript)."""
        self.poll(0.0)
        self._pending.clear()

    def poll(self, timeout: float) -> None:
        """Read what arrives within `timeout` seconds (at least one read)."""
        deadline = time.monotonic() + timeout
        while True:
            waiting = self._port.in_waiting
            data = self._port.read(waiting or 1)
            now = time.monotonic()
            if data:
                self._take(data, now)
            if now >= deadline:
                return

    def next(self, deadline: float) -> tuple[float, Frame | FrameError] | None:
        """The next decoded run from the device, or None at `deadline`."""
        while not self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.poll(min(left, 0.002))
        t, _, item = self._pending.pop(0)
        return t, item

    def _take(self, data: bytes, now: float) -> None:
        for chunk in split_frames(data):
            self._rx_raw += chunk
            if not chunk.endswith(b"\x00"):
                continue
            raw = bytes(self._rx_raw)
            self._rx_raw.clear()
            for item in self._decoder.feed(raw):
                if isinstance(item, FrameError):
                    self.transcript.append(Exchange(now, "dev→host", raw, None, str(item)))
                else:
                    self.transcript.append(Exchange(now, "dev→host", raw, item))
                self._pending.append((now, raw, item))
