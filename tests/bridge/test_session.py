"""The link's rules of docs/protocol.md §3 (errors §3.6, handshake §3.8, command outcomes
§3.10), frame by frame: each shown on the wire (fake clock)."""

from __future__ import annotations

from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.catalogue import Message, RefusalReason, to_frame
from firmware_bridge.protocol.device_session import DeviceSession
from firmware_bridge.protocol.frame import Frame, encode_frame

from .kit_wire import DEVICE, HOST, Pair, is_event


def test_a_welcome_while_welcomed_applies_only_its_ack() -> None:
    p = Pair()
    p.handshake()
    p.host.send(c.RequestState(), p.now)
    p.run(0.01)
    seq = p.commands_sent()[-1].frame.seq
    assert list(p.device.commands).count(c.RequestState()) == 1
    stale = to_frame(c.Welcome(1, c.HelloResult.ACCEPTED, seq), 0, 0)  # rewinds to `seq`
    p.inject(encode_frame(stale), HOST)
    p.inject(encode_frame(to_frame(c.RequestState(), seq, 0)), HOST)  # its retransmission
    p.run(0.01)
    assert list(p.device.commands).count(c.RequestState()) == 1  # not run twice
    assert p.device.receiver.expected == (seq + 1) % 65536
    assert p.frames(DEVICE)[-1].frame.ack == seq  # the duplicate acknowledged again


def test_control_frames_of_wrong_length_or_direction_release_nothing() -> None:
    p = Pair()
    p.hold_one_event(c.TilesLeft(70))
    for frame in (
        to_frame(c.Hello(1, 1, 0, 0, 1, 0xDEAD, 1), 0, 1),  # device → host type, echoed
        Frame(c.Nak.TYPE, 0, 1, b"\x05"),  # NAK of 1 byte
        Frame(c.Heartbeat.TYPE, 0, 1, b"\x00\x00\x00"),  # HEARTBEAT of 3 bytes
        Frame(0x0F, 0, 1, b""),  # unknown control type
    ):
        p.inject(encode_frame(frame), HOST)
    assert [s for s, _ in p.device.sender.outstanding] == [1]
    assert p.device.errors["malformed"] == 3 and p.device.errors["unknown_type"] == 1


def test_a_command_the_device_cannot_take_is_acknowledged_and_refused() -> None:
    p = Pair()
    p.handshake()
    n = p.host.sender.next_seq
    cases = [
        (c.SeatLed.TYPE, b"\x02", RefusalReason.BAD_PAYLOAD),
        (c.TileDrawn.TYPE, b"\x02\x25\x00", RefusalReason.WRONG_DIRECTION),
        (0x46, b"", RefusalReason.UNKNOWN_TYPE),
    ]
    for i, (ftype, payload, _) in enumerate(cases):
        p.inject(encode_frame(Frame(ftype, n + i, 0, payload)), HOST)
        p.run(0.002)
        assert p.frames(DEVICE)[-1].frame.ack == n + i  # acknowledged (§3.6)
    assert not any(isinstance(m, c.SeatLed | c.TileDrawn) for m in p.device.commands)
    refusals = [e.message for e in p.store.events]
    assert refusals == [c.CommandRefused(n + i, t, r) for i, (t, _, r) in enumerate(cases)]


def test_a_full_device_queue_drops_the_oldest_and_announces_it() -> None:
    p = Pair(queue_limit=4)
    p.handshake()
    p.drop = is_event
    for m in [c.TilesLeft(i) for i in range(4)]:
        p.device.emit(m)
    p.run(0.005)
    t0 = p.now
    p.device.emit(c.TilesLeft(4))  # one more than it holds: event 1 goes
    assert p.device.errors["queue_full"] == 1 and not p.device.welcomed
    p.drop = lambda s: False
    p.run(0.6)
    [hello] = p.frames(DEVICE, c.Hello, since=t0)
    assert hello.message().next_seq == 2  # type: ignore[attr-defined]
    before = p.frames(DEVICE, c.Hello)[-2]  # the handshake's: 500 ms apart at least (§3.8)
    assert hello.t - before.t >= 0.5
    assert [(e.seq, e.message) for e in p.store.events] == [
        (i + 1, c.TilesLeft(i)) for i in range(1, 5)
    ]
    assert ("lost", "boot 176: events 1..1 lost by the controller (discarded before the host "
            "stored them)") in p.errors  # fmt: skip


