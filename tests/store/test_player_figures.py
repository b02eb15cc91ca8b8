"""A player's figures as the store keeps them between asks (each session's tallies, kept
while its rows stand) against the same figures counted afresh, as hands are stored, a
span cuts a session, a session ends and a referee rules."""

from __future__ import annotations

from firmware_bridge.messages import Event
from table_service.mirror import SessionStart, TableMirror
from table_service.store import Applied, Store
from table_sim.recording import record_game
from table_sim.violations import Violations

TABLE = "t1"
NAMES = ("阿明", "Bea", "Chen", "Dora")
T0 = 1_767_225_600.0


def timed(event: Event) -> float:
    """An event's time: a second after the one before, a boot a day after the last."""
    return T0 + event.boot_id * 86_400 + event.seq


class Club:
    """A store that keeps figures between asks, a second one on the same database asked
    with nothing kept, and a mirror deriving what both store."""

    def __init__(self, url: str) -> None:
        self.store = Store(url)
        self.store.migrate()
        self.fresh = Store(url)
        self.ids = [self.store.add_player(name).id for name in NAMES]
        self.mirror = TableMirror(TABLE)
        self.session_id = 0

    def close(self) -> None:
        self.store.close()
        self.fresh.close()

    def start(self, order: list[int]) -> None:
        start = SessionStart(table=TABLE, players=tuple(NAMES[i] for i in order),
                             player_ids=tuple(self.ids[i] for i in order))  # fmt: skip
        body = start.recorded().model_dump(mode="json")
        self.mirror.start_session(SessionStart.model_validate(body))
        self.store.append(TABLE, [Applied("session", None, body)])
        opened = self.store.open_session(TABLE)
        assert opened is not None
        self.session_id = opened.id

    def play(self, events: list[Event]) -> None:
        events = [e.model_copy(update={"ts": timed(e)}) for e in events]
        self.store.append(TABLE, [Applied("event", e, None, self.mirror.apply(e),
                                          self.session_id) for e in events])  # fmt: skip

    def agree(self, since: float | None = None, until: float | None = None) -> list[int]:
        """Every player's figures and the leaderboard, kept and afresh, are equal; the nets."""
        nets = []
        for player_id in self.ids:
            self.fresh._figures.clear()
            kept = self.store.player_stats(player_id, since=since, until=until)
            assert kept == self.fresh.player_stats(player_id, since=since, until=until)
            nets.append(kept.net)
        self.fresh._figures.clear()
        board = self.store.leaderboard("net", since=since, until=until)
        assert board == self.fresh.leaderboard("net", since=since, until=until)
        return nets


def test_kept_figures_are_the_figures_counted_afresh(store_url: str) -> None:
    club = Club(store_url)
    try:
        first = record_game(5, 6, table=TABLE, boot_id=1, violations=Violations(0.05))
        club.start([0, 1, 2, 3])
        assert club.agree() == [0, 0, 0, 0]
        for hand in first:  # hand by hand: the session open, its tallies counted again
            club.play(hand.events)
            club.agree()
        nets = club.agree()
        opened_first = club.session_id
        assert any(nets) and sum(nets) == 0
        middle = timed(first[3].events[0])  # a span from the fourth hand cuts the session
        assert club.agree(since=middle) != nets
        assert club.agree(until=middle) != nets

        second = record_game(6, 4, table=TABLE, boot_id=2, violations=Violations(0.05))
        club.store.append(TABLE, [Applied("session_end", None, {})])
        club.mirror.end_session()
        club.start([1, 2, 3, 0])  # the same four, each at another seat
        for hand in second:
            club.play(hand.events)
        both = club.agree()
        assert club.agree(until=timed(second[0].events[0])) == nets  # the first session whole

        # A penalty on the open session: its tallies are counted again
        lines = club.store.restore(TABLE)[0].penalty(0, 0)
        fine = {"kind": "penalty", "seat": 0, "tai": 0, "reason": "slow play",
                "ledger": [list(line) for line in lines]}  # fmt: skip
        club.store.rule(TABLE, Applied("correction", None, fine, [], club.session_id))
        fined = club.agree()
        assert fined != both and sum(fined) == 0

        # A verdict overturned in the first session derives both again
        (flagged, *_) = club.store.violations(TABLE)
        verdict = {"kind": "verdict", "boot_id": flagged.boot_id, "seq": flagged.seq,
                   "seat": flagged.seat, "code": flagged.code, "decision": "overturn",
                   "reason": "a sensor"}  # fmt: skip
        club.store.rule(TABLE, Applied("correction", None, verdict, [], club.session_id))
        club.agree()
        club.agree(since=middle)
        club.fresh._figures.clear()
        club.fresh.count_figures()  # as a service does when it starts: every session kept
        assert set(club.fresh._figures.kept) == {opened_first, club.session_id}
    finally:
        club.close()
