"""The referee's side: rulings and tokens are new rows, secrets are never stored."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from table_service.store import Applied, InvalidEntry, NotFound, Store, token_hash
from table_service.store.models import TokenModel
from tests.store.kit import Game, play


def verdict(store: Store, table: str, decision: str, reason: str = "seen it") -> dict[str, Any]:
    """A verdict on the table's one violation."""
    (v,) = store.violations(table)
    return {"kind": "verdict", "boot_id": v.boot_id, "seq": v.seq, "seat": v.seat,
            "code": v.code, "decision": decision, "reason": reason}  # fmt: skip


def rule(store: Store, table: str, body: dict[str, Any], session_id: int | None = None) -> int:
    ruling_id, _ = store.rule(table, Applied("correction", None, body, [], session_id))
    return ruling_id


def fine(store: Store, seat: int, reason: str) -> dict[str, Any]:
    """A penalty ruling on a seat at 0 台, with the ledger the live service keeps in it (what
    it moves at the table's deal now)."""
    ledger = store.restore("t2")[0].penalty(seat, 0)
    return {"kind": "penalty", "seat": seat, "tai": 0, "reason": reason,
            "ledger": [list(line) for line in ledger]}  # fmt: skip


def test_verdicts_are_rulings_the_latest_in_force_stands(store: Store, ex02: Game) -> None:
    """EX02's 詐胡: overturned, the press is as if never made (no hand, no money), the
    violation still listed as dismissed; upheld again, the 詐胡 and its money are back;
    an undo of that verdict gives the overturn back."""
    session_id = play(store, ex02)
    token, _ = store.create_token("referee", "阿明")
    paid = [s.total for s in store.standings(session_id)]
    assert paid == [160, 100, -360, 100]
    overturn = {**verdict(store, "t2", "overturn", "an elbow on the button"), "token_id": token.id}
    first = rule(store, "t2", overturn, session_id)
    (v,) = store.violations("t2")
    assert v.status == "dismissed" and v.decision is not None
    assert (v.decision.id, v.decision.note, v.decision.token_id) == (
        first, "an elbow on the button", token.id)  # fmt: skip
    assert store.hands(session_id=session_id) == []
    assert [s.total for s in store.standings(session_id)] == [0, 0, 0, 0]
    ruled = store.ruling(first)
    assert ruled is not None and ruled.effect is not None
    assert ruled.effect["money"] == [
        {"session_id": session_id, "before": paid, "after": [0, 0, 0, 0]}
    ]
    assert ruled.effect["revised_hands"] == [[session_id, 1]]
    second = rule(store, "t2", verdict(store, "t2", "uphold"), session_id)
    assert store.violations("t2", status="confirmed")[0].decision.id == second  # type: ignore[union-attr]
    assert [s.total for s in store.standings(session_id)] == paid
    rule(store, "t2", {"kind": "undo", "ruling": second, "reason": "no"}, session_id)
    assert [v.status for v in store.violations("t2")] == ["dismissed"]
    assert [s.total for s in store.standings(session_id)] == [0, 0, 0, 0]
    assert store.corrections("t2")[1].withdrawn_by is not None


def test_a_ruling_on_nothing_is_refused_and_writes_nothing(store: Store, ex02: Game) -> None:
    session_id = play(store, ex02)
    entries = len(list(store.entries("t2")))
    on_nothing = [
        ({**verdict(store, "t2", "overturn"), "seat": 3}, r"no false_win violation of seat 3"),
        ({"kind": "tile", "boot_id": 1, "seq": 9999, "read": 5, "was": 6, "reason": "x"},
         r"no event boot 1 seq 9999"),
        ({"kind": "undo", "ruling": 42, "reason": "x"}, r"no ruling 42"),
        ({"kind": "verdict", "seat": 2}, r"verdict ruling: boot_id: Field required"),
    ]  # fmt: skip
    for body, message in on_nothing:
        with pytest.raises(InvalidEntry, match=message):
            rule(store, "t2", body, session_id)
    assert len(list(store.entries("t2"))) == entries
    assert store.corrections("t2") == []


