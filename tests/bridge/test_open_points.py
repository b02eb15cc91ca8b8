"""The settled points of docs/protocol.md (§3 "Settled points"), one test each, on both ends.

Each test drives the device session and/or the host session on a fake clock and fails if
the settled behaviour regresses.
"""

from __future__ import annotations

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import RefusalReason, to_frame
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.frame import Frame, FrameDecoder, encode_frame

from .kit_wire import DEVICE, HOST, Pair, gaps_ms


def frames(data: bytes) -> list[Frame]:
    return [f for f in FrameDecoder().feed(data) if isinstance(f, Frame)]


def welcome(result: int = 0, next_seq: int = 1, ack: int = 0, version: int = 1) -> bytes:
    message = c.Welcome(version, c.HelloResult(result), next_seq)
    return encode_frame(to_frame(message, 0, ack))


def sync() -> bytes:
    return encode_frame(to_frame(c.Sync(), 0, 0))


def held(device: DeviceSession) -> int:
    return len(device.sender.outstanding) + len(device.sender.waiting)


def up_device(queue_limit: int | None = None) -> DeviceSession:
    device = DeviceSession(boot_id=7, queue_limit=queue_limit)
    device.poll(0.0)
    device.receive(welcome(), 0.0)
    device.poll(0.0)
    return device


# --- 1. §3.2/§3.5: "last sent" is the highest number transmitted ----------------------------


def test_link_frames_carry_the_highest_number_transmitted_not_one_only_taken() -> None:
    """A number taken by an event discarded unsent was never sent: no link frame names it."""
    device = DeviceSession(boot_id=7, queue_limit=2)
    device.poll(0.0)
    for i in range(3):  # event 1 is discarded unsent; its number is taken (§3.8)
        device.emit(c.TilesLeft(i))
    assert (device.sender.next_seq, device.sender.last_sent) == (2, 0)
    tail = encode_frame(to_frame(c.Heartbeat(0), 5, 1))  # the host says it sent command 5
    device.receive(welcome(ack=1) + tail, 0.6)
    [nak] = frames(device.take_output())  # NAK(1) for the lost tail, before any event went
    assert (nak.type, nak.seq, c.from_frame(nak)) == (c.Nak.TYPE, 0, c.Nak(1))
    sent = frames(device.poll(0.6))
    assert [f.seq for f in sent] == [2, 3] and device.sender.last_sent == 3


def test_the_host_names_its_highest_command_sent_and_ignores_an_ack_beyond_it() -> None:
    p = Pair()
    p.handshake()
    p.drop = lambda s: s.way == HOST and 0x40 <= s.type <= 0x7F
    for i in range(12):  # 8 go out (the window), 4 wait unnumbered
        p.host.send(c.SeatLed(i % 4, c.LedMode.TURN), p.now)
    p.run(0.5)
    highest = max(s.frame.seq for s in p.commands_sent())
    assert p.host.sender.last_sent == highest and p.host.sender.waiting
    t0 = p.now
    p.inject(encode_frame(Frame(c.TilesLeft.TYPE, 9, 0, b"\x01")), DEVICE)  # a gap: NAK
    p.run(0.001)
    [nak] = p.frames(HOST, c.Nak, since=t0)
    assert nak.frame.seq == highest
    before = list(p.host.sender.outstanding)
    p.inject(encode_frame(to_frame(c.Ack(), 0, (highest + 1) % 65536)), DEVICE)
    assert list(p.host.sender.outstanding) == before  # §3.5: beyond the last sent, ignored


# --- 2. §3.7: a full queue ends the device's session too ----------------------------------


def test_a_full_queue_ends_the_session_even_while_the_link_is_down() -> None:
    p = Pair(queue_limit=2)
    p.handshake()
    p.drop = lambda s: s.way == HOST  # the host falls silent: the device sees the link down
    p.run(4.0)
    assert p.device.silent(p.now) and p.device.welcomed  # silence ends nothing (§3.7)
    t0 = p.now
    for i in range(3):
        p.device.emit(c.TilesLeft(i))
    assert not p.device.welcomed and not p.device.up  # the full queue ended it
    p.run(0.002)
    assert [s.message().next_seq for s in p.frames(DEVICE, c.Hello, since=t0)] == [2]
    p.drop = lambda s: False
    p.inject(encode_frame(to_frame(c.StartShuffle(), p.host.sender.next_seq, 0)), HOST)
    assert c.StartShuffle() not in p.device.commands  # no session: not delivered
    p.run_until(lambda: p.device.welcomed, 2.0)
    p.run(0.05)
    assert [e.message for e in p.store.events] == [c.TilesLeft(1), c.TilesLeft(2)]
    assert any(r == "lost" and "events 1..1" in d for r, d in p.errors)


