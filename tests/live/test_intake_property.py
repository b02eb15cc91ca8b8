"""A property of the intake: whatever is thrown at it between a real table's events (random
bytes, random JSON, real events mutated), nothing raises and the real events all come
out, in order, exactly once."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from firmware_bridge.messages import EVENT_BODY, Event
from table_service.live.consumer import Consumer, StreamOrder

TOPIC = "mj/t1/event"
BODIES: list[dict[str, Any]] = [
    {"kind": "shuffle_started"},
    {"kind": "tile_drawn", "seat": 1, "tile": 37, "end": "front"},
    {"kind": "meld_exposed", "seat": 3, "meld": "pong", "from_seat": 2, "tiles": [8, 9, 10]},
    {"kind": "tiles_left", "count": 99},
    {"kind": "invalid", "type": 33, "payload_hex": "0a0b", "error": "too short"},
]


def real(seq: int) -> Event:
    body = EVENT_BODY.validate_python(BODIES[seq % len(BODIES)])
    return Event(table="t1", boot_id=7, seq=seq, ts=1767225600.0 + seq, body=body)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats()  # NaN and ±inf included
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
weird = json_values | st.sampled_from([2**63, 2**64, -1, 0, 10**400, float("nan"), float("inf")])


@st.composite
def mutant(draw: st.DrawFn) -> bytes:
    """A real event's JSON with a field (of the envelope or the body) deleted or replaced."""
    data: dict[str, Any] = json.loads(real(draw(st.integers(1, 40))).model_dump_json())
    for _ in range(draw(st.integers(1, 3))):
        body = data.get("body")
        where = body if isinstance(body, dict) and body and draw(st.booleans()) else data
        if not where:
            break
        name = draw(st.sampled_from(sorted(where)))
        if draw(st.booleans()):
            del where[name]
        else:
            where[name] = draw(weird)
    text = json.dumps(data)  # NaN and Infinity written as JSON's extensions
    text = text.replace(str(10**400), "1e400")  # a number no float can be
    return text.encode()


@st.composite
def forged(draw: st.DrawFn) -> bytes:
    """A real event with another, valid, time: a forgery, if it were of the real table."""
    event = real(draw(st.integers(1, 40)))
    ts = draw(st.floats(0, 2e9))
    return event.model_copy(update={"ts": ts}).model_dump_json().encode()


garbage = st.one_of(
    forged(),
    st.binary(max_size=200),
    st.text(max_size=200).map(str.encode),
    json_values.map(lambda v: json.dumps(v).encode()),
    mutant(),
    st.integers(1, 5_000).map(lambda depth: b"[" * depth + b"]" * depth),
)


def harmless(payload: bytes) -> bytes:
    """Garbage that happens to be a valid event of the real table goes to another one: an
    event valid in every field at a real key is a forgery (see the conflict tests)."""
    try:
        event = Event.model_validate_json(payload)
    except (ValidationError, ValueError):
        return payload
    return event.model_copy(update={"table": "t2"}).model_dump_json().encode()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.integers(1, 40),
    noise=st.lists(st.tuples(st.integers(0, 60), garbage), max_size=30),
    again=st.lists(st.integers(1, 40), max_size=10),
    data=st.data(),
)
def test_garbage_between_real_events_changes_nothing_of_them(
    count: int, noise: list[tuple[int, bytes]], again: list[int], data: st.DataObject
) -> None:
    events = [real(s) for s in range(1, count + 1)]
    arrivals = data.draw(st.permutations(events)) + [real(s) for s in again if s <= count]
    payloads = [e.model_dump_json().encode() for e in arrivals]
    for at, junk in sorted(noise, key=lambda n: n[0], reverse=True):
        payloads.insert(min(at, len(payloads)), harmless(junk))
    out: list[Event] = []
    consumer = Consumer("unused", base="mj", on_event=out.append, reorder_window=1.0)
    for n, payload in enumerate(payloads):
        step = consumer.handle(TOPIC, payload, now=n * 0.01)
        assert not (step.error or "").startswith("internal"), step.error
    assert [e.key for e in out] == [e.key for e in events]
    assert out == events
    assert consumer.callback_errors == 0
    assert consumer.order.counts.gaps == 0


@settings(max_examples=200, deadline=None)
@given(payload=garbage)
def test_any_payload_at_all_is_a_step_never_an_exception(payload: bytes) -> None:
    order = StreamOrder()
    step = order.receive(payload, 0.0, "t1")
    assert step.status in ("new", "invalid")
    if step.status == "invalid":
        assert step.error and len(step.error) <= 200 and ":" in step.error
    order.expire(100.0)
    order.due_replays(100.0)
