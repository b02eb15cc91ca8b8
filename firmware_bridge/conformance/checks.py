"""One check per rule of docs/protocol.md, each a short script against the device.

A check raises `Failed` naming the rule and what the device did instead; `Manual`
when it needs a hand on the board that this run does not have. Every check holds
whether the table is quiet or in play: the host's link acknowledges events all the
time (host.py), so a check judges only the frames its rule is about and lets the
table's own events pass; where a rule can only be seen on a quiet device (a HEARTBEAT
needs 1 s with nothing to send) a busy device is judged by what it does instead.
`since` names the page's section of a rule settled later (listed in §3.11): older
firmware may not follow it yet, and it fails like any other rule.
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
    HEARTBEAT,
    Failed,
    Received,
    ScriptedHost,
    check_interval,
    early_limit,
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
LADDER = (0.1, 0.2, 0.4, 0.8, 1.6, 2.0)  # §3.5: RTO 100 ms doubling to 2 s


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
    since: str | None = None  # the section of a rule the page settled later (§3.11)


def _hello(got: Received) -> c.Hello:
    message = got.message()
    assert isinstance(message, c.Hello)
    return message


def _ask(h: ScriptedHost, count: int, within: float = AT_ONCE) -> None:
    """`count` REQUEST_STATEs, each acknowledged at once: `count` events the device must send."""
    for _ in range(count):
        seq, sent = h.command(c.RequestState())
        h.expect_ack(seq, sent, within)


def seq_is(seq: int) -> Callable[[Received], bool]:
    return lambda r: r.sequenced and r.frame.seq == seq


def sent_after(seq: int, t: float) -> Callable[[Received], bool]:
    """A sending of `seq` that arrived after `t` (a resend has the same number)."""
    return lambda r: r.sequenced and r.frame.seq == seq and r.t > t


def _occurrences(h: ScriptedHost, seq: int, after: float = 0.0) -> list[Received]:
    return [r for r in list(h.seen) if r.frame.seq == seq and r.t > after]


def _no_state(h: ScriptedHost, since: float, duration: float, what: str) -> None:
    """Fail if a STATE arrives within `duration` of `since` (the table's events may)."""
    h.collect(max(0.0, since + duration - time.monotonic()))
    for r in list(h.seen):
        if r.t > since and r.type == c.State.TYPE:
            raise Failed(f"{what}: got {describe_frame(r.frame)}")


def _states(h: ScriptedHost, since: float, count: int, what: str) -> None:
    """Wait for `count` STATEs delivered in order after `since` (each within ANSWER)."""
    deadline = time.monotonic() + late_limit(ANSWER) * count
    while sum(r.t > since and r.type == c.State.TYPE for r in list(h.events)) < count:
        if time.monotonic() > deadline:
            raise Failed(f"expected {what} within {ANSWER * count:.0f} s: nothing came")
        h.collect(0.01)


def _index(frames: list[Received], got: Received) -> int:
    return next(i for i, r in enumerate(frames) if r is got)


def _timer_start(h: ScriptedHost, first: Received) -> float:
    """When the device's RTO timer for `first` started: its first sending, or the release
    our last ack made if that reached the device later (§3.5: a release restarts it)."""
    return max(first.t, h.last_ack_at)


# --- §2 framing ---------------------------------------------------------------------


def framing(h: ScriptedHost, board: Board) -> None:
    h.send_raw(b"\x00\x00\x00", "three empty runs (ignored)")
    hello = h.handshake()
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
    """HELLO at once on SYNC, again 500 ms later, nothing else meanwhile. One repeat is
    enough to time it: a playing device's queue fills while its HELLO waits (§3.8)."""
    h.new_session()
    h.answering = False
    first = h.sync()
    frames = h.collect(late_limit(0.5), until=is_type(c.Hello))
    others = [r for r in frames if r.type != c.Hello.TYPE]
    if others:
        raise Failed(
            "before WELCOME the device sends only HELLO (§3.8), got "
            + describe_frame(others[0].frame)
        )
    hellos = [first, *frames]
    if len(hellos) < 2:
        raise Failed("HELLO must repeat every 500 ms until WELCOME: no second HELLO")
    for a, b in itertools.pairwise(hellos):
        check_interval("HELLO repeat", b.t - a.t, 0.5)
        if _hello(a).boot_id != _hello(b).boot_id:
            raise Failed("repeated HELLOs must carry the same boot_id")
        if seq_diff(_hello(b).next_seq, _hello(a).next_seq) < 0:  # ahead: a full queue, §3.8
            raise Failed("a repeated HELLO's next_seq went back: nothing was acknowledged")
    h.welcome(hellos[-1])
    h.answering = True
    h.collect(0.05)
    seq, state = h.request_state()
    if state.frame.ack != seq:
        raise Failed(f"STATE with a wrong ack (command {seq}): {describe_frame(state.frame)}")


def double_handshake(h: ScriptedHost, board: Board) -> None:
    """A late second WELCOME (answer to a repeated HELLO) must not rewind the command count."""
    h.handshake()
    seq, _ = h.request_state()
    h.send(c.Welcome(1, c.HelloResult.ACCEPTED, seq), seq=0)  # stale: sent before seq was
    _, sent = h.command(c.RequestState(), seq=seq)  # its retransmission: the ACK was lost
    h.expect_ack(seq, sent)
    _no_state(
        h,
        sent,
        0.3,
        f"command {seq} ran twice: a WELCOME while the link is up rewound the device's "
        "expected command number (§3.8: only its ack applies)",
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
    h.expect_state(sent)


# --- §3.4 receiving -----------------------------------------------------------------


def duplicates(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    seq, _ = h.request_state()
    _, sent = h.command(c.RequestState(), seq=seq)
    h.expect(
        f"ACK {seq} again for the duplicate (§3.4)",
        lambda r: r.type != c.Hello.TYPE and r.frame.ack == seq,
        AT_ONCE,
        since=sent,
    )
    _no_state(h, sent, 0.3, f"duplicate command {seq} was acted on (§3.4: drop it)")


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
    _no_state(h, sent, 0.1, "a command past a gap was delivered (§3.4: drop it)")
    closed = time.monotonic()
    for seq in (n, seq_add(n, 1)):
        _, sent = h.command(c.RequestState(), seq=seq)
        h.expect_ack(seq, sent)
    h.next_command = seq_add(n, 2)
    _states(h, closed, 2, "two STATEs once the gap closed")


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
    """With acks held at `a`, the device sends a+1..a+8 and no more; an ack opens it at once."""
    h.handshake()
    a = h.hold()
    _ask(h, 10)  # at least 10 events to send, whether the table plays or not
    h.collect(0.05)
    sent_seqs = sorted(
        {d for r in h.since_hold() if (d := seq_diff(r.frame.seq, a)) > 0 and r.type < 0x40}
    )
    if sent_seqs != list(range(1, 9)):
        raise Failed(
            f"acks held at {a}, 10 events to send: events a+{sent_seqs} were sent; the window "
            "is 8 (§3.5)"
        )
    sent = h.ack_events(seq_add(a, 2))
    for k in (9, 10):
        want = seq_add(a, k)
        h.expect(f"event {want} once the ack opened the window", seq_is(want), AT_ONCE, since=sent)
    h.release()


def retransmission(h: ScriptedHost, board: Board) -> None:
    """Acks held: the oldest outstanding event is resent at 100, 200, … 2000 ms with all
    the outstanding after it (go-back-N). A resend has the same seq; the table's new
    events do not count. A queue that fills meanwhile (§3.8: HELLO) ends the ladder."""
    h.handshake()
    a = h.hold()
    e = seq_add(a, 1)
    _ask(h, 3)
    first = h.first_sending(e)
    start = _timer_start(h, first)
    deadline = start + sum(late_limit(x) for x in LADDER)
    cut: Received | None = None
    while time.monotonic() < deadline and len(_occurrences(h, e, first.t)) < len(LADDER):
        for r in h.collect(0.05):
            if r.type == c.Hello.TYPE and _hello(r).boot_id == h.boot_id:
                cut = r  # the queue filled: the link answered, the session starts over
        if cut is not None:
            break
    end = cut.t if cut is not None else deadline
    resends = [r for r in _occurrences(h, e, first.t) if r.t < end]
    previous = start
    seen = h.since_hold()
    for i, (got, nominal) in enumerate(zip(resends, LADDER, strict=False)):
        check_interval(f"resend {i + 1} (RTO)", got.t - previous, nominal)
        index = _index(seen, got)
        outstanding = {d for r in seen[:index] if 0 < (d := seq_diff(r.frame.seq, a)) <= 8}
        k = max(outstanding, default=1)
        burst = [r.frame.seq for r in seen[index:] if r.type < 0x40][:k]
        want = [seq_add(e, j) for j in range(k)]
        if burst != want:
            raise Failed(f"go-back-N resends all {k} outstanding oldest first, {want}: got {burst}")
        previous = got.t
    due, elapsed = 0, start
    for nominal in LADDER:
        elapsed += late_limit(nominal)
        due += elapsed <= end
    if len(resends) < due:
        raise Failed(
            f"event {e} resent {len(resends)} times in {(end - start) * 1000:.0f} ms without an "
            f"ack; RTO 100 ms doubling to 2 s makes it {due}"
        )
    if cut is not None:
        h.note(
            f"the device's queue filled {(end - start) * 1000:.0f} ms into the RTO ladder "
            f"(HELLO, §3.8): {len(resends)} resends judged"
        )
        h.release()
        return
    sent = h.ack_events(e)
    e1 = seq_add(e, 1)
    nxt = h.expect(
        f"resend of {e1} 100 ms after an ack released {e}",
        lambda r: r.sequenced and r.frame.seq == e1 and r.t > sent + 0.02,
        0.1,
        since=sent,
    )
    check_interval("RTO after an ack released something", nxt.t - sent, 0.1)
    if _occurrences(h, e, sent + 0.02):
        raise Failed(f"event {e} was resent after the ack released it")
    h.release()


def nak(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    a = h.hold()
    e, e1, e2 = seq_add(a, 1), seq_add(a, 2), seq_add(a, 3)
    _ask(h, 3)
    h.first_sending(e2)
    last = 0.0
    first_nak = time.monotonic()
    for n in (1, 2):  # the second NAK comes within 20 ms of the first resend: no guard
        sent = h.send(c.Nak(e1))
        got = h.expect(
            f"resend of {e1} at once on NAK {n} (§3.5: every NAK is answered)",
            sent_after(e1, sent),
            AT_ONCE,
            since=sent,
        )
        h.collect(0.002)
        seen = h.since_hold()
        burst = [r.frame.seq for r in seen[_index(seen, got) :] if r.type < 0x40][:2]
        if burst != [e1, e2]:
            raise Failed(f"NAK({e1}) must resend {e1}, {e2} oldest first: got {burst}")
        last = got.t
    later = h.expect(
        "timeout resend 100 ms after the last NAK resend",
        lambda r: r.sequenced and r.frame.seq == e1 and r.t > last + 0.05,
        0.1,
        since=last,
    )
    check_interval("RTO after a NAK resend (restarted, not doubled)", later.t - last, 0.1)
    if _occurrences(h, e, after=first_nak):
        raise Failed(f"NAK({e1}) releases {e}; it was resent")
    h.release()


# --- §3.7 heartbeat and link loss ---------------------------------------------------

OBSERVE = 2.6  # long enough for two HEARTBEATs from an idle device


def heartbeat(h: ScriptedHost, board: Board) -> None:
    """§3.7 says when a HEARTBEAT is due: after 1 s with nothing sent. Watched for 2.6 s,
    the device may never be silent longer than that; every frame is liveness; a HEARTBEAT
    must end 1 s of silence (not come sooner) and carry the last event and command."""
    h.handshake()
    seq, _ = h.request_state()
    h.collect(0.02)
    previous = h.last_rx
    beats = 0
    for got in h.collect(OBSERVE):
        gap = got.t - previous
        if gap < 0:
            continue  # arrived before the watch began
        if gap > late_limit(HEARTBEAT):
            raise Failed(
                f"the device sent nothing for {gap * 1000:.0f} ms: a HEARTBEAT is due after "
                f"1 s without sending (accepted up to {late_limit(HEARTBEAT) * 1000:.0f} ms)"
            )
        if got.type == c.Heartbeat.TYPE:
            beats += 1
            if gap < early_limit(HEARTBEAT):
                raise Failed(
                    f"HEARTBEAT {gap * 1000:.0f} ms after the device's previous frame: it is "
                    f"sent after 1 s without sending (accepted from "
                    f"{early_limit(HEARTBEAT) * 1000:.0f} ms)"
                )
            last_event = _last_event_before(h, got.t)
            if (got.frame.seq, got.frame.ack) != (last_event, seq):
                raise Failed(
                    f"HEARTBEAT must carry seq = last event sent ({last_event}) and ack = last "
                    f"command delivered ({seq}): {describe_frame(got.frame)}"
                )
        previous = got.t
    gap = time.monotonic() - previous
    if gap > late_limit(HEARTBEAT):
        raise Failed(f"the device sent nothing for {gap * 1000:.0f} ms: no HEARTBEAT after 1 s")
    if not beats:
        h.note("the device was never idle for 1 s: no HEARTBEAT was due, liveness judged")


def _last_event_before(h: ScriptedHost, t: float) -> int:
    best: int | None = None
    for r in list(h.seen):
        if r.t < t and r.type < 0x40 and (best is None or seq_diff(r.frame.seq, best) > 0):
            best = r.frame.seq
    return 0 if best is None else best


def link_down(h: ScriptedHost, board: Board) -> None:
    h.handshake()
    a = h.hold()
    e = seq_add(a, 1)
    _ask(h, 2)
    h.first_sending(seq_add(e, 1))
    last_command = seq_add(h.next_command, -1)
    h.silence()  # the host sends nothing: the link is down for the device after 3.5 s
    start = time.monotonic()
    frames = h.collect(4.0)
    full: c.Hello | None = None  # a HELLO for a full queue (§3.8) is the one it may send
    for r in frames:
        if r.type != c.Hello.TYPE:
            continue
        message = _hello(r)
        if message.boot_id != h.boot_id or seq_diff(message.next_seq, e) <= 0:
            raise Failed(
                "the device must not start a handshake by itself when the link is down "
                f"(only a full queue sends HELLO, naming the new oldest event): {message}"
            )
        full = message
    if full is None and not _occurrences(h, e, after=start + 1.5):
        raise Failed(f"the device stopped retransmitting event {e} while the link was down")
    hello = h.sync()
    message = _hello(hello)
    if message.boot_id != h.boot_id:
        raise Failed(f"HELLO after SYNC must keep the boot_id {h.boot_id}: {message}")
    if full is None and message.next_seq != e:
        raise Failed(f"HELLO after SYNC must announce event {e}, the oldest unacked: {message}")
    if full is not None and seq_diff(message.next_seq, full.next_seq) < 0:
        raise Failed(f"HELLO after SYNC went back before the full queue's HELLO: {message}")
    if hello.frame.ack != last_command:
        raise Failed(f"HELLO's ack must be the last command delivered ({last_command}) (§3.3)")
    # WELCOME acks the oldest announced event if it was ever sent (a full queue may announce
    # one it discarded unsent: an ack of it would be beyond the last sent, ignored, §3.5)
    n = message.next_seq
    ack = n if any(r.frame.seq == n for r in h.since_hold()) else seq_add(n, -1)
    sent = h.welcome(hello, next_command=h.next_command, ack=ack)
    want = seq_add(ack, 1)
    got = h.expect(
        f"resend from {want} at once after WELCOME(ack {ack})",
        lambda r: r.sequenced,
        AT_ONCE,
        since=sent,
    )
    h.release()
    h.answering = True
    if got.frame.seq != want and not _announced(h, hello.t, want, got.frame.seq):
        raise Failed(f"after WELCOME ack {ack} the device resent {got.frame.seq}, not {want}")
    h.request_state()


def _announced(h: ScriptedHost, since: float, first: int, resent: int) -> bool:
    """A device still playing may have dropped `first` from its full queue after its HELLO:
    then a HELLO must announce the loss (§3.8: never a silent gap)."""
    if seq_diff(resent, first) <= 0:
        return False
    hello = h.hello_since(since + 0.001)
    return hello is not None and seq_diff(_hello(hello).next_seq, first) > 0


def queue_full(h: ScriptedHost, board: Board) -> None:
    """§3.8: a full queue never makes a silent gap (hold, or drop oldest and say so in HELLO)."""
    h.handshake()
    h.hold()
    held = time.monotonic()
    lost_before = len(h.lost)
    wanted = 72
    _ask(h, wanted, ANSWER)  # a full queue's HELLO may come meanwhile: the link answers it
    h.release()
    deadline = time.monotonic() + 15.0
    while True:
        states = sum(r.type == c.State.TYPE and r.t > held for r in list(h.events))
        announced = sum(loss.count for loss in h.lost[lost_before:])
        if states + announced >= wanted:
            return
        if time.monotonic() > deadline:
            raise Failed(
                f"{wanted} STATEs asked for without acks, {states} delivered, {announced} "
                f"events announced lost: a silent gap at {h.expected_event}"
            )
        h.collect(0.03)


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
        sent = h.send_raw(data, what)
        got = h.expect(f"NAK({n}) after a {what} frame (§3.6)", nak_for(n), AT_ONCE, since=sent)
        # the next case after the device's NAK rate limit (§3.4: one per 50 ms) is over
        _no_state(h, sent, got.t + 0.06 - sent, f"a {what} frame was acted on")
    h.send_frame(Frame(c.RequestState.TYPE, n, h.acked, b"", version=2))
    h.quiet(
        0.1,
        "a version 2 frame was acted on or acknowledged (§3.6: drop it)",
        lambda r: r.type == c.State.TYPE or seq_diff(r.frame.ack, n) >= 0,
    )
    sent = time.monotonic()
    for frame in (Frame(0x0F, seq_add(n, -1), h.acked), Frame(0x80, seq_add(n, -1), h.acked)):
        h.send_frame(frame)
    _no_state(h, sent, 0.1, "an unknown control type was not ignored")
    h.request_state()


def wrong_direction(h: ScriptedHost, board: Board) -> None:
    """§3.6: a control frame of the wrong length or direction is ignored whole, its ack too."""
    h.handshake()
    a = h.hold()
    e = seq_add(a, 1)
    _ask(h, 1)
    first = h.first_sending(e)
    start = _timer_start(h, first)
    hello = c.Hello(1, 1, 0, 0, 1, 0xDEAD, 1)
    h.send(hello, seq=0, ack=e)  # device → host type, echoed back
    h.send_frame(Frame(c.Nak.TYPE, 0, e, b"\x05"))  # NAK with 1 byte
    h.send_frame(Frame(c.Heartbeat.TYPE, 0, e, b"\x00\x00\x00"))  # HEARTBEAT with 3 bytes
    h.send_frame(Frame(0x0F, 0, e, b""))  # unknown control type
    resend = h.expect(
        f"resend of {e} at RTO: the ack {e} in ignored frames must not release it",
        lambda r: r.sequenced and r.frame.seq == e and r.t > first.t,
        0.1,
        since=start,
    )
    check_interval("RTO", resend.t - start, 0.1)
    h.release()


def _refusal(h: ScriptedHost, seq: int, ftype: int, reason: int, sent: float) -> None:
    got = h.expect_event(
        f"COMMAND_REFUSED for command {seq} (§6.14)", lambda r: r.type == COMMAND_REFUSED, sent
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
        sent = h.send_frame(Frame(ftype, seq, h.acked, payload))
        h.expect_ack(seq, sent)  # sequenced: acknowledged like any command (§3.6)
        _refusal(h, seq, ftype, reason, sent)


def version(h: ScriptedHost, board: Board) -> None:
    h.new_session()
    h.answering = False
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
    h.answering = False
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
    if _hello(again).boot_id != message.boot_id:
        raise Failed(f"the repeated HELLO changed the boot_id: {describe_frame(again.frame)}")
    h.hold()
    h.welcome(again)
    h.release()
    h.answering = True
    h.request_state()
    first = h.since_hold()[0]
    if first.frame.seq != _hello(again).next_seq:
        raise Failed(
            f"the first event after the reset is number {_hello(again).next_seq} (HELLO's "
            f"next_seq): got {first.frame.seq}"
        )


CHECKS: tuple[Check, ...] = (
    Check("framing", "§2", "COBS, CRC, version; empty runs ignored; HELLO on SYNC", framing),
    Check("handshake", "§3.8", "HELLO every 500 ms and nothing else until WELCOME", handshake),
    Check(
        "double_handshake",
        "§3.8",
        "a late WELCOME while up does not rewind commands",
        double_handshake,
        "§3.8",
    ),
    Check("commands", "§7", "every command acknowledged within 10 ms; STATE answers", commands),
    Check("duplicates", "§3.4", "a duplicate command is acked again, not run", duplicates),
    Check("gaps", "§3.4", "a gap is NAKed once per 50 ms and closed in order", gaps),
    Check("tail", "§3.2", "a heartbeat's seq reveals a lost last command", tail),
    Check("wrap", "§3.2", "command numbers wrap 65535 → 0", wrap),
    Check("window", "§3.5", "at most 8 events outstanding; an ack opens the window", window),
    Check("retransmission", "§3.5", "RTO 100 ms doubling to 2 s, go-back-N", retransmission),
    Check("nak", "§3.5", "every NAK resends at once; the timer restarts", nak, "§3.5"),
    Check("heartbeat", "§3.7", "HEARTBEAT after 1 s without sending, with the numbers", heartbeat),
    Check("link_down", "§3.7", "keeps queue and timer; SYNC resumes the same boot", link_down),
    Check("queue_full", "§3.8", "a full queue never causes a silent gap", queue_full, "§3.8"),
    Check("malformed", "§2.1, §3.6", "bad frames dropped and NAKed", malformed),
    Check(
        "wrong_direction",
        "§3.6",
        "wrong-length and wrong-direction control frames ignored",
        wrong_direction,
        "§3.3, §3.6",
    ),
    Check("refused", "§3.6, §6.14", "a refused command is acked and reported", refused, "§3.6"),
    Check("reboot", "§3.2, §3.8", "a reset: new boot_id, numbering from 1", reboot),
    # last: a device that follows only the old rule stays silent after it until reset
    Check("version", "§3.8", "WELCOME(result 1) silences the device until SYNC", version, "§3.8"),
)
BY_NAME: dict[str, Check] = {check.name: check for check in CHECKS}