# --- 3. WELCOME result 1 while welcomed: it stops the device, its ack never applies --------


def test_a_refusal_while_welcomed_ends_the_session_and_releases_nothing() -> None:
    p = Pair()
    p.hold_one_event(c.TilesLeft(5))
    p.inject(welcome(result=1, ack=1), HOST)
    assert p.device.rejected and not p.device.welcomed
    assert [s for s, _ in p.device.sender.outstanding] == [1]  # its ack was not applied
    t0 = p.now
    p.drop = lambda s: False
    p.host.send(c.StartShuffle(), p.now)
    p.run(1.0)
    assert c.StartShuffle() not in p.device.commands  # silenced: no session, not run
    assert not p.frames(DEVICE, since=t0)  # and it sends nothing
    p.run_until(lambda: p.device.welcomed, 5.0)  # the host's silence timer, then SYNC
    p.run(0.05)
    assert list(p.device.commands).count(c.StartShuffle()) == 1
    assert [(e.seq, e.message) for e in p.store.events][-1] == (1, c.TilesLeft(5))


# --- 4. while silenced: WELCOME result 0 is ignored, a full queue sends no HELLO -------------


def test_while_silenced_only_a_sync_counts_and_the_hello_after_it_names_the_loss() -> None:
    device = up_device(queue_limit=2)
    device.emit(c.TilesLeft(1))
    assert [f.seq for f in frames(device.poll(0.01))] == [1]
    device.receive(welcome(result=1), 0.02)
    device.receive(welcome(ack=1), 0.03)  # answers no HELLO since: ignored, ack included
    assert [s for s, _ in device.sender.outstanding] == [1]
    assert (device.welcomed, device.rejected) == (False, True)
    device.emit(c.TilesLeft(2))
    device.emit(c.TilesLeft(3))  # full: event 1 goes; no HELLO while silenced
    assert device.errors["queue_full"] == 1
    assert device.poll(0.04) == b"" and device.poll(1.0) == b"" and device.poll(3.0) == b""
    device.receive(sync(), 3.1)
    [hello] = frames(device.poll(3.1))
    assert c.from_frame(hello) == c.Hello(1, 1, 0, 0, 1, 7, 2)  # the new oldest: 1 is lost


# --- 5. §3.8: STATE and COMMAND_REFUSED make room; one HELLO per 500 ms ----------------------


def test_a_refusal_into_a_full_queue_makes_room_like_any_event() -> None:
    device = up_device(queue_limit=2)
    device.emit(c.TilesLeft(1))
    device.emit(c.TilesLeft(2))
    device.poll(0.01)
    device.receive(encode_frame(Frame(0x46, 1, 0, b"")), 0.02)  # unknown command 1
    assert held(device) == 2 and device.errors["queue_full"] == 1
    assert list(device.sender.waiting) == [c.CommandRefused(1, 0x46, RefusalReason.UNKNOWN_TYPE)]
    assert not device.welcomed  # the discard ended the session: HELLO follows (§3.8)


def test_a_host_that_never_stores_draws_one_hello_per_500_ms() -> None:
    p = Pair(queue_limit=4)
    p.handshake()
    p.store.fail = True  # nothing is ever acknowledged
    t0 = p.now
    for i in range(150):  # an event every 20 ms for 3 s into a full queue
        p.device.emit(c.TilesLeft(i % 145))
        assert held(p.device) <= 4
        p.run(0.02)
    hellos = p.frames(DEVICE, c.Hello, since=t0)
    assert len(hellos) >= 4 and min(gaps_ms([s.t for s in hellos])) >= 500
    assert p.device.errors["queue_full"] > 100
    assert any(r == "lost" for r, _ in p.errors)  # every discard is announced
    p.store.fail = False
    p.run(1.5)
    assert p.store.events and p.device.idle  # and the link recovers once the host stores


