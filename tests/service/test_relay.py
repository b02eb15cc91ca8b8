"""The relay: another service process's tables, as this process's pages get them."""

from __future__ import annotations

import json

import pytest

from table_service.service.relay import Relay

STATE = {"table": "t2", "hand": None, "seats": []}


def test_a_state_of_another_processs_table_goes_to_the_pages_and_is_kept() -> None:
    relay = Relay("clubs/east/mjtable")  # a base of several levels
    assert relay.topic() == "clubs/east/mjtable/+/service/+"
    text = json.dumps(STATE)
    relayed = relay.hear("clubs/east/mjtable/t2/service/state", text.encode(), followed=set())
    assert relayed is not None
    assert (relayed.table, relayed.kind) == ("t2", "state")
    assert json.loads(relayed.text) == {"type": "state", "table": "t2", "state": STATE}
    assert relay.state("t2") == STATE
    assert relay.states(ours=set()) == [STATE]
    assert relay.states(ours={"t2"}) == []  # a table that came here meanwhile
    relay.forget()
    assert relay.state("t2") is None and relay.states(set()) == []


@pytest.mark.parametrize("kind", ["violation", "fault", "hand"])
def test_a_record_goes_as_the_owners_pages_have_it(kind: str) -> None:
    record = {"seat": 1, "code": "out_of_turn"}
    relayed = Relay("m").hear(f"m/t1/service/{kind}", json.dumps(record).encode(), set())
    assert relayed is not None and relayed.kind == kind
    assert json.loads(relayed.text) == {"type": kind, "table": "t1", "record": record}


def test_a_ruling_goes_as_published() -> None:
    news = {"type": "ruling", "table": "t1", "ruling": 4, "kind": "tile", "effect": {}}
    relayed = Relay("m").hear("m/t1/service/ruling", json.dumps(news).encode(), set())
    assert relayed is not None and json.loads(relayed.text) == news


def test_a_table_followed_here_is_not_relayed_and_its_old_state_goes() -> None:
    relay = Relay("m")
    relay.hear("m/t1/service/state", json.dumps(STATE).encode(), set())
    assert relay.hear("m/t1/service/state", json.dumps(STATE).encode(), {"t1"}) is None
    assert relay.state("t1") is None  # handed here: the owner's old picture is not kept


@pytest.mark.parametrize(
    ("topic", "payload"),
    [
        ("m/t1/service/state", b"\xff\xfe"),  # not UTF-8
        ("m/t1/service/state", b"{not json"),
        ("m/t1/service/state", b"[1, 2]"),  # JSON, not an object
        ("m/t1/service/summary", b"{}"),  # a kind no page shows
        ("m/t1/bridge/state", b"{}"),  # not the service's news
        ("other/t1/service/state", b"{}"),  # another base
        ("m/t1/service/state/extra", b"{}"),
    ],
)
def test_anything_else_is_dropped_and_changes_nothing(topic: str, payload: bytes) -> None:
    relay = Relay("m")
    assert relay.hear(topic, payload, set()) is None
    assert relay.states(set()) == []
