"""Real games through the mirror into the store: hands, the ledger, standings, exports."""

from __future__ import annotations

import csv
import io
import json

import pytest

from table_service.mirror import HandRecord, Violation
from table_service.store import Applied, InvalidEntry, NotFound, Store
from tests.store.kit import Game, play


def records(game: Game, kind: type) -> list:
    return [r for _, rs in game.events for r in rs if isinstance(r, kind)]


def test_a_game_round_trips(store: Store, ex01: Game) -> None:
    session_id = play(store, ex01)
    (record,) = records(ex01, HandRecord)
    (hand,) = store.hands(session_id=session_id)
    assert store.hand(hand.id) == hand and store.hand(hand.id + 99) is None
    nested = {"type", "hand", "items", "payments", "next"}
    assert hand.model_dump(include=set(HandRecord.model_fields) - nested) == record.model_dump(
        exclude=nested
    )
    assert hand.hand_no == record.hand
    assert [i.model_dump() for i in hand.items] == [i.model_dump() for i in record.items]
    assert [p.model_dump(by_alias=True) for p in hand.payments] == [
        p.model_dump(by_alias=True) for p in record.payments
    ]
    assert hand.next is not None and record.next is not None
    assert hand.next.model_dump() == record.next.model_dump()
    assert (hand.result, hand.kind, hand.seat, hand.payer, hand.tai) == ("win", "discard", 1, 0, 6)
    assert hand.at == ex01.events[-1][0].ts and hand.seq == ex01.events[-1][0].seq
    assert hand.session_id == session_id and hand.table == ex01.table
    assert store.violations(ex01.table) == [] and store.faults(ex01.table) == []


def test_the_ledger_sums_to_zero_per_hand_and_per_session(
    store: Store, ex01: Game, ex02: Game
) -> None:
    first, second = play(store, ex01), play(store, ex02)
    for session_id, net in ((first, [-240, 240, 0, 0]), (second, [160, 100, -360, 100])):
        lines = store.ledger(session_id)
        assert [line.amount for line in lines] == net
        assert [line.seat for line in lines] == [0, 1, 2, 3]
        assert [line.player for line in lines] == ["P0", "P1", "P2", "P3"]
        assert sum(line.amount for line in lines) == 0
        assert [line.total for line in lines] == net  # one hand: the totals are its net
        assert {line.hand_id for line in lines} == {store.hands(session_id=session_id)[0].id}
    # a penalty moves money: its lines sum to 0 too, and the running totals follow
    store.append(
        ex02.table,
        [Applied("correction", None, {"kind": "penalty", "ledger": [[2, -300], [0, 300]],
                                     "seat": 2, "token_id": None, "reason": "詐胡 argued"},
                 [], second)],
    )  # fmt: skip
    lines = store.ledger(second)
    assert [(line.seat, line.amount, line.total) for line in lines[4:]] == [
        (2, -300, -660),
        (0, 300, 460),
    ]
    standings = store.standings(second)
    assert [s.total for s in standings] == [460, 100, -660, 100]
    assert sum(s.total for s in standings) == 0
    (correction,) = store.corrections(session_id=second)
    assert {line.correction_id for line in lines[4:]} == {correction.id}
    assert correction.kind == "penalty" and correction.body["reason"] == "詐胡 argued"


def test_a_correction_that_does_not_balance_is_refused(store: Store, ex01: Game) -> None:
    session_id = play(store, ex01)
    for ledger in ([[0, -100]], [[4, 0]], [[0, 1.5], [1, -1.5]], "x", [[0]]):
        body = {"kind": "penalty", "ledger": ledger}
        with pytest.raises(
            InvalidEntry,
            match=r"correction ledger must be .* summing to 0",
        ):
            store.append(ex01.table, [Applied("correction", None, body, [], session_id)])
    with pytest.raises(InvalidEntry, match=r"ruling kind must be one of tile, drop, .*, note"):
        store.append(ex01.table, [Applied("correction", None, {"kind": "refund"}, [], session_id)])
    assert store.corrections() == [] and len(store.ledger(session_id)) == 4


