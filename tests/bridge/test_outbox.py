"""The outbox keeps events until the broker has them, then a bounded history for replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.outbox import NotInHistory, Outbox, Replay


def rows(boot: int, seqs: range) -> list[tuple[str, str, int, int]]:
    return [("t/event", f'{{"seq": {s}}}', boot, s) for s in seqs]


def test_history_is_bounded_and_replays_in_order(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal", history=5)
    box.append(rows(1, range(1, 9)), 1, 8)
    last = box.peek(100)[-1][0]
    box.remove_through(last)
    assert box.depth == 0
    assert box.replay_after((1, 5)) == Replay(3)
    assert [r[2] for r in box.peek(100)] == ['{"seq": 6}', '{"seq": 7}', '{"seq": 8}']
    with pytest.raises(NotInHistory, match=r"after: no event \(1, 2\) in the bridge's history"):
        box.replay_after((1, 2))  # older than the five kept
    box.remove_through(box.peek(100)[-1][0])
    assert box.replay_after(None) == Replay(5)  # everything kept, oldest first


def test_a_replay_from_an_event_not_yet_published_queues_nothing(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    box.append(rows(9, range(1, 4)), 9, 3)
    assert box.replay_after((9, 2)) == Replay(0)
    assert box.depth == 3


def test_history_and_queue_survive_a_restart(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    box.append(rows(3, range(1, 6)), 3, 5)
    box.remove_through(box.peek(2)[-1][0])
    box.close()
    again = Outbox(tmp_path / "o.db", "normal")
    assert again.depth == 3 and again.session() == (3, 5)
    assert again.replay_after((3, 1)) == Replay(1)