def test_commands_keep_their_numbers_across_a_same_boot_handshake() -> None:
    p = Pair()
    seq = p.hold_one_command(c.StartShuffle(), "t1").frame.seq
    p.host.resync(p.now)  # a re-handshake while START_SHUFFLE is outstanding
    p.drop = lambda s: False
    p.run(0.02)
    welcome = p.frames(HOST, c.Welcome)[-1]
    assert welcome.message().next_seq == seq  # type: ignore[attr-defined]
    after = [s for s in p.commands_sent(welcome.t) if s.type == c.StartShuffle.TYPE]
    assert [s.frame.seq for s in after] == [seq] and after[0].t == welcome.t  # resent at once
    assert list(p.device.commands).count(c.StartShuffle()) == 1
    assert ("t1", "done", "") in p.outcomes
    p.host.send(c.RaiseWall(), p.now)
    p.run(0.005)
    assert p.commands_sent()[-1].frame.seq > seq  # numbering continues


def test_a_reboot_makes_outstanding_commands_unknown_and_keeps_the_waiting() -> None:
    p = Pair()
    p.handshake()
    p.drop = lambda s: s.way == HOST and 0x40 <= s.type <= 0x7F
    for i in range(9):  # 8 go out (the window), 1 waits
        p.host.send(c.SeatLed(i % 4, c.LedMode.TURN), p.now, tag=f"t{i}")
    p.run(0.005)
    p.host.receive(b"", p.now)
    p.new_device(0xB1)  # reset: the commands in flight may or may not have run
    p.drop = lambda s: False
    p.run(0.05)
    assert sorted(str(t) for t, o, _ in p.outcomes if o == "unknown") == [f"t{i}" for i in range(8)]
    reboot = [d for r, d in p.errors if r == "reboot"]
    assert reboot == [
        "controller rebooted: boot 176 → 177; none it had sent is lost, and events it had not "
        "sent yet cannot be known (protocol §3.2)"
    ]
    welcome = p.frames(HOST, c.Welcome)[-1]
    assert welcome.message().next_seq == 10  # type: ignore[attr-defined]
    waiting = c.SeatLed(0, c.LedMode.TURN)  # t8
    assert p.device.commands[0] == waiting
    assert ("t8", "done", "") in p.outcomes


def test_the_host_ignores_the_ack_of_sync_and_welcome() -> None:
    p = Pair()
    p.handshake()
    p.drop = lambda s: s.way == HOST and s.type == c.StartShuffle.TYPE
    p.host.send(c.StartShuffle(), p.now, tag="s")
    p.run(0.005)
    seq = p.commands_sent()[-1].frame.seq
    for message in (c.Welcome(1, c.HelloResult.ACCEPTED, 1), c.Sync()):
        p.inject(encode_frame(to_frame(message, 0, seq)), DEVICE)  # an echo of the host's own
    p.run(0.001)
    assert p.host.sender.outstanding and not p.outcomes
    assert p.counters.bad_by_reason["malformed"] == 2


def test_a_hello_from_another_table_gets_no_welcome() -> None:
    p = Pair(controller_id=7, table_id=12)
    p.run(1.2)
    assert p.host.info.state == "wrong_table" and p.host.info.controller_table_id == 12
    assert p.frames(DEVICE, c.Hello) and not p.frames(HOST, c.Welcome)
    assert [r for r, _ in p.errors] == ["wrong_table"]  # reported once, not every HELLO


class _NotNow(DeviceSession):
    """A table busy shuffling: it refuses RAISE_WALL (NOT_NOW), as its firmware would."""

    def _deliver(
        self, frame: Frame, message: Message | None, error: str | None, now: float
    ) -> None:
        if isinstance(message, c.RaiseWall):
            self.refuse(frame.seq, frame.type, RefusalReason.NOT_NOW)
        else:
            super()._deliver(frame, message, error, now)


def test_command_outcomes_done_and_refused() -> None:
    p = Pair()
    p.device = _NotNow(p.boot_id, now=0.0)
    p.handshake()
    p.host.send(c.StartShuffle(), p.now, tag="a")
    p.host.send(c.RaiseWall(), p.now, tag="b")
    p.run(0.01)
    assert ("a", "done", "") in p.outcomes and ("b", "refused", "not_now") in p.outcomes


def test_events_are_not_acknowledged_when_the_store_fails() -> None:
    p = Pair()
    p.handshake()
    p.store.fail = True
    p.device.emit(c.TilesLeft(9))
    p.run(0.05)
    assert p.device.sender.outstanding and all(s.frame.ack == 0 for s in p.frames(HOST)[-3:])
    p.store.fail = False
    p.run(0.3)  # the device's timer resends; now stored and acknowledged
    assert [e.seq for e in p.store.events] == [1] and not p.device.sender.outstanding