# --- 6. §3.3: the ack of an echoed sequenced frame is not applied -------------------------


def test_an_echoed_event_releases_nothing_on_the_device() -> None:
    p = Pair()
    p.hold_one_event(c.TilesLeft(5))
    [sent] = p.events_sent()
    echo = Frame(sent.frame.type, sent.frame.seq, 1, sent.frame.payload)  # ack 1 = its own seq
    p.inject(encode_frame(echo), HOST)
    assert [s for s, _ in p.device.sender.outstanding] == [1]


def test_an_echoed_command_releases_nothing_on_the_host() -> None:
    p = Pair()
    sent = p.hold_one_command(c.StartShuffle(), "s")
    echo = Frame(sent.frame.type, sent.frame.seq, sent.frame.seq, sent.frame.payload)
    p.inject(encode_frame(echo), DEVICE)
    assert [s for s, _ in p.host.sender.outstanding] == [sent.frame.seq] and not p.outcomes


# --- 7. §3.7: a frame §3.6 ignores is not a valid frame for link loss -----------------------


IGNORED_AT_HOST = [
    Frame(c.Heartbeat.TYPE, 0, 0, b"\x00\x00\x00"),  # wrong length
    Frame(0x0F, 0, 0, b""),  # unknown control type
    to_frame(c.Welcome(1, c.HelloResult.ACCEPTED, 1), 0, 0),  # wrong direction
]


def test_frames_the_host_ignores_do_not_keep_its_link_up() -> None:
    p = Pair()
    p.handshake()
    p.drop = lambda s: s.way == DEVICE
    for i in range(8):
        p.inject(encode_frame(IGNORED_AT_HOST[i % 3]), DEVICE)
        p.run(0.5)
    assert p.host.info.state == "down"
    assert p.counters.bad_by_reason["malformed"] >= 5


def test_frames_the_device_ignores_do_not_keep_its_link_up() -> None:
    device = up_device()
    ignored = [
        to_frame(c.Hello(1, 1, 0, 0, 1, 7, 1), 0, 0),  # wrong direction
        Frame(c.Nak.TYPE, 0, 0, b"\x01"),  # wrong length
        to_frame(c.Welcome(2, c.HelloResult.ACCEPTED, 1), 0, 0),  # malformed (§5.2)
    ]
    for i in range(8):
        device.receive(encode_frame(ignored[i % 3]), i * 0.5)
    assert device.silent(3.6)
    device.receive(encode_frame(to_frame(c.Heartbeat(0), 0, 0)), 3.7)
    assert not device.silent(3.7)


# --- 8. §5.2: WELCOME result ≥ 2, or result 0 with another version, is malformed ----------


def test_a_welcome_of_an_unknown_result_or_accepting_another_version_is_ignored() -> None:
    device = DeviceSession(boot_id=7)
    device.emit(c.TilesLeft(1))
    device.poll(0.0)
    bad_result = encode_frame(Frame(c.Welcome.TYPE, 0, 1, b"\x01\x02\x01\x00"))  # result 2
    device.receive(bad_result + welcome(version=2, ack=1), 0.1)
    assert device.errors["malformed"] == 2
    assert (device.welcomed, device.rejected) == (False, False)
    assert device.poll(0.2) == b""  # nothing but HELLO, and that every 500 ms
    assert [f.type for f in frames(device.poll(0.5))] == [c.Hello.TYPE]
    device.receive(welcome(), 0.6)
    assert device.welcomed and [f.seq for f in frames(device.poll(0.6))] == [1]


def test_the_host_welcomes_only_with_result_0_and_version_1_or_result_1() -> None:
    p = Pair()
    p.handshake()
    p.device = DeviceSession(0xB7, protocol_version=2, now=p.now)
    p.host.resync(p.now)
    p.run(1.2)
    sent = [s.message() for s in p.frames(HOST, c.Welcome)]
    assert c.Welcome(1, c.HelloResult.ACCEPTED, 1) in sent
    assert c.Welcome(1, c.HelloResult.VERSION_UNSUPPORTED, 1) in sent
    assert all(isinstance(w, c.Welcome) and w.protocol_version == 1 for w in sent)
