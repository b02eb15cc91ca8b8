"""The event intake against hostile and unlucky streams (a broker with no ACL): one message
never crashes anything, memory stays bounded, a forged boot or table cannot take over."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from firmware_bridge.messages import MAX_SEQ, Event
from table_service.live.consumer import (
    Conflict,
    Consumer,
    Delivery,
    Gap,
    Hole,
    StreamOrder,
    SuspectBoot,
)
from tests.live.kit import feed, keys

A, FORGED = 0xA1, 4242


def ev(seq: int, boot: int = A, table: str = "t1", count: int = 99, ts: float = 0.0) -> Event:
    return Event(
        table=table, boot_id=boot, seq=seq, ts=ts, body={"kind": "tiles_left", "count": count}
    )


GOOD: dict[str, Any] = json.loads(ev(1).model_dump_json())


def mutated(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


# --- one message never crashes anything ------------------------------------------------


def body(**fields: Any) -> str:
    return mutated(body=fields)


def ts(literal: str) -> str:
    return json.dumps(GOOD).replace('"ts": 0.0', f'"ts": {literal}')


FINITE = "ts: Input should be a finite number"
AT_MOST = "Input should be less than or equal to"
REFUSED: list[tuple[str | bytes, str]] = [
    (ts("NaN"), FINITE),
    (ts("Infinity"), FINITE),
    (ts("-Infinity"), FINITE),
    (ts("1e400"), FINITE),
    (mutated(seq=0), "seq: Input should be greater than or equal to 1"),
    (mutated(seq=MAX_SEQ + 1), f"seq: {AT_MOST} 9223372036854775807"),
    (mutated(seq=10**400), f"seq: {AT_MOST}"),
    (mutated(seq=1.5), "seq: Input should be a valid integer"),
    (mutated(boot_id=2**32), f"boot_id: {AT_MOST} 4294967295"),
    (mutated(table="t1/../../x"), "table: String should match pattern"),
    (mutated(table="x" * 33), "table: String should match pattern"),
    (body(kind="tiles_left", count=2**70), f"body.tiles_left.count: {AT_MOST} 144"),
    (body(kind="invalid", type=2**40, payload_hex="", error=""), f"body.invalid.type: {AT_MOST}"),
    (
        body(kind="invalid", type=1, payload_hex="ab" * 49, error=""),
        "body.invalid.payload_hex: String should have at most 96",
    ),
    (
        body(kind="invalid", type=1, payload_hex="zz", error=""),
        "body.invalid.payload_hex: String should match",
    ),
    (
        body(kind="invalid", type=1, payload_hex="", error="e" * 2001),
        "body.invalid.error: String should have at most 2000",
    ),
    (body(kind="seat_button", seat=0, button="w" * 50_000), "body.seat_button.button: Value"),
    ("[]", "payload: Input should be an object"),
    ("17", "payload: Input should be an object"),
    ("null", "payload: Input should be an object"),
    ('"t1"', "payload: Input should be an object"),
    (b"\xff\xfe{}", "payload: Invalid JSON"),
    ("[" * 100_000 + "]" * 100_000, "payload: 200000 bytes, more than 65536"),
    ("[" * 30_000 + "]" * 30_000, "payload: Invalid JSON: recursion limit exceeded"),
    ('{"a":' * 5_000 + "1" + "}" * 5_000, "payload: Invalid JSON: recursion limit exceeded"),
    (b"\x00" * 10_000_000, "payload: 10000000 bytes, more than 65536"),
    ("\ud800", "payload: "),  # a str no encoding can carry
]


@pytest.mark.parametrize(("payload", "says"), REFUSED)
def test_any_payload_is_refused_naming_the_field_and_why(payload: str | bytes, says: str) -> None:
    order = StreamOrder()
    step = order.receive(payload, 0.0, "t1")
    assert step.status == "invalid" and step.event is None and step.out == ()
    assert (step.error or "").startswith(says), step.error
    assert len(step.error or "") <= 200
    assert order.counts.invalid == 1 and order.tables == {}


def test_the_log_line_quotes_at_most_200_bytes_of_a_refused_payload(
    caplog: pytest.LogCaptureFixture,
) -> None:
    refused: list[str] = []
    consumer = Consumer("unused", base="mj", on_invalid=lambda t, p, e: refused.append(e))
    garbage = b"\x01" * 60_000
    with caplog.at_level(logging.WARNING, logger="table_service.live.consumer"):
        assert consumer.handle("mj/t1/event", garbage, now=0.0).status == "invalid"
        assert (
            consumer.handle("mj/" + "x" * 60_000 + "/event", garbage, now=0.0).status == "invalid"
        )
    assert len(refused) == 2
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all(len(line) < 1_500 for line in lines)
    assert lines[0].count("\\x01") == 200


def test_a_payload_as_text_or_bytes_reads_the_same() -> None:
    order = StreamOrder()
    assert order.receive(ev(1).model_dump_json(), 0.0).status == "new"
    assert order.receive(ev(2).model_dump_json().encode(), 0.0).status == "new"
    assert order.pointer("t1") == (A, 2)


# --- memory in proportion to a gap's two ends ---------------------------------------------


def test_the_largest_seq_first_is_a_hole_of_two_numbers_then_a_gap() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    assert order.offer(ev(MAX_SEQ), 0.0).out == ()
    assert order.holes() == [Hole("t1", A, 1, MAX_SEQ - 1, 0.0)]
    assert keys(order.expire(10.0)) == [Gap("t1", A, 1, MAX_SEQ - 1), (A, MAX_SEQ)]
    assert order.offer(ev(5), 11.0).status == "late"


def test_events_behind_a_hole_are_held_up_to_a_bound_then_deferred() -> None:
    order = StreamOrder(reorder_window=1.0, max_pending=10)
    statuses = [order.offer(ev(s), 0.0).status for s in [1, *range(3, 21)]]
    assert statuses == ["new"] * 11 + ["deferred"] * 8
    assert order.counts.deferred == 8
    assert order.holes() == [Hole("t1", A, 2, 2, 0.0)]
    assert keys(order.offer(ev(2), 0.5).out) == [(A, s) for s in range(2, 13)]
    # the deferred ones are known to exist: a hole to ask for, though nothing is held
    assert order.holes() == [Hole("t1", A, 13, 20, 0.5)]
    assert order.due_replays(1.5) == [("t1", (A, 12))]
    assert keys(feed(order, [ev(s) for s in range(13, 22)], now=1.6)) == [
        (A, s) for s in range(13, 22)
    ]
    assert order.holes() == []


def test_the_event_that_fills_the_hole_is_never_deferred() -> None:
    order = StreamOrder(max_pending=2)
    feed(order, [ev(2), ev(3)])
    assert order.offer(ev(4), 0.0).status == "deferred"
    step = order.offer(ev(1), 0.0)
    assert (step.status, keys(step.out)) == ("new", [(A, 1), (A, 2), (A, 3)])


# --- bounded tables ----------------------------------------------------------------------


def test_ten_thousand_new_tables_cost_nothing_and_the_real_one_is_followed() -> None:
    followed = {"t1"}
    order = StreamOrder(may_follow=followed.__contains__, max_waiting=256)
    out: list[Delivery] = []
    for n in range(10_000):
        step = order.offer(ev(1, table=f"x{n}"), float(n))
        assert step.status == "unfollowed" and step.out == ()
        out += order.offer(ev(n + 1), float(n)).out
    assert keys(out) == [(A, s) for s in range(1, 10_001)]
    assert list(order.tables) == ["t1"]
    waiting = order.waiting_tables()
    assert len(waiting) == 256 and waiting[-1].table == "x9999" and waiting[0].table == "x9744"
    assert order.counts.unfollowed == 10_000


def test_a_table_waiting_is_followed_later_from_its_boots_start() -> None:
    order = StreamOrder(reorder_window=1.0, may_follow=lambda table: False)
    for seq in (187, 188):
        assert order.offer(ev(seq, table="t2"), 0.0).status == "unfollowed"
    (heard,) = order.waiting_tables()
    assert (heard.table, heard.count, heard.boot_id, heard.seq) == ("t2", 2, A, 188)
    assert order.follow("t2", 1.0) == (A, 0)  # ask its boot from the start
    assert order.waiting_tables() == []
    assert order.follow("t2", 1.0) is None  # followed already
    out = feed(order, [ev(s, table="t2") for s in range(1, 4)], now=1.1)
    assert keys(out) == [(A, 1), (A, 2), (A, 3)]
    assert order.follow("t3", 2.0) is None  # never heard: nothing to ask, but followed
    assert order.offer(ev(1, table="t3"), 2.0).status == "new"


def test_a_table_heard_first_mid_boot_asks_for_that_boot_from_its_start() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    feed(order, [ev(188), ev(189)], now=0.0)
    assert order.holes() == [Hole("t1", A, 1, 187, 0.0)]
    assert order.due_replays(1.0) == [("t1", (A, 0))]
    out = feed(order, [ev(s) for s in range(1, 188)], now=1.5)
    assert keys(out) == [(A, s) for s in range(1, 190)]


# --- a boot from nowhere -----------------------------------------------------------------


def live_table_with_a_forger(order: StreamOrder, forged: list[int]) -> list[Delivery]:
    """A table playing an event every 0.5 s for 20 s; the forger's events at 2.25 s."""
    out: list[Delivery] = []
    for n in range(40):
        now = n * 0.5
        out += order.offer(ev(n + 1), now).out
        if n == 4:
            for seq in forged:
                assert order.offer(ev(seq, FORGED), now + 0.25).status == "new"
        out += order.expire(now + 0.25)
    return out


