"""One check per rule of docs/protocol.md, each a short script against the device.

A check raises `Failed` naming the rule and what the device did instead; `Manual`
when it needs a hand on the board that this run does not have. `since` marks rules
settled in issue 11 that older firmware may not follow yet: they fail like any other rule.
"""

from __future__ import annotations

import itertools
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass

from cobs import cobs  # type: ignore[import-untyped]

from firmware_bridge.conformance.host import (
    ANSWER,
    AT_ONCE,
    Failed,
    Received,
    ScriptedHost,
    check_interval,
    is_type,
    late_limit,
    nak_for,
    seq_add,
)
from firmware_bridge.conformance.wire import describe_frame
from firmware_bridge.protocol import catalogue as c
from firmware_bridge.protocol.frame import Frame, encode_frame, seq_diff

COMMAND_REFUSED = 0x1E  # event, §6.14: seq u16, type u8, reason u8
REFUSED = struct.Struct("<HBB")
REASON_UNKNOWN_TYPE, REASON_WRONG_DIRECTION, REASON_BAD_PAYLOAD = 1, 2, 3


class Manual(Exception):
    """The check needs an action on the board (a reset) that this run cannot do."""


@dataclass(frozen=True, slots=True)
class Board:
    """What the run can do to the device besides talking to it.

    `reboot` resets it (the simulator's hook, or a prompt to a person); None makes the
    checks that need a reset `manual`. `reboot_within` is how long to wait for its HELLO.
    """

    reboot: Callable[[], None] | None = None
    reboot_within: float = 2.0


Run = Callable[[ScriptedHost, Board], None]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    section: str
    title: str
    run: Run
    since: str | None = None  # "issue 11": a rule settled there


def _hello(got: Received) -> c.Hello:
    message = got.message()
    assert isinstance(message, c.Hello)
    return message


def _events_from(h: ScriptedHost, first: int, count: int) -> None:
    """Ask for `count` STATE events (REQUEST_STATE each, acked at once), acking none."""
    for _ in range(count):
        seq, sent = h.command(c.RequestState())
        h.expect_ack(seq, sent)
    last = seq_add(first, count - 1)
    if not _occurrences(h, last):
        h.expect(f"first sending of event {last}", lambda r: r.frame.seq == last, ANSWER)


def seq_is(seq: int) -> Callable[[Received], bool]:
    return lambda r: r.frame.seq == seq


def _occurrences(h: ScriptedHost, seq: int, after: float = 0.0) -> list[Received]:
    return [r for r in h.seen if r.frame.seq == seq and r.t > after]


# --- §2 framing ---------------------------------------------------------------------


def framing(h: ScriptedHost, board: Board) -> None:
    h.wire.send_raw(b"\x00\x00\x00", note="three empty runs (ignored)")
    hello = h.sync()
    message = _hello(hello)
    if hello.frame.seq != 0:
        raise Failed(f"HELLO must carry seq 0 (§3.2), got {hello.frame.seq}")
    if message.protocol_version != 1:
        raise Failed(f"HELLO protocol_version must be 1, got {message.protocol_version}")
    h.collect(0.1)
    if h.errors:
        raise Failed(f"device sent runs that are not valid frames: {h.errors[:3]}")


# --- §3.8 handshake -----------------------------------------------------------------


def handshake(h: ScriptedHost, board: Board) -> None:
    first = h.sync()
    frames = h.collect(1.2)
    others = [r for r in frames if r.type != c.Hello.TYPE]
    if others:
        raise Failed(
            "before WELCOME the device sends only HELLO (§3.8), got "
            + describe_frame(others[0].frame)
        )
    hellos = [first, *frames]
    if len(hellos) < 3:
        raise Failed(f"HELLO must repeat every 500 ms until WELCOME: {len(hellos)} in 1.2 s")
    for a, b in itertools.pairwise(hellos):
        check_interval("HELLO repeat", b.t - a.t, 0.5)
        if (_hello(a).boot_id, _hello(a).next_seq) != (_hello(b).boot_id, _hello(b).next_seq):
            raise Failed("repeated HELLOs must carry the same boot_id and next_seq")
    h.welcome(hellos[-1])
    h.settle()
    _, state = h.request_state()
    if state.frame.seq != h.events[-1].frame.seq or state.frame.ack != seq_add(h.next_command, -1):
        raise Failed(f"STATE out of order or with a wrong ack: {describe_frame(state.frame)}")


