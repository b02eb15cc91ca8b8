"""One frame: header, payload, CRC, COBS-stuffed between 0x00 delimiters (docs/protocol.md §2)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from cobs import cobs  # type: ignore[import-untyped]  # no stubs upstream

from firmware_bridge.protocol.crc import crc16
from firmware_bridge.protocol.errors import (
    CobsError,
    CrcError,
    FrameError,
    FrameTooLong,
    FrameTooShort,
    VersionMismatch,
)

PROTOCOL_VERSION = 1
DELIMITER = 0x00
HEADER = struct.Struct("<BBHH")  # version, type, seq, ack (little-endian)
HEADER_SIZE = HEADER.size  # 6
CRC_SIZE = 2
MAX_PAYLOAD = 48
MIN_BODY = HEADER_SIZE + CRC_SIZE  # 8
MAX_BODY = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE  # 56
MAX_STUFFED = MAX_BODY + 1  # COBS adds one byte per started 254
MAX_WIRE = MAX_STUFFED + 1  # plus the 0x00 delimiter: 58
SEQ_MOD = 1 << 16


@dataclass(frozen=True, slots=True)
class Frame:
    """A decoded frame; `seq` and `ack` are 16-bit, `payload` at most 48 bytes."""

    type: int
    seq: int
    ack: int
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        for name, value, top in (
            ("type", self.type, 0xFF),
            ("seq", self.seq, 0xFFFF),
            ("ack", self.ack, 0xFFFF),
            ("version", self.version, 0xFF),
        ):
            if not 0 <= value <= top:
                raise ValueError(f"{name}: {value} out of range 0..{top}")
        if len(self.payload) > MAX_PAYLOAD:
            raise ValueError(f"payload: {len(self.payload)} bytes, at most {MAX_PAYLOAD}")


def encode_frame(frame: Frame) -> bytes:
    """Wire bytes of `frame`: COBS(header + payload + CRC big-endian) + 0x00."""
    body = HEADER.pack(frame.version, frame.type, frame.seq, frame.ack) + frame.payload
    body += crc16(body).to_bytes(2, "big")
    stuffed: bytes = cobs.encode(body)
    return stuffed + b"\x00"


def split_frames(data: bytes) -> list[bytes]:
    """`data` cut after each 0x00 delimiter, each frame's bytes kept with it (a trailing
    piece without its delimiter last): for tools that show the wire frame by frame."""
    parts = data.split(b"\x00")
    out = [p + b"\x00" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def decode_frame(stuffed: bytes) -> Frame:
    """Frame from the bytes between two delimiters (delimiter excluded); raises FrameError."""
    if len(stuffed) > MAX_STUFFED:
        raise FrameTooLong(f"length: {len(stuffed)} stuffed bytes, at most {MAX_STUFFED}")
    try:
        body: bytes = cobs.decode(stuffed)
    except cobs.DecodeError as exc:
        raise CobsError(f"cobs: {exc}") from None
    if len(body) < MIN_BODY:
        raise FrameTooShort(f"length: {len(body)} bytes, at least {MIN_BODY}")
    if len(body) > MAX_BODY:
        raise FrameTooLong(f"length: {len(body)} bytes, at most {MAX_BODY}")
    if crc16(body) != 0:  # CRC sent high byte first: the whole body checks to 0
        got = int.from_bytes(body[-2:], "big")
        raise CrcError(f"crc: got 0x{got:04X}, computed 0x{crc16(body[:-2]):04X}")
    version, ftype, seq, ack = HEADER.unpack_from(body)
    if version != PROTOCOL_VERSION:
        raise VersionMismatch(version, ftype)
    return Frame(ftype, seq, ack, body[HEADER_SIZE:-CRC_SIZE], version)


class FrameSplitter:
    """Cuts a byte stream at 0x00 delimiters; a run longer than a frame is dropped whole.

    Feeding arbitrary chunks gives the same frames as feeding the whole stream at once,
    so the decoder resynchronises at the next delimiter after any noise.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._overflow = False

    def feed(self, data: bytes) -> list[bytes | FrameTooLong]:
        """The complete runs that `data` closes, oldest first (empty runs skipped)."""
        out: list[bytes | FrameTooLong] = []
        start = 0
        while True:
            end = data.find(b"\x00", start)
            if end < 0:
                self._append(data[start:])
                return out
            self._append(data[start:end])
            if self._overflow:
                out.append(FrameTooLong(f"length: more than {MAX_STUFFED} bytes before 0x00"))
            elif self._buf:
                out.append(bytes(self._buf))
            self._buf.clear()
            self._overflow = False
            start = end + 1

    def _append(self, chunk: bytes) -> None:
        if self._overflow:
            return
        self._buf += chunk
        if len(self._buf) > MAX_STUFFED:
            self._buf.clear()
            self._overflow = True


def seq_diff(a: int, b: int) -> int:
    """Signed distance a - b in 16-bit serial arithmetic (RFC 1982): -32768..32767."""
    d = (a - b) % SEQ_MOD
    return d - SEQ_MOD if d >= SEQ_MOD // 2 else d


class FrameDecoder:
    """Bytes in, frames or the reason each run was refused out; never raises."""

    def __init__(self) -> None:
        self._splitter = FrameSplitter()

    def feed(self, data: bytes) -> list[Frame | FrameError]:
        """Every run that `data` completes, decoded, in arrival order."""
        out: list[Frame | FrameError] = []
        for run in self._splitter.feed(data):
            if isinstance(run, FrameError):
                out.append(run)
                continue
            try:
                out.append(decode_frame(run))
            except FrameError as exc:
                out.append(exc)
        return out