def test_a_forged_boot_from_seq_1_cannot_take_over_a_table_still_playing() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    out = live_table_with_a_forger(order, [1, 2, 3])
    suspects = [d for d in out if isinstance(d, SuspectBoot)]
    assert [d for d in keys(out) if not isinstance(d, SuspectBoot)] == [
        (A, s) for s in range(1, 41)
    ]
    assert suspects == [
        SuspectBoot("t1", FORGED, 1, 3, f"boot {A} kept advancing: it was not rebooted")
    ]
    assert order.counts.late == 0 and order.counts.suspect_boots == 1
    assert order.pointer("t1") == (A, 40)


def test_a_forged_boot_without_seq_1_is_dropped_and_reported_once() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    out = live_table_with_a_forger(order, [9000, 9001])
    (suspect,) = [d for d in out if isinstance(d, SuspectBoot)]
    assert (suspect.boot_id, suspect.first_seq, suspect.count) == (FORGED, 9000, 2)
    assert "seq 1 never came" in suspect.reason
    # it comes again: held again (a real boot could still earn the table), not reported again
    assert order.offer(ev(9002, FORGED), 20.5).status == "new"
    assert not any(isinstance(d, SuspectBoot) for d in order.expire(40.0))
    assert order.counts.suspect_boots == 1


