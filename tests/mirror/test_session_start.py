"""A session asked for while a hand is being played begins at the next shuffle: the hand
under way is finished, judged and paid in the session it began in; what the start leaves
open of the deal is the table's own as that hand leaves it."""

from __future__ import annotations

from table_service.mirror.fold import fold
from table_service.mirror.records import Fault
from table_service.mirror.session import SessionStart
from tests.mirror.kit_script import FULL_WALL, Script, quiet, settled

WAITS_8S = "2m 3m 4m 6m 7m 8m 2s 3s 4s 6p 6p 6p 3p 3p 3p 8s 7p"  # throws 7p, waits on 8s
NEW_PLAYERS = ("阿明", "Bea", "Chen", "Dora")


def asked_mid_hand(**deal: object) -> Script:
    """Hand 1 under way (the dealer's first discard made), then a new session asked for."""
    t = Script(quiet(), players=("a", "b", "c", "d"))
    t.discard(0, "2m")
    start = SessionStart(table=t.table, players=NEW_PLAYERS, base=50, **deal)  # type: ignore[arg-type]
    t.records += t.mirror.start_session(start)
    return t


def test_the_hand_under_way_is_judged_and_paid_in_its_own_session() -> None:
    t = asked_mid_hand()
    assert not [r for r in t.records if isinstance(r, Fault)]  # no hand_unseen: it is judged
    assert t.mirror.snapshot()["players"] == ["a", "b", "c", "d"]
    t.cycle(1)
    t.cycle(2)
    t.records += t.mirror.start_session(SessionStart(table=t.table, players=NEW_PLAYERS))
    t.burn(0, seat=3)
    t.finish()
    hand = t.hand()
    assert hand.result == "drawn"
    assert hand.hand == 1
    assert t.mirror.next_session is not None  # not begun until the next shuffle


def test_the_session_begins_at_the_next_shuffle_with_the_deal_the_hand_left() -> None:
    """The dealer wins hand 1 (連莊): the session that left its deal open deals with the
    same dealer at 連1, its own players and stakes, counting its hands from 1."""
    t = Script(quiet({0: WAITS_8S}), players=("a", "b", "c", "d"))
    t.discard(0, "7p")
    start = SessionStart(
        table=t.table, players=NEW_PLAYERS, base=50,
        dealer=None, streak=None, round_wind=None, start_seat=None,
    )  # fmt: skip
    t.mirror.start_session(start)
    t.cycle(1)
    t.cycle(2)
    t.cycle(3)
    t.draw(0, "8s")
    t.win(0)  # a self-draw by the dealer: 連莊
    hand = t.hand()
    assert (hand.result, hand.seat, hand.kind) == ("win", 0, "self_draw")
    assert hand.net == settled(hand, base=100) != settled(hand, base=50)  # the old stakes
    t.new_hand(quiet())
    state = t.mirror.snapshot()
    assert state["players"] == list(NEW_PLAYERS)
    assert (state["dealer"], state["streak"], state["hands"]) == (0, 1, 0)
    assert state["totals"] == [0, 0, 0, 0]  # the old session's money stays with it
    assert t.mirror.profile.base == 50


def test_a_deal_the_session_names_stands_over_the_tables() -> None:
    t = asked_mid_hand(dealer=2, streak=0, round_wind="S")
    t.burn(0, seat=1)
    t.finish()
    t.new_hand(quiet(dealer=2), dealer=2)
    state = t.mirror.snapshot()
    assert (state["dealer"], state["streak"], state["round_wind"]) == (2, 0, "S")


def test_a_session_ended_before_it_began_never_begins() -> None:
    t = asked_mid_hand()
    fold(t.mirror, "session_end", None, {})
    t.burn(0, seat=1)
    t.finish()
    t.new_hand(quiet(dealer=1), dealer=1)
    assert t.mirror.snapshot()["players"] == ["a", "b", "c", "d"]
    assert t.mirror.next_session is None


def test_a_session_asked_for_before_any_tile_moves_is_that_hands() -> None:
    """Shuffled and built, no tile dealt: the hand is the new session's."""
    t = Script(players=("a", "b", "c", "d"))
    t.emit({"kind": "shuffle_started"})
    t.emit({"kind": "shuffle_finished"})
    t.emit({"kind": "wall_built", **FULL_WALL})
    t.mirror.start_session(SessionStart(table=t.table, players=NEW_PLAYERS, dealer=3))
    assert t.mirror.snapshot()["players"] == list(NEW_PLAYERS)
    assert t.mirror.hand is not None and t.mirror.hand.dealer == 3


def test_a_session_asked_for_once_the_deal_is_rolled_waits_for_the_next_shuffle() -> None:
    """The dealer has rolled for the deal (配牌, §2): the 開門位 is counted from that dealer,
    so the hand is the running session's even before a tile moves; the session asked for
    now (another dealer, other players) begins at the next shuffle."""
    t = Script(players=("a", "b", "c", "d"))
    t.open_hand()
    t.records += t.mirror.start_session(SessionStart(table=t.table, players=NEW_PLAYERS, dealer=3))
    assert t.mirror.hand is not None and t.mirror.hand.dealer == 0
    assert t.mirror.snapshot()["players"] == ["a", "b", "c", "d"]
    assert t.mirror.next_session is not None
    assert t.faults() == []


def test_the_deal_as_a_session_start_names_it() -> None:
    """What a session start would name to carry the 將 on (replay-format.md: dealer, streak,
    round wind, start seat), as the hands left it: 連莊 on a drawn hand adds one."""
    t = Script(quiet(dealer=2), dealer=2, streak=3, round_wind="S", start_seat=1)
    assert t.mirror.session_deal() == {
        "dealer": 2, "streak": 3, "round_wind": "S", "start_seat": 1,
    }  # fmt: skip
    t.burn(0, seat=2)
    t.finish()
    assert t.hand().result == "drawn"
    assert t.mirror.session_deal() == {
        "dealer": 2, "streak": 4, "round_wind": "S", "start_seat": 1,
    }  # fmt: skip
