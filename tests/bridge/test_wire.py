"""The numbers of docs/protocol.md §3.9, frame by frame on the wire, both ends back to back.

Host and device sessions run on a fake clock polled every millisecond (kit_wire), so
each assertion is exact to that millisecond: a window of 9, a missing backoff or a
timing loosened tenfold fails here.
"""

from __future__ import annotations

from cobs import cobs  # type: ignore[import-untyped]

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import to_frame
from firmware_bridge.protocol.crc import crc16
from firmware_bridge.protocol.frame import Frame, encode_frame

from .kit_wire import DEVICE, HOST, Pair, Seen, gaps_ms, times

WINDOW = 8  # §3.9
RTO_MS = [100, 200, 400, 800, 1600, 2000, 2000]  # initial 100 ms, doubling, at most 2 s


def is_event(s: Seen) -> bool:
    return s.way == DEVICE and 0x10 <= s.type <= 0x3F


def discards(n: int) -> list[c.Message]:
    return [c.TileDiscarded(i % 4, i % 144) for i in range(n)]


def close(got: list[int], want: list[int], slack: int = 1) -> bool:
    return len(got) == len(want) and all(
        abs(g - w) <= slack for g, w in zip(got, want, strict=True)
    )


def test_handshake_on_the_wire() -> None:
    p = Pair()
    p.handshake()
    sync, hello, welcome = (
        p.frames(HOST, c.Sync)[0], p.frames(DEVICE, c.Hello)[0], p.frames(HOST, c.Welcome)[0]
    )  # fmt: skip
    assert sync.t <= hello.t <= welcome.t <= sync.t + 0.002  # each "at once" (≤ 10 ms)
    assert (hello.frame.seq, hello.frame.ack, welcome.frame.seq) == (0, 0, 0)
    assert welcome.message() == c.Welcome(1, c.HelloResult.ACCEPTED, 1)
    [time_sync] = p.commands_sent()
    assert (time_sync.type, time_sync.frame.seq) == (c.TimeSync.TYPE, 1)


def test_window_is_exactly_eight_frames_in_flight() -> None:
    p = Pair()
    p.handshake()
    p.drop = is_event  # the host hears no event: nothing is acknowledged
    t0 = p.now
    for m in discards(20):
        p.device.emit(m)
    p.run(0.05)
    assert [s.frame.seq for s in p.events_sent(t0)] == list(range(1, WINDOW + 1))
    p.run(1.0)  # timeouts resend the same eight, never a ninth
    assert {s.frame.seq for s in p.events_sent(t0)} == set(range(1, WINDOW + 1))
    t1 = p.now
    p.inject(encode_frame(to_frame(c.Ack(), 1, 1)), HOST)  # releases event 1 only
    p.run(0.001)
    assert [s.frame.seq for s in p.events_sent(t1)] == [WINDOW + 1]  # at once, one more


def test_rto_doubles_on_each_timeout_up_to_two_seconds() -> None:
    p = Pair()
    p.handshake()
    # the device hears no START_SHUFFLE, and its NAKs for the tail the host's heartbeats
    # reveal (§3.2) are lost too: only the timer resends
    p.drop = lambda s: (s.way, s.type) in ((HOST, c.StartShuffle.TYPE), (DEVICE, c.Nak.TYPE))
    t0 = p.now
    p.host.send(c.StartShuffle(), p.now)
    p.run(7.2)  # the device's heartbeats keep the link up meanwhile
    sendings = [s for s in p.commands_sent(t0) if s.type == c.StartShuffle.TYPE]
    assert close(gaps_ms(times(sendings)), RTO_MS), gaps_ms(times(sendings))
    assert p.host.up


def test_device_rto_and_go_back_n() -> None:
    p = Pair()
    p.handshake()
    # the host hears no event, and its NAKs for the tail the device's heartbeats reveal
    # are lost too: only the timer resends
    p.drop = lambda s: is_event(s) or (s.way, s.type) == (HOST, c.Nak.TYPE)
    t0 = p.now
    for m in discards(3):
        p.device.emit(m)
    p.run(3.2)
    first = [s for s in p.events_sent(t0) if s.frame.seq == 1]
    assert close(gaps_ms(times(first)), RTO_MS[:5]), gaps_ms(times(first))
    for s in first:  # each resend is the whole window, oldest first, in the same instant
        burst = [e.frame.seq for e in p.events_sent(s.t) if e.t == s.t]
        assert burst == [1, 2, 3]


def test_a_release_resets_rto() -> None:
    p = Pair()
    p.handshake()
    p.drop = is_event
    t0 = p.now
    for m in discards(2):
        p.device.emit(m)
    p.run(0.75)  # sent at t0, resent at +100, +300, +700 ms: RTO now 800 ms
    assert p.device.sender.rto == 0.8
    t1 = p.now
    p.inject(encode_frame(to_frame(c.Ack(), 1, 1)), HOST)
    p.run(0.15)
    again = [s for s in p.events_sent(t1) if s.frame.seq == 2]
    assert close(gaps_ms([t1, *times(again)]), [100]), (t0, gaps_ms([t1, *times(again)]))