def test_a_real_reboot_takes_over_once_the_old_boot_is_quiet() -> None:
    order = StreamOrder(gap_timeout=10.0, reorder_window=1.0)
    feed(order, [ev(1), ev(2)], now=0.0)
    assert order.offer(ev(1, FORGED), 3.0).out == ()  # the old boot is quiet since 0
    assert keys(order.expire(3.9)) == []
    assert keys(order.expire(4.0)) == [(FORGED, 1)]
    assert keys(feed(order, [ev(2, FORGED)], now=4.1)) == [(FORGED, 2)]
    assert order.offer(ev(3), 4.2).status == "late"  # the old boot's tail after the takeover


def test_a_newer_boot_holds_a_bounded_number_of_events_and_boots() -> None:
    order = StreamOrder(reorder_window=1.0, max_candidate=3)
    order.offer(ev(1), 0.0)
    statuses = [order.offer(ev(s, FORGED), 0.0).status for s in range(1, 6)]
    assert statuses == ["new"] * 3 + ["deferred"] * 2
    statuses = [order.offer(ev(1, boot), 0.0).status for boot in range(1, 11)]
    assert statuses == ["new"] * 7 + ["suspect"] * 3  # 8 newer boots wait at most


def test_after_a_takeover_the_deferred_events_of_the_new_boot_are_replayed() -> None:
    order = StreamOrder(reorder_window=1.0, max_candidate=2)
    order.offer(ev(1), 0.0)
    feed(order, [ev(s, FORGED) for s in range(1, 5)], now=0.5)
    assert keys(order.expire(1.5)) == [(FORGED, 1), (FORGED, 2)]
    assert order.holes() == [Hole("t1", FORGED, 3, 4, 1.5)]
    assert order.due_replays(2.5) == [("t1", (FORGED, 2))]


# --- conflicts ---------------------------------------------------------------------------


def test_a_key_delivered_again_with_other_content_is_a_conflict_reported_once() -> None:
    order = StreamOrder()
    feed(order, [ev(1), ev(2), ev(3)])
    forged = ev(2, count=3)
    step = order.offer(forged, 0.0)
    assert step.status == "conflict"
    assert step.conflict == Conflict("t1", A, 2, ev(2), forged)
    again = order.offer(ev(2, ts=5.0), 0.0)  # ts differs too: content, not only the body
    assert (again.status, again.conflict) == ("conflict", None)
    assert order.offer(ev(2), 0.0).status == "duplicate"
    assert (order.counts.conflicts, order.counts.duplicates) == (2, 1)


def test_a_held_event_is_compared_with_its_redelivery() -> None:
    order = StreamOrder()
    feed(order, [ev(1), ev(3)])
    step = order.offer(ev(3, count=7), 0.0)
    assert step.status == "conflict" and step.conflict is not None
    assert step.conflict.delivered == ev(3)
    assert keys(order.offer(ev(2), 0.0).out) == [(A, 2), (A, 3)]
    later = order.offer(ev(3, count=7), 0.0)  # delivered now; already reported
    assert (later.status, later.conflict) == ("conflict", None)