def test_a_penalty_or_a_deal_undone_is_as_if_never_ruled(store: Store, ex02: Game) -> None:
    """An undo withdraws a penalty (its money goes back) or a deal ruling (the next deal
    is the one the hands give); an undo of the undo puts it back."""
    session_id = play(store, ex02)
    paid = [s.total for s in store.standings(session_id)]
    penalty = fine(store, 1, "眼牌")
    fined = rule(store, "t2", penalty, session_id)
    assert [s.total for s in store.standings(session_id)] == [320, -260, -260, 200]
    undone = rule(store, "t2", {"kind": "undo", "ruling": fined, "reason": "wrong seat"},
                  session_id)  # fmt: skip
    assert [s.total for s in store.standings(session_id)] == paid
    ruled = store.ruling(undone)
    assert ruled is not None and ruled.effect is not None
    assert ruled.effect["money"] == [
        {"session_id": session_id, "before": [320, -260, -260, 200], "after": paid}
    ]
    rule(store, "t2", {"kind": "undo", "ruling": undone, "reason": "it was right"}, session_id)
    assert [s.total for s in store.standings(session_id)] == [320, -260, -260, 200]
    mirror, _, _ = store.restore("t2")
    assert mirror.totals == [320, -260, -260, 200]

    deal = rule(store, "t2", {"kind": "deal", "dealer": 3, "streak": 0, "round_wind": 0},
                session_id)  # fmt: skip
    assert store.restore("t2")[0].deal.dealer == 3
    rule(store, "t2", {"kind": "undo", "ruling": deal, "reason": "no"}, session_id)
    mirror, _, _ = store.restore("t2")
    assert (mirror.deal.dealer, mirror.deal.streak) == (0, 1)  # EX02's own next deal


def test_a_penalty_is_paid_at_the_deal_an_earlier_ruling_leaves(store: Store, ex02: Game) -> None:
    """A penalty pays the dealer's 台 at the deal it stands at (§5: 1 + 2N with the dealer).
    After EX02's 詐胡 the dealer stays on at 連1, so a 眼牌 of seat 1 pays the dealer 底 100 +
    3 台 of 20. Rulings entered later on that hand (the 詐胡 overturned, the hand ruled a
    荒局: the dealer stays on at 連2) stand before the penalty in the log, and the same
    penalty now pays the dealer 底 + 5 台."""
    session_id = play(store, ex02)
    rule(store, "t2", verdict(store, "t2", "overturn", "an elbow on the button"), session_id)
    last = [e.event for e in store.entries("t2") if e.event is not None][-1]
    rule(store, "t2", fine(store, 1, "眼牌"), session_id)
    assert [s.total for s in store.standings(session_id)] == [160, -360, 100, 100]
    drawn = {"kind": "hand", "boot_id": last.boot_id, "seq": last.seq, "result": "drawn",
             "reason": "the wall ran out"}  # fmt: skip
    rule(store, "t2", drawn, session_id)
    assert [s.total for s in store.standings(session_id)] == [200, -400, 100, 100]
    mirror, _, _ = store.restore("t2")
    assert (mirror.deal.dealer, mirror.deal.streak) == (0, 2)
    assert mirror.totals == [200, -400, 100, 100]


def test_a_tile_ruling_that_cannot_be_followed_is_refused(store: Store, ex02: Game) -> None:
    """All four copies of a kind are placed: a tile code names no copy left in the wall."""
    session_id = play(store, ex02)
    last = list(store.entries("t2"))[-1]
    assert last.event is not None
    body = {"kind": "tile", "boot_id": last.event.boot_id, "seq": last.event.seq,
            "read": 77, "was": "P", "reason": "x"}  # fmt: skip
    rule(store, "t2", body, session_id)  # a copy of 白 is still in the wall
    placed = {"kind": "tile", "boot_id": 1, "seq": 135, "read": 77, "was": 1, "reason": "x"}
    rule(store, "t2", placed, session_id)  # an id: taken as the referee says


def test_corrections_are_new_rows(store: Store) -> None:
    token, _ = store.create_token("referee", "ref")
    deal = {"kind": "deal", "dealer": 2, "streak": 0, "round_wind": 1, "token_id": token.id}
    store.append("t1", [Applied("correction", None, deal)])
    store.append("t1", [Applied("correction", None, {"kind": "note", "note": "two"})])
    first, second = store.corrections("t1")
    assert (first.kind, first.body, first.token_id) == ("deal", deal, token.id)
    assert second.kind == "note" and second.token_id is None and second.id > first.id
    assert [e.kind for e in store.entries("t1")] == ["correction", "correction"]
    assert store.corrections(table="t2") == []
    with pytest.raises(
        InvalidEntry, match=r"correction token_id 99: no such token"
    ):  # a token that does not exist
        note = {"kind": "note", "note": "x", "token_id": 99}
        store.append("t1", [Applied("correction", None, note)])
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