def double_handshake(h: ScriptedHost, board: Board) -> None:
    """A late second WELCOME (answer to a repeated HELLO) must not rewind the command count."""
    hello = h.sync()
    h.welcome(hello)
    h.settle()
    seq, _ = h.request_state()
    h.ack_events()
    h.send(c.Welcome(1, c.HelloResult.ACCEPTED, seq), seq=0)  # stale: sent before seq was
    _, sent = h.command(c.RequestState(), seq=seq)  # its retransmission: the ACK was lost
    h.expect_ack(seq, sent)
    h.quiet(
        0.3,
        f"command {seq} ran twice: a WELCOME while the link is up rewound the device's "
        "expected command number (§3.8: only its ack applies)",
        is_type(c.State),
    )


# --- §7 commands, §3.3 acknowledgement ----------------------------------------------


def commands(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    every = [
        c.StartShuffle(),
        c.RaiseWall(),
        c.SeatLed(2, c.LedMode.TURN),
        c.SeatLed(0xFF, c.LedMode.OFF),
        c.Alert(1, c.AlertCode.OUT_OF_TURN, 2),
        c.TimeSync(int(time.time() * 1000)),
        c.RequestState(),
    ]
    for message in every:
        seq, sent = h.command(message)
        h.expect_ack(seq, sent)
    state = h.expect_state(sent)
    h.settle()
    if state not in h.events:
        raise Failed(f"STATE was not the next event in order: {describe_frame(state.frame)}")


# --- §3.4 receiving -----------------------------------------------------------------


def duplicates(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    seq, _ = h.request_state()
    h.ack_events()
    _, sent = h.command(c.RequestState(), seq=seq)
    h.expect(
        f"ACK {seq} again for the duplicate (§3.4)",
        lambda r: r.frame.ack == seq,
        AT_ONCE,
        since=sent,
    )
    h.quiet(0.3, f"duplicate command {seq} was acted on (§3.4: drop it)", is_type(c.State))


def gaps(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    n = h.next_command
    _, sent = h.command(c.RequestState(), seq=seq_add(n, 1))
    nak = h.expect(
        f"NAK({n}) for command {seq_add(n, 1)} past a gap", nak_for(n), AT_ONCE, since=sent
    )
    h.command(c.RequestState(), seq=seq_add(n, 1))
    window = nak.t + 0.045 - time.monotonic()
    if window > 0:
        h.quiet(window, f"a second NAK({n}) within 50 ms (§3.4)", nak_for(n))
    h.quiet(0.1, "a command past a gap was delivered (§3.4: drop it)", is_type(c.State))
    for seq in (n, seq_add(n, 1)):
        _, sent = h.command(c.RequestState(), seq=seq)
        h.expect_ack(seq, sent)
    h.next_command = seq_add(n, 2)
    h.expect("first STATE after the gap closed", is_type(c.State), ANSWER)
    h.expect("second STATE after the gap closed", is_type(c.State), ANSWER)


def tail(h: ScriptedHost, board: Board) -> None:
    """§3.2: an unsequenced frame's seq tells of a lost last command."""
    h.handshake()
    n = h.next_command
    sent = h.send(c.Heartbeat(0), seq=n)
    h.expect(f"NAK({n}): the heartbeat says command {n} was sent", nak_for(n), AT_ONCE, since=sent)


def wrap(h: ScriptedHost, board: Board) -> None:
    """§3.2: command numbers wrap 65535 → 0, compared in serial arithmetic."""
    h.handshake(next_command=65534)
    for _ in range(4):
        seq, state = h.request_state()
        if state.frame.ack != seq:
            raise Failed(f"STATE after command {seq} acks {state.frame.ack}")


# --- §3.5 sending -------------------------------------------------------------------


def window(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    e = h.expected_event
    for _ in range(10):
        seq, sent = h.command(c.RequestState())
        h.expect_ack(seq, sent)
    h.collect(0.03)
    sent_seqs = sorted({d for r in h.seen if (d := seq_diff(r.frame.seq, e)) >= 0})
    if sent_seqs != list(range(8)):
        raise Failed(f"with nothing acknowledged, events e+{sent_seqs} were sent: the window is 8")
    sent = time.monotonic()
    h.ack_events(seq_add(e, 1))
    for k in (8, 9):
        want = seq_add(e, k)
        h.expect(
            f"event {want} once the ack opened the window",
            seq_is(want),
            AT_ONCE,
            since=sent,
        )
    h.settle()


def retransmission(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    e = h.expected_event
    _events_from(h, e, 3)
    t0 = _occurrences(h, e)[0].t
    deadline = t0 + late_limit(0.1 + 0.2 + 0.4 + 0.8 + 1.6 + 2.0)
    while time.monotonic() < deadline:
        h.collect(min(0.5, max(0.0, deadline - time.monotonic())))
        h.send(c.Heartbeat(0))  # a live host that acknowledges nothing
    resends = _occurrences(h, e)[1:]
    previous = t0
    for i, (got, nominal) in enumerate(zip(resends, (0.1, 0.2, 0.4, 0.8, 1.6, 2.0), strict=False)):
        check_interval(f"resend {i + 1} (RTO)", got.t - previous, nominal)
        burst = [r.frame.seq for r in h.seen if r.t >= got.t][:3]
        if burst != [e, seq_add(e, 1), seq_add(e, 2)]:
            raise Failed(f"go-back-N resends all outstanding oldest first: got {burst}")
        previous = got.t
    if len(resends) < 6:
        raise Failed(f"event {e} resent {len(resends)} times in 5.1 s; RTO 100 ms doubling to 2 s")
    sent = time.monotonic()
    h.ack_events(e)
    nxt = h.expect(
        f"resend from {seq_add(e, 1)} 100 ms after a partial ack",
        lambda r: 0x10 <= r.type <= 0x3F,
        0.1,
        since=sent,
    )
    if nxt.frame.seq != seq_add(e, 1):
        raise Failed(f"after ack {e} the resend must start at {seq_add(e, 1)}: got {nxt.frame.seq}")
    check_interval("RTO after an ack released something", nxt.t - sent, 0.1)
    h.settle()


def nak(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    e = h.expected_event
    e1, e2 = seq_add(e, 1), seq_add(e, 2)
    _events_from(h, e, 3)
    last = 0.0
    first_nak = time.monotonic()
    for n in (1, 2):  # the second NAK comes within 20 ms of the first resend: no guard
        sent = h.send(c.Nak(e1))
        got = h.expect(f"resend of {e1} at once on NAK {n} (§3.5: every NAK is answered)",
                       seq_is(e1), AT_ONCE, since=sent)  # fmt: skip
        h.collect(0.002)
        burst = [r.frame.seq for r in h.seen if r.t >= got.t][:2]
        if burst != [e1, e2]:
            raise Failed(f"NAK({e1}) must resend {e1}, {e2} oldest first: got {burst}")
        last = got.t
    later = h.expect(
        "timeout resend 100 ms after the last NAK resend",
        lambda r: r.frame.seq == e1 and r.t > last + 0.05,
        0.1,
        since=last,
    )
    check_interval("RTO after a NAK resend (restarted, not doubled)", later.t - last, 0.1)
    if _occurrences(h, e, after=first_nak):
        raise Failed(f"NAK({e1}) releases {e}; it was resent")
    h.settle()


# --- §3.7 heartbeat and link loss ---------------------------------------------------


def heartbeat(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    seq, state = h.request_state()
    h.ack_events()
    h.collect(0.05)
    quiet_since = h.last_rx
    beat = h.expect("HEARTBEAT after 1 s idle", is_type(c.Heartbeat), 1.0, since=quiet_since)
    check_interval("heartbeat after idle", beat.t - quiet_since, 1.0)
    if (beat.frame.seq, beat.frame.ack) != (state.frame.seq, seq):
        raise Failed(
            f"HEARTBEAT must carry seq = last event sent ({state.frame.seq}) and ack = last "
            f"command delivered ({seq}): {describe_frame(beat.frame)}"
        )
    again = h.expect("second HEARTBEAT", is_type(c.Heartbeat), 1.0, since=beat.t)
    check_interval("heartbeat repeat", again.t - beat.t, 1.0)


def link_down(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    e = h.expected_event
    _events_from(h, e, 2)
    last_command = seq_add(h.next_command, -1)
    start = time.monotonic()
    frames = h.collect(4.0)  # the host is silent: the link is down for the device (3.5 s)
    if any(r.type == c.Hello.TYPE for r in frames):
        raise Failed("the device must not start a handshake by itself when the link is down")
    if not _occurrences(h, e, after=start + 1.5):
        raise Failed(f"the device stopped retransmitting event {e} while the link was down")
    hello = h.sync()
    message = _hello(hello)
    if message.boot_id != h.boot_id or message.next_seq != e:
        raise Failed(f"HELLO after SYNC must keep boot_id and announce {e}: {message}")
    if hello.frame.ack != last_command:
        raise Failed(f"HELLO's ack must be the last command delivered ({last_command}) (§3.3)")
    h.welcome(hello, next_command=h.next_command, ack=e)
    got = h.expect(
        f"resend from {seq_add(e, 1)} at once after WELCOME(ack {e})",
        lambda r: 0x10 <= r.type <= 0x3F,
        AT_ONCE,
    )
    if got.frame.seq != seq_add(e, 1):
        raise Failed(f"after WELCOME ack {e} the device resent {got.frame.seq}")
    h.settle()
    h.request_state()


def queue_full(h: ScriptedHost, board: Board) -> None:
    """§3.8: a full queue never makes a silent gap (hold, or drop oldest and say so in HELLO)."""
    h.handshake()
    e = h.expected_event
    wanted = 72
    for _ in range(wanted):
        seq, sent = h.command(c.RequestState())
        h.expect_ack(seq, sent)
    announced = 0
    deadline = time.monotonic() + 15.0
    while len([r for r in h.events if seq_diff(r.frame.seq, e) >= 0]) + announced < wanted:
        if time.monotonic() > deadline:
            got = len([r for r in h.events if seq_diff(r.frame.seq, e) >= 0])
            raise Failed(
                f"{wanted} events asked for, {got} delivered, {announced} announced lost: a "
                f"silent gap at {h.expected_event}"
            )
        for r in h.collect(0.03):
            if r.type == c.Hello.TYPE:
                message = _hello(r)
                if message.boot_id != h.boot_id:
                    raise Failed("the device reset while its queue was full")
                announced += max(0, seq_diff(message.next_seq, h.expected_event))
                h.welcome(r, next_command=h.next_command, ack=seq_add(message.next_seq, -1))
        h.ack_events()


# --- §2, §3.6 errors ----------------------------------------------------------------


def malformed(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    n = h.next_command
    good = encode_frame(Frame(c.RequestState.TYPE, n, h.acked))
    body = cobs.decode(good[:-1])
    bad_crc = cobs.encode(body[:-1] + bytes([body[-1] ^ 0xFF])) + b"\x00"
    cases = [
        ("bad CRC", bad_crc),
        ("bad COBS", b"\x05\x01\x02\x00"),
        ("too short", cobs.encode(b"\x01\x44\x00") + b"\x00"),
        ("too long", b"\x01" * 70 + b"\x00"),
    ]
    for what, data in cases:
        sent = h.wire.send_raw(data, note=what)
        h.expect(f"NAK({n}) after a {what} frame (§3.6)", nak_for(n), AT_ONCE, since=sent)
        h.quiet(0.06, f"a {what} frame was acted on", is_type(c.State))
    v2 = Frame(c.RequestState.TYPE, n, h.acked, b"", version=2)
    h.wire.send(v2)
    h.quiet(
        0.1,
        "a version 2 frame was acted on or acknowledged (§3.6: drop it)",
        lambda r: r.type == c.State.TYPE or seq_diff(r.frame.ack, n) >= 0,
    )
    ignored = [Frame(0x0F, seq_add(n, -1), h.acked), Frame(0x80, seq_add(n, -1), h.acked)]
    for frame in ignored:
        h.wire.send(frame)
    h.quiet(0.1, "an unknown control type was not ignored", is_type(c.State))
    h.request_state()


def wrong_direction(h: ScriptedHost, board: Board) -> None:
    """§3.6: a control frame of the wrong length or direction is ignored whole, its ack too."""
    h.handshake()
    e = h.expected_event
    _events_from(h, e, 1)
    t0 = _occurrences(h, e)[0].t
    hello = c.Hello(1, 1, 0, 0, 1, 0xDEAD, 1)
    h.send(hello, seq=0, ack=e)  # device → host type, echoed back
    h.wire.send(Frame(c.Nak.TYPE, 0, e, b"\x05"))  # NAK with 1 byte
    h.wire.send(Frame(c.Heartbeat.TYPE, 0, e, b"\x00\x00\x00"))  # HEARTBEAT with 3 bytes
    h.wire.send(Frame(0x0F, 0, e, b""))  # unknown control type
    resend = h.expect(
        f"resend of {e} at RTO: the ack {e} in ignored frames must not release it",
        lambda r: r.frame.seq == e and r.t > t0,
        0.1,
        since=t0,
    )
    check_interval("RTO", resend.t - t0, 0.1)
    h.settle()


def _refusal(h: ScriptedHost, seq: int, ftype: int, reason: int) -> None:
    got = h.expect(
        f"COMMAND_REFUSED for command {seq} (§6.14)", lambda r: r.type == COMMAND_REFUSED, ANSWER
    )
    if len(got.frame.payload) != REFUSED.size:
        raise Failed(f"COMMAND_REFUSED payload is 4 bytes: {got.frame.payload.hex(' ')}")
    fields = REFUSED.unpack(got.frame.payload)
    if fields != (seq, ftype, reason):
        raise Failed(
            f"COMMAND_REFUSED must be (seq {seq}, type 0x{ftype:02X}, reason {reason}): "
            f"got {fields}"
        )


def refused(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    cases = [
        (c.SeatLed.TYPE, b"\x02", REASON_BAD_PAYLOAD),
        (c.TileDrawn.TYPE, b"\x02\x25\x00", REASON_WRONG_DIRECTION),
        (0x46, b"", REASON_UNKNOWN_TYPE),
    ]
    for ftype, payload, reason in cases:
        seq = h.next_command
        h.next_command = seq_add(seq, 1)
        sent = h.wire.send(Frame(ftype, seq, h.acked, payload))
        h.expect_ack(seq, sent)  # sequenced: acknowledged like any command (§3.6)
        _refusal(h, seq, ftype, reason)
        h.ack_events()


def version(h: ScriptedHost, board: Board) -> None:
    h.sync()
    h.send(c.Welcome(1, c.HelloResult.VERSION_UNSUPPORTED, 1), seq=0, ack=0)
    h.quiet(
        1.2, "after WELCOME(result 1) the device sends nothing until SYNC (§3.8)", lambda r: True
    )
    h.handshake()
    h.request_state()


def reboot(h: ScriptedHost, board: Board) -> None:
    if board.reboot is None:
        raise Manual(
            "reset the board: run `mjtable link-test --only reboot --reboot-prompt`, press "
            "reset when asked; expect a HELLO with a new boot_id, next_seq 1, ack 0"
        )
    h.handshake()
    old = h.boot_id
    sent = time.monotonic()
    board.reboot()
    hello = h.expect(
        "HELLO with a new boot_id after the reset",
        lambda r: r.type == c.Hello.TYPE and _hello(r).boot_id != old,
        board.reboot_within,
        since=sent,
    )
    message = _hello(hello)
    if message.next_seq != 1 or hello.frame.ack != 0:
        raise Failed(f"after a reset HELLO has next_seq 1 and ack 0: {describe_frame(hello.frame)}")
    again = h.expect("the HELLO repeated 500 ms later", is_type(c.Hello), 0.5, since=hello.t)
    check_interval("HELLO repeat after reset", again.t - hello.t, 0.5)
    h.welcome(again)
    _, state = h.request_state()
    if state.frame.seq != 1:
        raise Failed(f"the first event after a reset is number 1: got {state.frame.seq}")


CHECKS: tuple[Check, ...] = (
    Check("framing", "§2", "COBS, CRC, version; empty runs ignored; HELLO on SYNC", framing),
    Check("handshake", "§3.8", "HELLO every 500 ms and nothing else until WELCOME", handshake),
    Check(
        "double_handshake",
        "§3.8",
        "a late WELCOME while up does not rewind commands",
        double_handshake,
        "issue 11",
    ),
    Check("commands", "§7", "every command acknowledged within 10 ms; STATE answers", commands),
    Check("duplicates", "§3.4", "a duplicate command is acked again, not run", duplicates),
    Check("gaps", "§3.4", "a gap is NAKed once per 50 ms and closed in order", gaps),
    Check("tail", "§3.2", "a heartbeat's seq reveals a lost last command", tail),
    Check("wrap", "§3.2", "command numbers wrap 65535 → 0", wrap),
    Check("window", "§3.5", "at most 8 events outstanding", window),
    Check("retransmission", "§3.5", "RTO 100 ms doubling to 2 s, go-back-N", retransmission),
    Check("nak", "§3.5", "every NAK resends at once; the timer restarts", nak, "issue 11"),
    Check("heartbeat", "§3.7", "HEARTBEAT after 1 s idle with the right numbers", heartbeat),
    Check("link_down", "§3.7", "keeps queue and timer; SYNC resumes the same boot", link_down),
    Check("queue_full", "§3.8", "a full queue never causes a silent gap", queue_full, "issue 11"),
    Check("malformed", "§2.1, §3.6", "bad frames dropped and NAKed", malformed),
    Check(
        "wrong_direction",
        "§3.6",
        "wrong-length and wrong-direction control frames ignored",
        wrong_direction,
        "issue 11",
    ),
    Check("refused", "§3.6, §6.14", "a refused command is acked and reported", refused, "issue 11"),
    Check("reboot", "§3.2, §3.8", "a reset: new boot_id, numbering from 1", reboot),
    # last: a device that follows only the old rule stays silent after it until reset
    Check(
        "version", "§3.8", "WELCOME(result 1) silences the device until SYNC", version, "issue 11"
    ),
)
BY_NAME: dict[str, Check] = {check.name: check for check in CHECKS}
