"""CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor; check 0x29B1."""

from __future__ import annotations

import binascii

CRC_CHECK = 0x29B1  # crc16(b"123456789"), the catalogue check value of this variant


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of `data` (C's table-driven 0x1021 MSB-first, init 0xFFFF)."""
    return binascii.crc_hqx(data, 0xFFFF)
