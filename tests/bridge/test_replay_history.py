"""The replay history, sans MQTT: kept by event, replays coalesced, a boot from its start.

A real SQLite outbox in tmp_path, published by hand (`publish_all` plays the broker).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from firmware_bridge.outbox import NotInHistory, Outbox, Replay
from firmware_bridge.rate_limit import TokenBucket

Key = tuple[int, int]


def rows(boot: int, seqs: range) -> list[tuple[str, str, int, int]]:
    return [("t/event", f'{{"boot": {boot}, "seq": {s}}}', boot, s) for s in seqs]


def append(box: Outbox, boot: int, seqs: range) -> None:
    box.append(rows(boot, seqs), boot, seqs[-1])


def queued(box: Outbox) -> list[Key]:
    """The (boot_id, seq) of every row waiting in the outbox, in publication order."""
    cur = box._db.execute("SELECT boot_id, seq FROM outbox ORDER BY id")
    return [(int(b), int(s)) for b, s in cur.fetchall()]


def kept(box: Outbox) -> list[Key]:
    """The history's events, in its order."""
    cur = box._db.execute("SELECT boot_id, seq FROM history ORDER BY id")
    return [(int(b), int(s)) for b, s in cur.fetchall()]


def publish_all(box: Outbox) -> list[Key]:
    """What the broker is given, as the MQTT side's drain does it, a batch at a time."""
    published = []
    while batch := box.peek(3):
        published += queued(box)[: len(batch)]
        box.remove_through(batch[-1][0])
    return published


def test_full_replays_do_not_burn_the_history(tmp_path: Path) -> None:
    """Three full replays, then one new event: the history still holds ten events."""
    box = Outbox(tmp_path / "o.db", "normal", history=10)
    append(box, 1, range(1, 11))
    publish_all(box)
    for _ in range(3):
        assert box.replay_after(None) == Replay(10)
        assert publish_all(box) == [(1, s) for s in range(1, 11)]
    append(box, 1, range(11, 12))
    publish_all(box)
    assert kept(box) == [(1, s) for s in range(2, 12)]
    assert box.replay_after((1, 5)) == Replay(6)
    assert publish_all(box) == [(1, s) for s in range(6, 12)]


def test_the_history_keeps_the_last_events_in_their_first_order(tmp_path: Path) -> None:
    """A replayed copy published after newer events neither re-enters nor reorders it."""
    box = Outbox(tmp_path / "o.db", "normal", history=5)
    append(box, 1, range(1, 9))
    publish_all(box)  # kept: 4..8
    append(box, 1, range(9, 13))  # new events wait ahead of the copies queued next
    assert box.replay_after(None) == Replay(5)
    assert queued(box) == [(1, s) for s in range(9, 13)] + [(1, s) for s in range(4, 9)]
    publish_all(box)
    assert kept(box) == [(1, s) for s in range(8, 13)]
    assert box.replay_after((1, 10)) == Replay(2)
    assert publish_all(box) == [(1, 11), (1, 12)]


def test_a_history_of_a_thousand_outlives_repeated_replays(tmp_path: Path) -> None:
    """The fault campaign's case, scaled: a replay from the middle is served, not refused."""
    box = Outbox(tmp_path / "o.db", "normal", history=1000)
    box.append(rows(7, range(1, 1001)), 7, 1000)
    box.remove_through(box.peek(1000)[-1][0])
    for _ in range(3):
        box.replay_after(None)
        box.remove_through(box.peek(1000)[-1][0])
    assert len(kept(box)) == 1000
    assert box.replay_after((7, 500)) == Replay(500)


def test_a_request_for_events_already_queued_queues_nothing(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 1, range(1, 11))
    publish_all(box)
    assert box.replay_after(None) == Replay(10)
    for _ in range(19):  # twenty requests, one copy of each event
        assert box.replay_after(None) == Replay(0, already_queued=10)
    assert box.replay_after((1, 4)) == Replay(0, already_queued=6)
    assert box.depth == 10
    assert publish_all(box) == [(1, s) for s in range(1, 11)]
    assert box.replay_after((1, 8)) == Replay(2)  # once published, a request is served again


def test_a_request_from_an_earlier_point_queues_only_what_is_missing(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 1, range(1, 11))
    publish_all(box)
    assert box.replay_after((1, 6)) == Replay(4)
    assert box.replay_after((1, 2)) == Replay(4, already_queued=4)
    assert publish_all(box) == [(1, s) for s in (7, 8, 9, 10, 3, 4, 5, 6)]


def test_a_copy_half_published_still_counts_as_queued(tmp_path: Path) -> None:
    """Until the broker has a copy it waits in the outbox, so it is not queued twice."""
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 1, range(1, 7))
    publish_all(box)
    box.replay_after(None)
    box.remove_through(box.peek(2)[-1][0])  # copies of 1 and 2 published
    assert box.replay_after(None) == Replay(2, already_queued=4)
    assert publish_all(box) == [(1, 3), (1, 4), (1, 5), (1, 6), (1, 1), (1, 2)]


