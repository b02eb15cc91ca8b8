"""The codec's specific refusals: each bad input names its reason; the decoder never raises."""

from __future__ import annotations

import pytest

from firmware_bridge.protocol import (
    CRC_CHECK,
    Frame,
    FrameDecoder,
    crc16,
    decode_frame,
    encode_frame,
    from_frame,
    seq_diff,
    to_frame,
)
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol import errors as e

DRAWN = encode_frame(to_frame(c.TileDrawn(2, 37, c.End.FRONT), 7, 3))


def test_crc_is_ccitt_false() -> None:
    assert crc16(b"123456789") == CRC_CHECK == 0x29B1


def test_bad_crc_is_refused_with_both_values() -> None:
    bad = bytearray(DRAWN)
    bad[-2] ^= 0x01
    with pytest.raises(e.CrcError, match=r"crc: got 0x"):
        decode_frame(bytes(bad[:-1]))


def test_too_short_and_too_long() -> None:
    with pytest.raises(e.FrameTooShort, match="length: 1 bytes, at least 8"):
        decode_frame(b"\x02\x01")
    with pytest.raises(e.FrameTooLong, match="length: 60 stuffed bytes, at most 57"):
        decode_frame(b"\x01" * 60)


def test_invalid_cobs() -> None:
    with pytest.raises(e.CobsError, match="cobs: not enough input bytes"):
        decode_frame(b"\x09\x01\x02")


def test_other_version_is_reported_with_its_type() -> None:
    body = bytes([2, 0x01, 0, 0, 0, 0])
    body += crc16(body).to_bytes(2, "big")
    from cobs import cobs

    with pytest.raises(e.VersionMismatch) as info:
        decode_frame(cobs.encode(body))
    assert (info.value.version, info.value.frame_type) == (2, 0x01)


def test_unknown_type_and_malformed_payload() -> None:
    with pytest.raises(e.UnknownType, match="0x3F"):
        from_frame(Frame(0x3F, 1, 0, b""))
    with pytest.raises(e.MalformedPayload, match="tile_drawn: tile: 200 out of range"):
        from_frame(Frame(0x14, 1, 0, bytes([1, 200, 0])))
    with pytest.raises(e.MalformedPayload, match="length: 2 payload bytes, expected 3"):
        from_frame(Frame(0x14, 1, 0, bytes([1, 2])))
    with pytest.raises(e.MalformedPayload, match="count: 3 tiles but 2"):
        from_frame(Frame(0x19, 1, 0, bytes([1, 3, 4, 5])))
    with pytest.raises(e.MalformedPayload, match="PONG needs 3 tiles"):
        from_frame(Frame(0x16, 1, 0, bytes([1, 1, 0, 4, 4, 5, 6, 7])))


def test_constructor_names_the_field() -> None:
    with pytest.raises(ValueError, match=r"seat: 4 out of range 0\.\.3"):
        c.TileDiscarded(4, 1)
    with pytest.raises(ValueError, match="end: 7 is not a End"):
        c.TileDrawn(0, 1, 7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="button: 'hu' is not a Button"):
        c.build("seat_button", {"seat": 0, "button": "hu"})


def test_decoder_skips_noise_and_resyncs() -> None:
    dec = FrameDecoder()
    out = dec.feed(b"\x00\x00garbage-noise" + b"\x00" + DRAWN[:5])
    out += dec.feed(DRAWN[5:] + b"\xff" * 100 + b"\x00" + DRAWN)
    frames = [x for x in out if isinstance(x, Frame)]
    errors = [x.reason for x in out if not isinstance(x, Frame)]
    assert len(frames) == 2
    assert errors == ["cobs", "too_long"]


def test_byte_at_a_time_equals_whole() -> None:
    stream = DRAWN * 3
    whole = FrameDecoder().feed(stream)
    dec = FrameDecoder()
    pieces = [x for b in stream for x in dec.feed(bytes([b]))]
    assert pieces == whole


@pytest.mark.parametrize(
    ("a", "b", "d"), [(5, 3, 2), (3, 5, -2), (0, 65535, 1), (65535, 0, -1), (32768, 0, -32768)]
)
def test_seq_diff_wraps(a: int, b: int, d: int) -> None:
    assert seq_diff(a, b) == d


@pytest.mark.parametrize("cls", [c.HandRevealed, c.TilesShown])
def test_max_frame_fits(cls: type[c.HandRevealed] | type[c.TilesShown]) -> None:
    big = cls(0, tuple(range(24)))
    wire = encode_frame(to_frame(big, 0, 0))
    assert len(wire) <= 58
    with pytest.raises(ValueError, match="tile count: 25 out of range"):
        cls(0, tuple(range(25)))
    with pytest.raises(ValueError, match="tile count: 0 out of range"):
        cls(0, ())


def test_tiles_shown_round_trip_and_refusals() -> None:
    shown = c.TilesShown(3, (0, 143))
    frame = decode_frame(encode_frame(to_frame(shown, 40, 2))[:-1])
    assert frame.type == 0x1D
    assert from_frame(frame) == shown
    assert not isinstance(from_frame(frame), c.HandRevealed)  # a fault, not a win
    with pytest.raises(e.MalformedPayload, match=r"tiles_shown: tiles\[1\]: 144 out of range"):
        from_frame(Frame(0x1D, 1, 0, bytes([3, 2, 0, 144])))
    with pytest.raises(e.MalformedPayload, match="tiles_shown: count: 2 tiles but 1"):
        from_frame(Frame(0x1D, 1, 0, bytes([3, 2, 0])))
    with pytest.raises(ValueError, match=r"seat: 4 out of range"):
        c.TilesShown(4, (1,))