def test_standings(store: Store, ex01: Game, ex02: Game) -> None:
    first, second = play(store, ex01), play(store, ex02)
    winner = store.standings(first)[1]
    assert (winner.player, winner.total, winner.wins, winner.self_draws) == ("P1", 240, 1, 0)
    assert store.standings(first)[0].dealt_in == 1
    assert [s.hands for s in store.standings(first)] == [1] * 4
    false = store.standings(second)[2]
    assert (false.false_wins, false.wins, false.total) == (1, 0, -360)
    assert sum(s.false_wins for s in store.standings(second)) == 1
    with pytest.raises(NotFound, match=r"no session 999"):
        store.standings(999)
    with pytest.raises(NotFound, match=r"no session 999"):
        store.ledger(999)


def test_a_violation_of_a_real_game(store: Store, ex02: Game) -> None:
    session_id = play(store, ex02)
    (record,) = records(ex02, Violation)
    (v,) = store.violations(session_id=session_id)
    assert (v.seat, v.code, v.seq) == (record.seat, "false_win", record.seq)
    assert v.detail == record.detail
    assert v.status == "open"


def test_hands_newest_first_and_paged(store: Store, ex01: Game, ex02: Game) -> None:
    play(store, ex01)
    play(store, ex02)
    newest, oldest = store.hands()
    assert (newest.table, oldest.table) == (ex02.table, ex01.table)
    assert store.hands(limit=1) == [newest]
    assert store.hands(before_id=newest.id) == [oldest]
    assert store.hands(table=ex01.table) == [oldest]
    assert store.hands(before_id=oldest.id) == []


def test_a_hand_without_a_session_moves_no_money(store: Store, ex01: Game) -> None:
    store.append(ex01.table, ex01.applied(None))
    (hand,) = store.hands()
    assert hand.session_id is None and hand.net == [-240, 240, 0, 0]
    assert store.sessions() == []


def test_export_json(store: Store, ex02: Game) -> None:
    session_id = play(store, ex02)
    exported = store.export_session(session_id)
    again = json.loads(json.dumps(exported))
    assert again == exported
    assert exported["session"]["id"] == session_id
    assert exported["session"]["players"] == ["P0", "P1", "P2", "P3"]
    (hand,) = exported["hands"]
    assert hand["result"] == "false_win" and hand["payments"][0]["from"] == 2
    assert [line["total"] for line in exported["ledger"]] == [160, 100, -360, 100]
    assert [s["total"] for s in exported["standings"]] == [160, 100, -360, 100]
    with pytest.raises(NotFound, match=r"no session 999"):
        store.export_session(999)


def test_export_csv(store: Store, ex01: Game) -> None:
    session_id = play(store, ex01)
    penalty = {"kind": "penalty", "ledger": [[1, -50], [3, 50]], "seat": 1, "tai": 2,
               "reason": "眼牌, shown"}  # fmt: skip
    deal = {"kind": "deal", "dealer": 2, "streak": 1, "round_wind": 1, "note": "sensor"}
    store.append(
        ex01.table,
        [Applied("correction", None, penalty, [], session_id),
         Applied("correction", None, deal, [], session_id)],
    )  # fmt: skip
    text = store.export_csv(session_id)
    assert text.startswith("\ufeff")  # UTF-8 with a BOM: a spreadsheet reads the names right
    rows = list(csv.reader(io.StringIO(text.removeprefix("\ufeff"))))
    assert rows[0][-4:] == ["P0", "P1", "P2", "P3"] and rows[0][0] == "hand"
    assert rows[0][7:11] == ["player", "payer", "tai", "note"]
    hand, fined, dealt, total = rows[1:]
    # players by name, never a 0-based seat
    assert hand[0] == "1" and hand[3] == "P0" and hand[5:10] == ["win", "discard", "P1", "P0", "6"]
    assert hand[1].endswith("+00:00") and hand[-4:] == ["-240", "240", "0", "0"]
    assert fined[5:11] == ["correction", "penalty", "P1", "", "2", "眼牌, shown"]
    assert fined[-4:] == ["0", "-50", "0", "50"]
    # a deal correction moves no money, and is there all the same
    assert dealt[2:11] == ["S", "P2", "1", "correction", "deal", "", "", "", "sensor"]
    assert dealt[-4:] == [""] * 4
    assert total[0] == "total" and total[-4:] == ["-240", "190", "0", "50"]
    columns = [[int(r[i]) for r in (hand, fined)] for i in range(-4, 0)]
    assert [sum(c) for c in columns] == [int(t) for t in total[-4:]]
    with pytest.raises(NotFound, match=r"no session 999"):
        store.export_csv(999)
