"""The referee's side: rulings and tokens are new rows, secrets are never stored."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from table_service.mirror import Violation
from table_service.store import Applied, InvalidEntry, NotFound, Store, token_hash
from table_service.store.models import DecisionModel, TokenModel
from tests.store.test_log import event


def flag(store: Store, table: str, seq: int, code: str = "out_of_turn") -> int:
    record = Violation.model_validate(
        {"table": table, "boot_id": 7, "seq": seq, "seat": 1, "code": code, "detail": "…"}
    )
    store.append(table, [Applied("event", event(table, seq), None, [record])])
    return store.violations(table)[-1].id


def test_rulings_are_new_rows_and_the_latest_wins(store: Store) -> None:
    token, _ = store.create_token("referee", "阿明")
    first = flag(store, "t1", 1)
    second = flag(store, "t1", 2, "wrong_end")
    one = store.decide(first, "confirmed", "seen it", token.id)
    assert (one.violation_id, one.decision, one.note, one.token_id) == (
        first, "confirmed", "seen it", token.id)  # fmt: skip
    two = store.decide(first, "dismissed", "the sensor misread", token.id)
    assert two.id > one.id
    v = store.violations("t1")[0]
    assert v.status == "dismissed" and v.decision == two
    with store.engine.connect() as connection:
        kept = connection.execute(select(DecisionModel.decision).order_by(DecisionModel.id))
        assert list(kept.scalars()) == ["confirmed", "dismissed"]
    assert [v.id for v in store.violations(status="dismissed")] == [first]
    assert [v.id for v in store.violations(status="open")] == [second]
    assert store.violations(status="confirmed") == []
    store.decide(second, "confirmed")  # a ruling made on the table computer: no token
    assert [v.id for v in store.violations(table="t1", status="confirmed")] == [second]
    assert store.violations(table="t2") == []


def test_ruling_on_nothing(store: Store) -> None:
    with pytest.raises(NotFound, match=r"no violation 42"):
        store.decide(42, "confirmed", "", None)
    violation = flag(store, "t1", 1)
    with pytest.raises(NotFound, match=r"no token 42"):
        store.decide(violation, "confirmed", "", 42)  # no such token
    with pytest.raises(InvalidEntry, match=r"decision must be one of confirmed, dismissed"):
        store.decide(violation, "maybe", "", None)


def test_corrections_are_new_rows(store: Store) -> None:
    token, _ = store.create_token("referee", "ref")
    deal = {"kind": "deal", "dealer": 2, "streak": 0, "round_wind": "S", "token_id": token.id}
    store.append("t1", [Applied("correction", None, deal)])
    store.append("t1", [Applied("correction", None, {"kind": "note", "text": "two"})])
    first, second = store.corrections("t1")
    assert (first.kind, first.body, first.token_id) == ("deal", deal, token.id)
    assert second.kind == "note" and second.token_id is None and second.id > first.id
    assert [e.kind for e in store.entries("t1")] == ["correction", "correction"]
    assert store.corrections(table="t2") == []
    with pytest.raises(
        InvalidEntry, match=r"correction token_id 99: no such token"
    ):  # a token that does not exist
        store.append("t1", [Applied("correction", None, {"kind": "note", "token_id": 99})])
    assert len(store.corrections()) == 2


def test_tokens_are_hashed_and_revocable(store: Store) -> None:
    row, secret = store.create_token("admin", "the owner")
    other, other_secret = store.create_token("referee", "floor")
    assert len(secret) >= 40 and secret != other_secret
    assert store.token_for(secret) == row and store.token_for(other_secret) == other
    assert store.token_for("guess") is None
    with store.engine.connect() as connection:
        stored = list(connection.execute(select(TokenModel.__table__)).all())
    assert all(secret not in map(str, r) and other_secret not in map(str, r) for r in stored)
    assert {r.hash for r in stored} == {token_hash(secret), token_hash(other_secret)}
    assert "hash" not in row.model_dump()
    revoked = store.revoke_token(row.id)
    assert revoked.revoked_at is not None
    assert store.token_for(secret) is None and store.token_for(other_secret) == other
    assert store.revoke_token(row.id).revoked_at == revoked.revoked_at  # set once
    assert store.tokens() == [revoked, other]
    with pytest.raises(NotFound, match=r"no token 999"):
        store.revoke_token(999)
    with pytest.raises(InvalidEntry, match=r"role must be one of referee, admin"):
        store.create_token("player", "nobody")
