"""The club's players over the API: a list an admin keeps (added, renamed, merged), seats
taken by listed players, and each player's figures, computed again here from the
simulator's ground truth (who won, who paid, the 台, the money), not from the service's
tables: they agree exactly, on both databases."""

from __future__ import annotations

import csv
import io
from collections import Counter
from itertools import pairwise
from statistics import mean
from typing import Any

from table_sim.recording import RecordedHand, record_game
from table_sim.violations import Violations
from tests.api.kit import Api, events_of, timed, timed_events

NAMES = ["阿明", "Bea", "陳小華", "林志玲"]


async def add(api: Api, name: str, **more: Any) -> dict[str, Any]:
    response = await api.client.post(
        "/api/players", json={"name": name, **more}, headers=api.as_admin
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def sensed_truth_of(
    game: list[RecordedHand], seat: int, ts: dict[int, float], ended: list[int]
) -> dict[str, Any]:
    """A seat's figures that only the sensors give, from the simulator's truth of each
    hand (its readiness, each turn's first and last message, the winner's wait) and the
    events' times; `ended`: the seq of the event that ended each hand."""
    truths = [h.truth for h in game]
    ready = [t.ready_rounds[seat] for t in truths if t.ready_rounds[seat] is not None]
    spans = [(start, end) for h in game for who, start, end in h.turns if who == seat]
    shuffles = [next(e.seq for e in h.events if e.body.kind == "shuffle_started") for h in game]
    wins = [t for t in truths if t.end == "win" and t.winner == seat]
    dealt_in = [
        t.deal_in_round for t in truths
        if t.end == "win" and t.payer == seat and t.settle_kind in ("discard", "robbing_kong")
    ]  # fmt: skip
    return {
        "sensed_hands": len(game),
        "wait_shapes": dict(Counter(str(t.win_wait) for t in wins)),
        "ready_rate": len(ready) / len(game),
        "ready_round": mean(ready) if ready else None,
        "deal_in_round": mean(r for r in dealt_in if r) if dealt_in else None,
        "seconds_per_turn": mean(ts[b] - ts[a] for a, b in spans) if spans else None,
        "hand_seconds": mean(ts[e] - ts[s] for s, e in zip(shuffles, ended, strict=True)),
        "go_rounds": mean(max(t.discards_made) for t in truths),
    }


def truth_of(game: list[RecordedHand], seat: int) -> dict[str, Any]:
    """A seat's figures from the simulator's truth of each hand."""
    hands = [h.truth for h in game]
    wins = [t for t in hands if t.end == "win" and t.winner == seat]
    dealt_in = [
        t for t in hands
        if t.end == "win" and t.payer == seat and t.settle_kind in ("discard", "robbing_kong")
    ]  # fmt: skip
    return {
        "hands": len(hands),
        "wins": len(wins),
        "self_draws": sum(1 for t in wins if t.payer is None),
        "deal_ins": len(dealt_in),
        "false_wins": sum(1 for t in hands if t.end == "false_win" and t.winner == seat),
        "net": sum(t.net[seat] for t in hands),
        "tai_per_win": mean(t.tai or 0 for t in wins) if wins else None,
        "dealer_hands": sum(1 for t in hands if t.deal.dealer == seat),
        "dealer_wins": sum(1 for t in wins if t.deal.dealer == seat),
    }


async def test_an_admin_keeps_the_list(api: Api) -> None:
    response = await api.client.post("/api/players", json={"name": "阿明"})
    assert response.status_code == 401  # a write needs the admin's token
    ming = await add(api, "阿明", nickname="明仔", member_no="A-001")
    bea = await add(api, "Bea")
    assert [p["name"] for p in await api.get("/api/players")] == ["Bea", "阿明"]  # public
    again = await api.client.post("/api/players", json={"name": "阿明"}, headers=api.as_admin)
    assert again.status_code == 409 and "阿明" in again.json()["error"]
    blank = await api.client.post("/api/players", json={"name": " \n"}, headers=api.as_admin)
    assert blank.status_code == 422
    renamed = await api.client.patch(
        f"/api/players/{bea['id']}", json={"name": "Beatrice", "nickname": None},
        headers=api.as_admin,
    )  # fmt: skip
    assert renamed.status_code == 200, renamed.text
    assert (renamed.json()["name"], renamed.json()["nickname"]) == ("Beatrice", None)
    taken = await api.client.patch(
        f"/api/players/{bea['id']}", json={"member_no": "A-001"}, headers=api.as_admin
    )
    assert taken.status_code == 409  # the number is 阿明's
    merged = await api.client.post(
        f"/api/players/{bea['id']}/merge", json={"into": ming["id"]}, headers=api.as_admin
    )
    assert merged.status_code == 200 and merged.json()["id"] == ming["id"]
    assert [p["name"] for p in await api.get("/api/players")] == ["阿明"]
    listed = await api.get("/api/players", merged="true")
    assert {p["name"]: p["merged_into"] for p in listed} == {"阿明": None, "Beatrice": ming["id"]}
    twice = await api.client.post(
        f"/api/players/{bea['id']}/merge", json={"into": ming["id"]}, headers=api.as_admin
    )
    assert twice.status_code == 409
    nobody = await api.client.post(
        f"/api/players/{ming['id']}/merge", json={"into": 999_999}, headers=api.as_admin
    )  # the path's player is there; the body names nobody: refused, not "not found"
    assert nobody.status_code == 409 and "999999" in nobody.json()["error"]
    missing = await api.client.get("/api/players/999999/stats")
    assert missing.status_code == 404


async def test_each_players_figures_are_the_simulators_truth(api: Api) -> None:
    """Four listed players play ten hands with breaches (詐胡 among them): every figure
    of each, from the records, equals what the simulator's truth says; a merge moves a
    history under the player kept; a player already seated elsewhere is refused."""
    players = [await add(api, name) for name in NAMES]
    ids = [p["id"] for p in players]
    body = {"players": ["x", "y", "z", "w"], "player_ids": [ids[0], ids[1], ids[2], ids[3]]}
    response = await api.client.post("/api/tables/t1/session", json=body, headers=api.as_admin)
    assert response.status_code == 201, response.text
    session_id = response.json()["id"]
    session = (await api.get(f"/api/sessions/{session_id}"))["session"]
    assert session["players"] == NAMES  # the list's names, whatever the body said
    assert session["player_ids"] == ids

    game = record_game(3, 10, violations=Violations(0.03))  # 6 wins (2 self-drawn), 2 詐胡
    ts = timed(game)
    await api.play("t1", timed_events(game, "t1"))
    hands = await api.get("/api/tables/t1/hands", session_id=session_id)
    assert len(hands) == len(game)
    ended = [h["seq"] for h in sorted(hands, key=lambda h: h["hand_no"])]
    expected_deal_ins = [truth_of(game, seat)["deal_ins"] for seat in range(4)]
    for seat, player_id in enumerate(ids):
        stats = await api.get(f"/api/players/{player_id}/stats")
        expected = truth_of(game, seat)
        got = {k: stats[k] for k in expected}
        if expected["tai_per_win"] is not None:
            assert abs(got.pop("tai_per_win") - expected.pop("tai_per_win")) < 1e-9
        assert got == expected, (seat, got, expected)
        sensed = sensed_truth_of(game, seat, ts, ended)
        for figure, value in sensed.items():  # sums of times: equal to rounding
            if isinstance(value, float):
                assert abs(stats[figure] - value) < 1e-6, (seat, figure, stats[figure], value)
            else:
                assert stats[figure] == value, (seat, figure, stats[figure], value)
        assert stats["sessions"] == 1
        assert stats["win_rate"] == expected["wins"] / len(game)
        in_session = await api.get(f"/api/players/{player_id}/stats", session_id=session_id)
        assert in_session == stats
        played = await api.get(f"/api/players/{player_id}/hands")  # what the charts draw
        assert [h["net"] for h in played] == [h.truth.net[seat] for h in game]
        assert [h["won"] for h in played] == [
            h.truth.end == "win" and h.truth.winner == seat for h in game
        ]
        assert sum(h["dealt_in"] for h in played) == expected_deal_ins[seat]
        newest = await api.get(f"/api/players/{player_id}/hands", limit=3)
        assert newest == played[-3:]
    nets = [(await api.get(f"/api/players/{i}/stats"))["net"] for i in ids]
    assert sum(nets) == 0
    assert any(truth_of(game, s)["wins"] for s in range(4))  # the game has wins to count

    # A span the game is not in has nothing; a seat at another table is refused
    within = await api.get(f"/api/players/{ids[0]}/stats", since=0, until=3.9e9)
    assert within == await api.get(f"/api/players/{ids[0]}/stats")
    empty = await api.get(f"/api/players/{ids[0]}/stats", since=3.9e9)
    assert (empty["hands"], empty["net"], empty["tai_per_win"]) == (0, 0, None)
    elsewhere = {"players": NAMES, "player_ids": [ids[0], None, None, None]}
    refused = await api.client.post("/api/tables/t2/session", json=elsewhere, headers=api.as_admin)
    assert refused.status_code == 409 and "t1" in refused.json()["error"]
    twice = {"players": NAMES, "player_ids": [ids[1], ids[1], None, None]}
    response = await api.client.post("/api/tables/t1/session", json=twice, headers=api.as_admin)
    assert response.status_code == 409 and "one seat" in response.json()["error"]
    unknown = {"players": NAMES, "player_ids": [999999, None, None, None]}
    response = await api.client.post("/api/tables/t1/session", json=unknown, headers=api.as_admin)
    assert response.status_code == 409 and "no player 999999" in response.json()["error"]

    # 阿明 was also entered as 明 by mistake: merged, 明's history counts under 阿明
    ming = await add(api, "明")
    merged = await api.client.post(
        f"/api/players/{ids[0]}/merge", json={"into": ming["id"]}, headers=api.as_admin
    )
    assert merged.status_code == 200
    kept = await api.get(f"/api/players/{ming['id']}/stats")
    assert {k: kept[k] for k in ("hands", "wins", "net")} == {
        k: truth_of(game, 0)[k] for k in ("hands", "wins", "net")
    }


async def test_the_leaderboard_ranks_by_a_figure_over_a_span(api: Api) -> None:
    """The listed players ranked by the figure asked for, as their own figures say; fewer
    hands than the minimum and they are left out; a figure that is no figure is a 422."""
    ids = [(await add(api, name))["id"] for name in NAMES]
    body = {"players": NAMES, "player_ids": ids}
    response = await api.client.post("/api/tables/t1/session", json=body, headers=api.as_admin)
    assert response.status_code == 201, response.text
    await api.play("t1", events_of(record_game(3, 10, violations=Violations(0.03)), "t1"))
    figures = {i: await api.get(f"/api/players/{i}/stats") for i in ids}
    for figure, lowest_first in (("net", False), ("wins", False), ("deal_in_rate", True)):
        board = await api.get("/api/leaderboard", figure=figure)
        values = [s["value"] for s in board]
        assert values == sorted(values, reverse=not lowest_first)
        assert {s["player"]["id"]: s["value"] for s in board} == {
            i: figures[i][figure] for i in ids if figures[i][figure] is not None
        }
        assert board[0]["rank"] == 1
        for place, (before, after) in enumerate(pairwise(board), 2):
            tied = after["value"] == before["value"]
            assert after["rank"] == (before["rank"] if tied else place)
    assert await api.get("/api/leaderboard", min_hands=11) == []  # ten hands each
    assert await api.get("/api/leaderboard", since=3.9e9) == []
    by_profile = await api.get("/api/leaderboard", profile="mjonline")  # the session's preset
    assert by_profile == await api.get("/api/leaderboard")
    assert await api.get("/api/leaderboard", profile="seed001") == []  # none played by it
    slower_first = await api.get("/api/leaderboard", figure="seconds_per_turn")
    assert [s["value"] for s in slower_first] == sorted(figures[i]["seconds_per_turn"] for i in ids)

    # The same figures as a spreadsheet, a row a player, a column a figure
    response = await api.client.get("/api/players.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert "players-start-now.csv" in response.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(response.text.removeprefix("\ufeff"))))
    assert [int(r["player_id"]) for r in rows] == [  # by name
        i for _, i in sorted(zip(NAMES, ids, strict=True))
    ]
    for row in rows:
        stats = figures[int(row["player_id"])]
        assert (int(row["hands"]), int(row["wins"]), int(row["net"])) == (
            stats["hands"],
            stats["wins"],
            stats["net"],
        )
        assert row["name"] == NAMES[ids.index(int(row["player_id"]))]
        waits = {k.removeprefix("waits."): int(v) for k, v in row.items() if k.startswith("waits.")}
        assert {k: v for k, v in waits.items() if v} == stats["wait_shapes"]
        flagged = {
            k.removeprefix("violations."): int(v) for k, v in row.items()
            if k.startswith("violations.") and v != "0"
        }  # fmt: skip
        assert flagged == stats["violations"]
        tai = stats["tai_per_win"]
        assert row["tai_per_win"] == ("" if tai is None else str(tai))
    later = await api.client.get("/api/players.csv", params={"since": 3.9e9})
    assert later.text.removeprefix("\ufeff").count("\n") == 1  # the heading alone
    bad = await api.client.get("/api/leaderboard", params={"figure": "luck"})
    assert bad.status_code == 422

    # The figures counted once serve again only while the records stand: a penalty, then a
    # merge, and the board is the players' figures as they are now
    fine = {"kind": "penalty", "seat": 2, "tai": 2, "reason": "眼牌"}
    response = await api.client.post(
        "/api/tables/t1/corrections", json=fine, headers=api.as_referee
    )
    assert response.status_code == 201, response.text
    board = {s["player"]["id"]: s["value"] for s in await api.get("/api/leaderboard")}
    assert board == {i: (await api.get(f"/api/players/{i}/stats"))["net"] for i in ids}
    assert board[ids[2]] < figures[ids[2]]["net"]
    merged = await api.client.post(
        f"/api/players/{ids[3]}/merge", json={"into": ids[1]}, headers=api.as_admin
    )
    assert merged.status_code == 200
    board = {s["player"]["id"]: s["value"] for s in await api.get("/api/leaderboard")}
    assert set(board) == {ids[0], ids[1], ids[2]}
    assert board[ids[1]] == (await api.get(f"/api/players/{ids[1]}/stats"))["net"]
    schema = api.app.openapi()["paths"]["/api/leaderboard"]["get"]["parameters"]
    (figure,) = [p for p in schema if p["name"] == "figure"]
    assert "deal_in_rate" in str(figure["schema"])
