"""Why a received frame was refused: one class per reason, so each can be counted apart."""

from __future__ import annotations


class ProtocolError(ValueError):
    """Base of every decode failure; `reason` is the short counter name."""

    reason = "protocol"


class FrameError(ProtocolError):
    """The bytes between two delimiters are not a frame: dropped, never acknowledged."""

    reason = "frame"


class CobsError(FrameError):
    reason = "cobs"


class FrameTooShort(FrameError):
    reason = "too_short"


class FrameTooLong(FrameError):
    reason = "too_long"


class CrcError(FrameError):
    reason = "crc"


class VersionMismatch(FrameError):
    """A CRC-valid frame of another protocol version; `frame_type` lets a host answer HELLO."""

    reason = "version"

    def __init__(self, version: int, frame_type: int) -> None:
        super().__init__(f"version: got {version}, this side speaks 1")
        self.version = version
        self.frame_type = frame_type


class PayloadError(ProtocolError):
    """A CRC-valid frame whose content the catalogue refuses (it did arrive intact)."""

    reason = "payload"


class UnknownType(PayloadError):
    reason = "unknown_type"

    def __init__(self, frame_type: int) -> None:
        super().__init__(f"type: unknown message type 0x{frame_type:02X}")
        self.frame_type = frame_type


class MalformedPayload(PayloadError):
    reason = "malformed"

    def __init__(self, frame_type: int, detail: str) -> None:
        super().__init__(f"type 0x{frame_type:02X}: {detail}")
        self.frame_type = frame_type
        self.detail = detail