def test_the_content_kept_to_compare_is_bounded() -> None:
    order = StreamOrder(max_digests=4)
    feed(order, [ev(s) for s in range(1, 11)])
    assert order.offer(ev(6, count=1), 0.0).status == "duplicate"  # forgotten: can't tell
    assert order.offer(ev(7, count=1), 0.0).status == "conflict"
    assert len(order.tables["t1"].digests) == 4


def test_the_consumer_reports_a_conflict_with_both_events() -> None:
    found: list[tuple[object, ...]] = []
    consumer = Consumer(
        "unused", base="mj", on_conflict=lambda *args: found.append(args), on_event=None
    )
    for event in (ev(1), ev(1, count=5), ev(1, count=6)):
        consumer.handle("mj/t1/event", event.model_dump_json().encode(), now=0.0)
    assert found == [("t1", A, 1, ev(1), ev(1, count=5))]


# --- replay requests coalesced ------------------------------------------------------------


def test_no_replay_is_asked_again_while_the_last_one_makes_progress() -> None:
    order = StreamOrder(gap_timeout=100.0, reorder_window=1.0)
    feed(order, [ev(1), ev(50)], now=0.0)
    assert order.due_replays(1.0) == [("t1", (A, 1))]
    for n in range(2, 20):  # the replay trickles in, one every 0.5 s: no second request
        now = 1.0 + n * 0.5
        order.offer(ev(n), now)
        assert order.due_replays(now + 0.25) == []
    # it stalls: asked again (from the new point) once nothing came for a window
    assert order.due_replays(11.0) == []
    assert order.due_replays(11.5) == [("t1", (A, 19))]
    # nothing comes at all: asked with a doubling interval
    assert order.due_replays(12.5) == [("t1", (A, 19))]
    assert order.due_replays(13.5) == []
    assert order.due_replays(14.5) == [("t1", (A, 19))]


def test_reconnect_and_holes_share_one_limiter() -> None:
    order = StreamOrder(gap_timeout=100.0, reorder_window=1.0)
    feed(order, [ev(1), ev(3)], now=0.0)
    assert order.due_replays(1.0) == [("t1", (A, 1))]
    assert order.reconnected(1.5) == []  # asked 0.5 s ago: owed, not sent twice
    assert order.due_replays(1.9) == []
    assert order.due_replays(2.5) == [("t1", (A, 1))]  # the owed one, a window later
    assert order.reconnected(4.0) == [("t1", (A, 1))]


def test_a_bridge_back_online_is_asked_again_through_the_same_limiter() -> None:
    order = StreamOrder(gap_timeout=100.0, reorder_window=1.0)
    feed(order, [ev(1), ev(2)], now=0.0)
    assert order.reconnected(1.0) == [("t1", (A, 2))]  # the bridge was not yet listening
    assert order.bridge_back("t1", 1.5) is None  # within the window: owed …
    assert order.due_replays(2.0) == [("t1", (A, 2))]  # … and sent a window later
    assert order.bridge_back("t1", 5.0) == (A, 2)
    assert order.bridge_back("t9", 5.0) is None  # a table not followed


# --- backpressure --------------------------------------------------------------------------


def test_while_paused_nothing_is_held_and_unpause_asks_for_what_was_deferred() -> None:
    order = StreamOrder(reorder_window=1.0)
    feed(order, [ev(1), ev(2), ev(1, table="t2")])
    order.pause()
    assert [order.offer(ev(s), 0.5).status for s in (3, 4)] == ["deferred", "deferred"]
    assert order.offer(ev(2), 0.5).status == "duplicate"
    assert order.expire(100.0) == []  # nothing delivered, nothing given up while paused
    assert order.unpause(2.0) == [("t1", (A, 2))]  # t2 deferred nothing
    assert order.holes() == [Hole("t1", A, 3, 4, 2.0)]  # asked again if the replay is lost
    assert keys(feed(order, [ev(3), ev(4)], now=2.1)) == [(A, 3), (A, 4)]
    assert order.expire(50.0) == []


def test_unpause_within_a_window_of_an_ask_leaves_the_ask_owed() -> None:
    order = StreamOrder(reorder_window=1.0)
    feed(order, [ev(1), ev(3)], now=0.0)
    assert order.due_replays(1.0) == [("t1", (A, 1))]
    order.pause()
    order.offer(ev(4), 1.1)
    assert order.unpause(1.2) == []
    assert order.due_replays(2.0) == [("t1", (A, 1))]
