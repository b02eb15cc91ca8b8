"""The wire protocol of the table link, pure: values in, values out, no I/O (docs/protocol.md)."""

from firmware_bridge.protocol.catalogue import (
    BY_KIND,
    BY_TYPE,
    CATALOGUE,
    Message,
    from_frame,
    to_frame,
)
from firmware_bridge.protocol.crc import CRC_CHECK, crc16
from firmware_bridge.protocol.errors import FrameError, PayloadError, ProtocolError
from firmware_bridge.protocol.frame import (
    MAX_WIRE,
    PROTOCOL_VERSION,
    Frame,
    FrameDecoder,
    decode_frame,
    encode_frame,
    seq_diff,
)

__all__ = [
    "BY_KIND",
    "BY_TYPE",
    "CATALOGUE",
    "CRC_CHECK",
    "MAX_WIRE",
    "PROTOCOL_VERSION",
    "Frame",
    "FrameDecoder",
    "FrameError",
    "Message",
    "PayloadError",
    "ProtocolError",
    "crc16",
    "decode_frame",
    "encode_frame",
    "from_frame",
    "seq_diff",
    "to_frame",
]