def test_every_nak_is_answered_at_once_without_touching_rto() -> None:
    p = Pair()
    p.handshake()
    dropped: list[Seen] = []

    def lose_event_2_once(s: Seen) -> bool:
        if is_event(s) and s.frame.seq == 2 and not dropped:
            dropped.append(s)
            return True
        return False

    # and the host's ACKs are lost: only its NAKs (ack 1) tell the device anything
    p.drop = lambda s: lose_event_2_once(s) or (s.way, s.type) == (HOST, c.Ack.TYPE)
    t0 = p.now
    for m in discards(3):
        p.device.emit(m)
    p.run(0.01)
    [nak] = p.frames(HOST, c.Nak, since=t0)
    assert nak.message() == c.Nak(2)
    resend = [s for s in p.events_sent(nak.t) if s.frame.seq in (2, 3)]
    assert [s.frame.seq for s in resend] == [2, 3] and resend[0].t - nak.t <= 0.001
    assert p.device.sender.rto == 0.1  # a NAK resend restarts the timer, RTO unchanged
    # a second NAK 5 ms after that resend is answered too (no guard, §3.5)
    p.run(0.004)
    t1 = p.now
    p.inject(encode_frame(to_frame(c.Nak(2), 0, 1)), HOST)
    p.run(0.001)
    assert [s.frame.seq for s in p.events_sent(t1)] == [2, 3]
    assert [e.seq for e in p.store.events] == [1, 2, 3]


def test_gap_nak_is_rate_limited_to_one_per_50_ms() -> None:
    p = Pair()
    p.handshake()
    past_gap = encode_frame(to_frame(c.TilesLeft(1), 2, 1))  # event 1 was lost
    start = p.ms
    naks_at = []
    for at_ms in (0, 10, 49, 51, 60, 102):
        p.run((start + at_ms - p.ms) / 1000)
        before = len(p.frames(HOST, c.Nak))
        p.inject(past_gap, DEVICE)
        p.run(0.001)
        if len(p.frames(HOST, c.Nak)) > before:
            naks_at.append(at_ms)
    assert naks_at == [0, 51, 102]  # at once, then one per 50 ms for the same `expected`
    assert all(n.message() == c.Nak(1) for n in p.frames(HOST, c.Nak))


def test_heartbeat_every_second_when_idle() -> None:
    p = Pair()
    p.handshake()
    t0 = p.now
    p.run(3.5)
    for way in (DEVICE, HOST):
        beats = p.frames(way, c.Heartbeat, since=t0)
        assert close(gaps_ms(times(beats)), [1000, 1000]), (way, gaps_ms(times(beats)))
        assert beats[0].t - t0 <= 1.0
    beat = p.frames(DEVICE, c.Heartbeat)[-1]
    assert (beat.frame.seq, beat.frame.ack) == (0, 1)  # last event sent, last command delivered


def test_silence_takes_the_link_down_after_3_5_s_then_sync_every_second() -> None:
    p = Pair()
    p.handshake()
    p.drop = lambda s: s.way == DEVICE
    last_heard = p.frames(DEVICE)[-1].t
    p.run_until(lambda: p.host.info.state == "down", 5.0)
    assert 3.5 <= p.now - last_heard <= 3.502
    down = p.now
    p.run(2.5)
    syncs = p.frames(HOST, c.Sync, since=down)
    assert close(gaps_ms([down, *times(syncs)]), [0, 1000, 1000])
    hellos = p.frames(DEVICE, c.Hello, since=down)
    assert {s.t for s in syncs} <= {h.t for h in hellos}  # each SYNC answered at once
    p.drop = lambda s: False
    p.run_until(lambda: p.host.up, 1.1)


def test_sequence_numbers_wrap_at_65535_both_ways() -> None:
    p = Pair()
    p.device.sender.next_seq = 65534
    p.host.sender.next_seq = 65535
    p.handshake()
    assert p.frames(DEVICE, c.Hello)[0].message().next_seq == 65534  # type: ignore[attr-defined]
    for m in discards(4):
        p.device.emit(m)
    p.host.send(c.StartShuffle(), p.now)
    p.run(0.02)
    assert [s.frame.seq for s in p.events_sent()] == [65534, 65535, 0, 1]
    assert [e.seq for e in p.store.events] == [65534, 65535, 65536, 65537]  # unwrapped
    assert [s.frame.seq for s in p.commands_sent()] == [65535, 0]
    assert list(p.device.commands)[-1] == c.StartShuffle()
    assert p.frames(HOST)[-1].frame.ack == 1 and p.frames(DEVICE)[-1].frame.ack == 0


def _raw_frame(ftype: int, seq: int, ack: int, payload: bytes) -> bytes:
    body = bytes([1, ftype]) + seq.to_bytes(2, "little") + ack.to_bytes(2, "little") + payload
    body += crc16(body).to_bytes(2, "big")
    return bytes(cobs.encode(body)) + b"\x00"


def test_a_maximum_size_frame_is_accepted_and_one_byte_more_refused() -> None:
    p = Pair()
    p.handshake()
    biggest = _raw_frame(0x1F, 1, 1, bytes(range(1, 49)))  # 48-byte payload, an unknown event
    assert len(biggest) == 58  # §2.2: at most 58 bytes on the wire
    p.inject(biggest, DEVICE)
    p.run(0.002)
    [event] = p.store.events
    assert (event.seq, event.frame_type, len(event.payload)) == (1, 0x1F, 48)
    assert event.message is None  # published as `invalid`, its number kept
    assert p.frames(HOST, c.Ack)[-1].frame.ack == 1
    t0 = p.now
    p.inject(_raw_frame(0x1F, 2, 1, bytes(range(1, 50))), DEVICE)  # 49 bytes: 59 on the wire
    p.run(0.002)
    assert p.counters.bad_by_reason["too_long"] == 1 and len(p.store.events) == 1
    [nak] = p.frames(HOST, c.Nak, since=t0)
    assert nak.message() == c.Nak(2)
    assert Frame(0x1F, 0, 0, bytes(48))  # the codec's own bound agrees