def test_seq_zero_asks_for_a_boot_from_its_start(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 0xA, range(1, 4))
    append(box, 0xB, range(1, 4))
    append(box, 0xC, range(1, 3))
    publish_all(box)
    assert box.replay_after((0xB, 0)) == Replay(5, first_seq=1)
    assert publish_all(box) == [(0xB, 1), (0xB, 2), (0xB, 3), (0xC, 1), (0xC, 2)]
    assert box.replay_after((0xA, 0)) == Replay(8, first_seq=1)


def test_seq_zero_of_a_boot_whose_start_was_trimmed_says_its_first_seq(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal", history=4)
    append(box, 0xB, range(1, 7))
    publish_all(box)  # kept: 3..6
    assert box.replay_after((0xB, 0)) == Replay(4, first_seq=3)
    assert publish_all(box) == [(0xB, s) for s in range(3, 7)]


def test_seq_zero_of_a_boot_not_yet_published_queues_nothing(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 0xB, range(1, 4))
    assert box.replay_after((0xB, 0)) == Replay(0, first_seq=1)
    assert box.depth == 3


def test_seq_zero_of_a_boot_the_bridge_never_held_is_refused(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal")
    append(box, 0xB, range(1, 4))
    publish_all(box)
    with pytest.raises(NotInHistory, match=r"no event of boot 12 in the bridge's history"):
        box.replay_after((0xC, 0))
    assert box.depth == 0


def test_the_history_count_survives_a_restart(tmp_path: Path) -> None:
    box = Outbox(tmp_path / "o.db", "normal", history=5)
    append(box, 1, range(1, 6))
    publish_all(box)
    box.close()
    again = Outbox(tmp_path / "o.db", "normal", history=5)
    append(again, 1, range(6, 8))
    publish_all(again)
    assert kept(again) == [(1, s) for s in range(3, 8)]


OLD_LAYOUT = """
CREATE TABLE outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
    payload TEXT NOT NULL, boot_id INTEGER NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE history (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
    payload TEXT NOT NULL, boot_id INTEGER NOT NULL, seq INTEGER NOT NULL,
    UNIQUE (boot_id, seq));
CREATE TABLE link_session (id INTEGER PRIMARY KEY CHECK (id = 1),
    boot_id INTEGER NOT NULL, last_seq INTEGER NOT NULL);
CREATE TABLE commands (id INTEGER PRIMARY KEY AUTOINCREMENT, txn TEXT NOT NULL UNIQUE,
    command TEXT, outcome TEXT, detail TEXT NOT NULL DEFAULT '');
CREATE TABLE outbox_state (id INTEGER PRIMARY KEY CHECK (id = 1), open INTEGER NOT NULL);
"""


def test_an_outbox_of_the_old_layout_is_migrated_in_place(tmp_path: Path) -> None:
    """History 1..4; waiting: a replayed copy of 2..4 (as the old bridge queued it), then 5."""
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(OLD_LAYOUT)
    db.executemany(
        "INSERT INTO history (topic, payload, boot_id, seq) VALUES (?, ?, ?, ?)",
        rows(1, range(1, 5)),
    )
    db.executemany(
        "INSERT INTO outbox (topic, payload, boot_id, seq) VALUES (?, ?, ?, ?)",
        rows(1, range(2, 6)),
    )
    db.execute("INSERT INTO link_session VALUES (1, 1, 5)")
    db.execute("INSERT INTO outbox_state VALUES (1, 0)")
    db.commit()
    db.close()

    box = Outbox(path, "normal")
    assert (box.depth, box.session()) == (4, (1, 5))
    assert box.replay_after((1, 1)) == Replay(0, already_queued=3)  # the old copy counts
    assert publish_all(box) == [(1, 2), (1, 3), (1, 4), (1, 5)]
    assert kept(box) == [(1, s) for s in range(1, 6)]
    box.close()
    again = Outbox(path, "normal")  # opening the migrated file again changes nothing
    assert again.replay_after((1, 0)) == Replay(5, first_seq=1)


def test_a_token_bucket_says_when_to_ask_again() -> None:
    bucket = TokenBucket(2.0, 2)
    assert bucket.allow(100.0) and bucket.allow(100.0)
    assert not bucket.allow(100.0)
    assert bucket.retry_in() == pytest.approx(0.5)
    assert not bucket.allow(100.25) and bucket.retry_in() == pytest.approx(0.25)
    assert bucket.allow(100.5)
    assert bucket.held == 2


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 5), (-1.0, 5), (2.0, 0.5)])
def test_a_token_bucket_that_would_pass_nothing_is_refused(rate: float, burst: float) -> None:
    with pytest.raises(ValueError, match="nothing would ever pass"):
        TokenBucket(rate, burst)
