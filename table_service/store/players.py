"""The club's players and what their play shows: a projection of the records.

A player's figures are counted from the rows the fold derived (hands, the ledger,
violations) for the seats the player took (`seats`), so a referee's ruling, which
derives those rows again, changes them like every other figure. A merged player's
history counts under the player it joined.
"""

from __future__ import annotations

import csv
import io
import math
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final, NamedTuple

from sqlalchemy import Select, case, func, literal, null, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from table_service.mirror.play import DEAL_IN_KINDS
from table_service.mirror.records import VIOLATION_CODES
from table_service.mirror.session import preset_of
from table_service.rules.shapes import WAIT_SHAPES
from table_service.rules.table import SEATS
from table_service.store.errors import InvalidEntry, NotFound
from table_service.store.models import (
    CorrectionModel,
    HandModel,
    LedgerLine,
    Log,
    PlayerModel,
    SeatModel,
    SessionModel,
    ViolationModel,
)
from table_service.store.rows import ItemWins, PlayerHand, PlayerRow, PlayerStats, Standing

WINS: Final = ("win", "flower_win")


def player_row(row: PlayerModel) -> PlayerRow:
    return PlayerRow.model_validate(row, from_attributes=True)


def _clean(value: str | None, what: str, longest: int) -> str | None:
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > longest or any(c in text for c in "\r\n\t"):
        raise InvalidEntry(f"a player's {what} is one line of 1-{longest} characters")
    return text


def add_player(
    session: Session, name: str, nickname: str | None, member_no: str | None
) -> PlayerRow:
    row = PlayerModel(
        name=_clean(name, "name", 64),
        nickname=_clean(nickname, "nickname", 64),
        member_no=_clean(member_no, "member number", 32),
        created_at=time.time(),
    )
    session.add(row)
    _flush_unique(session, row)
    return player_row(row)


def _flush_unique(session: Session, row: PlayerModel) -> None:
    name, number = row.name, row.member_no  # (a failed flush expires the row)
    try:
        session.flush()
    except IntegrityError:
        taken = f"named {name!r}" + (f" or numbered {number!r}" if number else "")
        raise InvalidEntry(f"a player {taken} is already listed") from None


def player_or_raise(session: Session, player_id: int) -> PlayerModel:
    row = session.get(PlayerModel, player_id)
    if row is None:
        raise NotFound(f"no player {player_id}")
    return row


def change_player(session: Session, player_id: int, changes: dict[str, str | None]) -> PlayerRow:
    """A new name, nickname or member number (a key given as null clears it)."""
    row = player_or_raise(session, player_id)
    if "name" in changes:
        if changes["name"] is None:
            raise InvalidEntry("a player has a name")
        row.name = str(_clean(changes["name"], "name", 64))
    if "nickname" in changes:
        row.nickname = _clean(changes["nickname"], "nickname", 64)
    if "member_no" in changes:
        row.member_no = _clean(changes["member_no"], "member number", 32)
    _flush_unique(session, row)
    return player_row(row)


def merge_players(session: Session, player_id: int, into: int) -> PlayerRow:
    """`player_id`'s history counts under `into` from now on (both kept). A missing
    `into` is a refused body (409), not a missing resource: the path's player exists."""
    merged, kept = player_or_raise(session, player_id), session.get(PlayerModel, into)
    if kept is None:
        raise InvalidEntry(f"no player {into} to merge player {player_id} into")
    if merged.merged_into is not None:
        raise InvalidEntry(f"player {player_id} was already merged into {merged.merged_into}")
    if kept.merged_into is not None or kept.id == merged.id:
        raise InvalidEntry(f"player {into} cannot take another's history (merged or the same)")
    merged.merged_into = kept.id
    for earlier in session.scalars(select(PlayerModel).where(PlayerModel.merged_into == merged.id)):
        earlier.merged_into = kept.id  # one level: whoever had joined it joins `into`
    session.flush()
    return player_row(kept)


def members(session: Session, player_id: int) -> list[int]:
    """The player and every player merged into it."""
    merged = select(PlayerModel.id).where(PlayerModel.merged_into == player_id)
    return [player_id, *session.scalars(merged)]


def seated_elsewhere(session: Session, player_ids: list[int], table: str) -> list[tuple[int, str]]:
    """Players of `player_ids` seated in a session not ended at another table."""
    query = (
        select(SeatModel.player_id, SessionModel.table)
        .join(SessionModel, SessionModel.id == SeatModel.session_id)
        .where(
            SeatModel.player_id.in_(player_ids),
            SessionModel.ended_log_id.is_(None),
            SessionModel.table != table,
        )
    )
    return [(int(pid), str(t)) for pid, t in session.execute(query)]


def _seats_of(session: Session, player_id: int) -> Select[int, int, int]:
    """The (session, seat, player) rows of a player's seats, a merged player's included."""
    query = select(SeatModel.session_id, SeatModel.seat, literal(player_id))
    return query.where(SeatModel.player_id.in_(members(session, player_id)))


def player_stats(
    session: Session,
    player_id: int,
    session_id: int | None = None,
    since: float | None = None,
    until: float | None = None,
    profile: str | None = None,
    cache: FiguresCache | None = None,
) -> PlayerStats:
    """The player's figures over the hands of their seats (a merged player's included),
    within a session or a span of time (a hand's time: the entry that ended it), and in
    the sessions of one rule profile (the preset they started from)."""
    player_or_raise(session, player_id)
    seats = _seats_of(session, player_id)
    if session_id is not None:
        seats = seats.where(SeatModel.session_id == session_id)
    if profile is not None:
        seats = seats.where(SeatModel.session_id.in_(_sessions_of(session, seats, profile)))
    found = _stats_by_player(session, seats, since, until, cache=cache).get(player_id)
    return found if found is not None else Tally().stats(player_id)


def _sessions_of(session: Session, seats: Select[int, int, int], profile: str) -> list[int]:
    """Of the sessions `seats` names, those played by the preset `profile` (a session's
    profile is a preset's name or its overrides of one; compared here, not in SQL, where
    the two databases read JSON differently)."""
    ids = select(seats.subquery().c[0])
    query = select(SessionModel.id, SessionModel.profile).where(SessionModel.id.in_(ids))
    return [sid for sid, spec in session.execute(query) if preset_of(spec) == profile]


# A hand's columns the figures read (`_figures`), not the ORM object: an object and its
# five JSON columns decoded for every hand were most of a page's time. The play's figures
# are read out of its JSON by the database (a path each), so no hand's play is decoded
# here; the 台 items only where they are shown (a leaderboard ranks without them).
HAND_FIGURES: Final = (
    HandModel.id,
    HandModel.session_id,
    HandModel.seat,
    HandModel.payer,
    HandModel.dealer,
    HandModel.result,
    HandModel.kind,
    HandModel.tai,
    HandModel.streak,
)
SEAT_PLAY: Final = ("ready_round", "turns", "turn_ms")
PLAY_FIGURES: Final = (
    HandModel.play["seconds"].as_float(),
    HandModel.play["go_rounds"].as_integer(),
    HandModel.play["wait"].as_string(),
    HandModel.play["deal_in_round"].as_integer(),
    *(
        HandModel.play[("seats", seat, key)].as_integer()
        for seat in range(SEATS)
        for key in SEAT_PLAY
    ),
)
WON_LOST: Final = (
    func.sum(case((LedgerLine.amount > 0, LedgerLine.amount), else_=0)),
    func.sum(case((LedgerLine.amount < 0, LedgerLine.amount), else_=0)),
)

TIMES: Final = (func.min(Log.ts), func.max(Log.ts))  # a group's first and last row


def _span(since: float | None, until: float | None) -> list[Any]:
    """A span of time as conditions on the log (a hand's time: its entry's)."""
    in_span = [Log.ts >= since] if since is not None else []
    return in_span + ([Log.ts < until] if until is not None else [])


def _stats_by_player(
    session: Session,
    seats: Select[int, int, int],
    since: float | None,
    until: float | None,
    with_items: bool = True,
    cache: FiguresCache | None = None,
) -> dict[int, PlayerStats]:
    """The figures of every player `seats` names ((session, seat, player) rows): each
    player's the sum of the tallies of their seats (`Tally`, the one definition), each
    session's tallies counted from its hands, money and violations (three queries for
    any number of sessions). `cache`: a session's tallies counted before serve while its
    rows stand, so a hand stored recounts its own session only. `with_items`: count the
    台 items won most often (`top_items`, else left empty)."""
    seat_of: dict[int, dict[int, int]] = defaultdict(dict)  # player -> session -> seat
    for sid, seat, player in session.execute(seats):
        seat_of[int(player)][int(sid)] = int(seat)
    sessions = {sid for sat in seat_of.values() for sid in sat}
    if not sessions:
        return {}
    if cache is None:
        tallies = _count_sessions(session, sessions, since, until, with_items)
    else:
        tallies = cache.tallies(session, sessions, since, until)
    out = {}
    for player, sat in seat_of.items():
        total = Tally()
        for sid, seat in sat.items():
            part = tallies.get(sid)
            if part is not None:
                total.add(part.seats[seat])
        out[player] = total.stats(player, with_items)
    return out


@dataclass
class Tally:
    """A seat's play summed over hands, money and violations: every figure of a player is
    counted from one. Tallies add (a player's is the sum of the seats they took), so a
    session's are counted once and kept while its rows stand (`FiguresCache`)."""

    sessions: int = 0  # sessions with a hand (1 for one seat's, once it has one)
    hands: int = 0
    wins: int = 0
    self_draws: int = 0
    deal_ins: int = 0
    false_wins: int = 0
    dealer_hands: int = 0
    dealer_wins: int = 0
    longest: int = 0
    biggest: tuple[int, int] | None = None  # (台, -hand id): the most 台, the first such win
    win_tai: int = 0
    deal_in_tai: int = 0
    won: int = 0
    lost: int = 0  # a sum of negative amounts
    items: Counter[str] = field(default_factory=Counter)
    violations: Counter[str] = field(default_factory=Counter)
    # what only the sensors see (HandPlay), over the hands that carry it
    sensed: int = 0
    shapes: Counter[str] = field(default_factory=Counter)
    ready: int = 0
    ready_rounds: int = 0
    deal_in_rounds: int = 0  # deal-ins whose go-round is known
    deal_in_round_sum: int = 0
    turns: int = 0
    turn_ms: int = 0
    seconds: float = 0.0
    go_rounds: int = 0

    def hand(self, h: _Hand, seat: int) -> None:
        """One hand played at `seat`."""
        self.hands += 1
        if h.dealer == seat:
            self.dealer_hands += 1
            self.longest = max(self.longest, h.streak)
        won = h.result in WINS and h.seat == seat
        dealt_in = not won and _dealt_in(h, seat)
        if won:
            self.wins += 1
            self.dealer_wins += h.dealer == seat
            self.self_draws += h.payer is None
            self.win_tai += h.tai
            if self.biggest is None or (h.tai, -h.id) > self.biggest:
                self.biggest = (h.tai, -h.id)
            self.items.update({str(item["id"]) for item in h.items})
        elif dealt_in:
            self.deal_ins += 1
            self.deal_in_tai += h.tai
        elif h.result == "false_win" and h.seat == seat:
            self.false_wins += 1
        play = h.play
        if play is None:
            return
        ready, turns, ms = play.seats[seat]
        self.sensed += 1
        self.ready += ready is not None
        self.ready_rounds += ready or 0
        self.turns += turns
        self.turn_ms += ms
        self.seconds += play.seconds
        self.go_rounds += play.go_rounds
        if won and play.wait:
            self.shapes[play.wait] += 1
        if dealt_in and play.deal_in_round:
            self.deal_in_rounds += 1
            self.deal_in_round_sum += play.deal_in_round

    def add(self, other: Tally) -> None:
        """Another tally's play (of another session) added to this one."""
        for name in _SUMMED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.longest = max(self.longest, other.longest)
        if other.biggest is not None and (self.biggest is None or other.biggest > self.biggest):
            self.biggest = other.biggest
        for counter in ("items", "violations", "shapes"):
            getattr(self, counter).update(getattr(other, counter))

    def stats(self, player_id: int, with_items: bool = True) -> PlayerStats:
        """The figures, as the API gives them."""
        wins = self.wins
        top = sorted(self.items.items(), key=lambda kv: (-kv[1], kv[0]))[:5] if with_items else []
        return PlayerStats(
            player_id=player_id,
            sessions=self.sessions,
            hands=self.hands,
            wins=wins,
            self_draws=self.self_draws,
            discard_wins=wins - self.self_draws,
            deal_ins=self.deal_ins,
            false_wins=self.false_wins,
            violations=dict(sorted((+self.violations).items())),
            net=self.won + self.lost,
            won=self.won,
            lost=-self.lost,
            win_rate=_ratio(wins, self.hands),
            self_draw_rate=_ratio(self.self_draws, wins),
            deal_in_rate=_ratio(self.deal_ins, self.hands),
            tai_per_win=_ratio(self.win_tai, wins),
            tai_per_deal_in=_ratio(self.deal_in_tai, self.deal_ins),
            dealer_hands=self.dealer_hands,
            dealer_wins=self.dealer_wins,
            longest_streak=self.longest,
            biggest_hand=None if self.biggest is None else -self.biggest[1],
            biggest_tai=None if self.biggest is None else self.biggest[0],
            top_items=[ItemWins(id=i, wins=n) for i, n in top],
            sensed_hands=self.sensed,
            wait_shapes={shape: self.shapes[shape] for shape in WAIT_SHAPES if self.shapes[shape]},
            ready_rate=_ratio(self.ready, self.sensed),
            ready_round=_ratio(self.ready_rounds, self.ready),
            deal_in_round=_ratio(self.deal_in_round_sum, self.deal_in_rounds),
            seconds_per_turn=_ratio(self.turn_ms / 1000, self.turns),
            hand_seconds=_ratio(self.seconds, self.sensed),
            go_rounds=_ratio(self.go_rounds, self.sensed),
        )


# The counts a tally adds (the numbers; `longest` and `biggest` take the larger instead).
_SUMMED: Final = tuple(
    f.name for f in fields(Tally) if isinstance(f.default, int | float) and f.name != "longest"
)


@dataclass
class SessionTally:
    """A session's tallies, a seat each, and the times of its first and last row (hand,
    ledger line, violation): whether a span holds the session whole."""

    seats: list[Tally]
    first: float = math.inf
    last: float = -math.inf

    def seen_at(self, ts: float) -> None:
        self.first = min(self.first, ts)
        self.last = max(self.last, ts)

    def within(self, since: float | None, until: float | None) -> bool | None:
        """True: the span holds the whole session; False: none of it; None: a part."""
        if self.first > self.last:  # no row at all
            return False
        starts_in = since is None or self.first >= since
        ends_in = until is None or self.last < until
        if starts_in and ends_in:
            return True
        if (since is not None and self.last < since) or (until is not None and self.first >= until):
            return False
        return None


def _count_sessions(
    session: Session,
    sessions: set[int],
    since: float | None,
    until: float | None,
    with_items: bool = True,
) -> dict[int, SessionTally]:
    """Each session's tallies over a span, counted from its rows: its hands, its money and
    its violations, read in three queries however many sessions."""
    out = {sid: SessionTally([Tally() for _ in range(SEATS)]) for sid in sessions}
    in_span = _span(since, until)
    query = (
        select(*HAND_FIGURES, HandModel.items if with_items else null(), Log.ts, *PLAY_FIGURES)
        .join(Log, Log.id == HandModel.log_id)
        .where(HandModel.session_id.in_(sessions), *in_span)
        .order_by(HandModel.id)
    )
    columns = len(HAND_FIGURES)
    for row in session.execute(query):
        hand = _Hand._make((*row[:columns], row[columns] or [], _Play.of(row[columns + 2 :])))
        part = out[hand.session_id]
        part.seen_at(row[columns + 1])
        for seat, tally in enumerate(part.seats):
            tally.hand(hand, seat)
    lines = (
        select(
            LedgerLine.session_id, LedgerLine.seat, *WON_LOST, func.min(Log.ts), func.max(Log.ts)
        )
        .join(Log, Log.id == LedgerLine.log_id)
        .where(LedgerLine.session_id.in_(sessions), *in_span)
        .group_by(LedgerLine.session_id, LedgerLine.seat)
    )
    for sid, seat, won, lost, first, last in session.execute(lines):
        part = out[int(sid)]
        part.seats[int(seat)].won += int(won or 0)
        part.seats[int(seat)].lost += int(lost or 0)
        part.seen_at(first)
        part.seen_at(last)
    codes = (
        select(
            ViolationModel.session_id,
            ViolationModel.seat,
            ViolationModel.code,
            func.count(),
            *TIMES,
        )
        .join(Log, Log.id == ViolationModel.log_id)
        .where(ViolationModel.session_id.in_(sessions), *in_span)
        .group_by(ViolationModel.session_id, ViolationModel.seat, ViolationModel.code)
    )
    for sid, seat, code, n, first, last in session.execute(codes):
        part = out[int(sid or 0)]  # (of `sessions`: never a violation of no session)
        part.seats[int(seat)].violations[str(code)] += int(n)
        part.seen_at(first)
        part.seen_at(last)
    for part in out.values():
        for tally in part.seats:
            tally.sessions = int(tally.hands > 0)
    return out


def player_hands(session: Session, player_id: int, limit: int = 1000) -> list[PlayerHand]:
    """The player's newest `limit` hands (a merged player's included), oldest first."""
    player_or_raise(session, player_id)
    seat_of = {
        int(sid): int(seat) for sid, seat, _ in session.execute(_seats_of(session, player_id))
    }
    if not seat_of:
        return []
    query = (
        select(HandModel, Log.ts)
        .join(Log, Log.id == HandModel.log_id)
        .where(HandModel.session_id.in_(seat_of))
        .order_by(HandModel.id.desc())
        .limit(limit)
    )
    out = []
    for hand, ts in session.execute(query):
        session_id = int(hand.session_id or 0)  # (in seat_of: never a hand of no session)
        seat = seat_of[session_id]
        out.append(
            PlayerHand(
                hand_id=hand.id,
                session_id=session_id,
                table=hand.table,
                hand_no=hand.hand_no,
                at=ts,
                seat=seat,
                result=hand.result,
                won=hand.result in WINS and hand.seat == seat,
                dealt_in=_dealt_in(hand, seat),
                tai=hand.tai,
                net=int(hand.net[seat]),
            )
        )
    return out[::-1]


def _dealt_in(hand: Any, seat: int) -> bool:
    return bool(hand.result in WINS and hand.kind in DEAL_IN_KINDS and hand.payer == seat)


class _Hand(NamedTuple):
    """A hand as the figures read it (HAND_FIGURES' columns): a tuple, read by name at a
    tuple's speed (a database row's attributes cost ten times as much)."""

    id: int
    session_id: int
    seat: int | None
    payer: int | None
    dealer: int
    result: str
    kind: str | None
    tai: int
    streak: int
    items: list[dict[str, Any]]  # [] where not read
    play: _Play | None  # None for a hand stored before the sensors' figures


class _Play(NamedTuple):
    """A hand's play (records.HandPlay) as the figures read it."""

    seconds: float
    go_rounds: int
    wait: str | None
    deal_in_round: int | None
    seats: tuple[tuple[int | None, int, int], ...]  # (ready_round, turns, turn_ms) by seat

    @classmethod
    def of(cls, columns: Sequence[Any]) -> _Play | None:
        """From PLAY_FIGURES' columns (all null for a hand with no play)."""
        seconds, go_rounds, wait, deal_in, *seats = columns
        if go_rounds is None:
            return None
        n = len(SEAT_PLAY)
        by_seat = tuple(
            (seats[i], seats[i + 1] or 0, seats[i + 2] or 0) for i in range(0, len(seats), n)
        )
        return cls(float(seconds or 0), int(go_rounds), wait, deal_in, by_seat)


def _ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


# The figures a leaderboard ranks by, and whether less is better (a deal-in rate).
RANKED: Final[dict[str, bool]] = {
    "net": False,
    "wins": False,
    "win_rate": False,
    "self_draws": False,
    "self_draw_rate": False,
    "deal_in_rate": True,
    "tai_per_win": False,
    "hands": False,
    "dealer_wins": False,
    "longest_streak": False,
    "ready_rate": False,
    "ready_round": True,
    "seconds_per_turn": True,
}


class FiguresCache:
    """Each session's tallies as last counted, kept while the session's rows stand: a
    leaderboard or a player's page after a hand is stored counts that hand's session again,
    not the club's history. A session's rows change by growing (its hands and violations,
    read as a count and the newest id of each per session, which a late commit cannot
    hide) or by a ruling (each ruling's `effect` names the sessions it derived again, and
    a penalty or a deal its own). `mjtable db refold` rewrites rows in another process with
    the service stopped: a service starts with no tallies."""

    def __init__(self) -> None:
        self.kept: dict[int, tuple[tuple[int, ...], SessionTally]] = {}  # session -> (mark, …)
        self.rulings: set[int] = set()  # the rulings whose sessions are accounted for
        self.lock = threading.Lock()  # the API's readers share it from their threads

    def clear(self) -> None:
        with self.lock:
            self.kept.clear()
            self.rulings.clear()

    def tallies(
        self, session: Session, sessions: set[int], since: float | None, until: float | None
    ) -> dict[int, SessionTally]:
        """The sessions' tallies over a span: a session the span holds whole from what is
        kept (counted now if its rows changed), one it cuts counted over the span."""
        with self.lock:  # one reader counts; the others find its tallies
            marks = self._marks(session, sessions)
            stale = {
                sid
                for sid in sessions
                if (kept := self.kept.get(sid)) is None or kept[0] != marks.get(sid)
            }
            if stale:
                for sid, part in _count_sessions(session, stale, None, None).items():
                    self.kept[sid] = (marks[sid], part)
            whole = {sid: self.kept[sid][1] for sid in sessions}
        cut = {sid for sid, part in whole.items() if part.within(since, until) is None}
        counted = _count_sessions(session, cut, since, until) if cut else {}
        out = {sid: part for sid, part in whole.items() if part.within(since, until)}
        out.update(counted)
        return out

    def _marks(self, session: Session, sessions: set[int]) -> dict[int, tuple[int, ...]]:
        """Each session's rows' mark (hands and violations: how many, the newest id); the
        tallies of sessions a new ruling derived again are dropped."""
        self._follow_rulings(session)
        marks = {sid: [0, 0, 0, 0] for sid in sessions}
        for place, model in ((0, HandModel), (2, ViolationModel)):
            query = (
                select(model.session_id, func.count(), func.max(model.id))
                .where(model.session_id.is_not(None))
                .group_by(model.session_id)
            )
            for sid, n, newest in session.execute(query):
                if (mark := marks.get(int(sid or 0))) is not None:
                    mark[place : place + 2] = [int(n), int(newest or 0)]
        return {sid: tuple(mark) for sid, mark in marks.items()}

    def _follow_rulings(self, session: Session) -> None:
        ids = set(session.scalars(select(CorrectionModel.id)))
        new = ids - self.rulings
        if not new:
            return
        query = select(CorrectionModel.session_id, CorrectionModel.effect).where(
            CorrectionModel.id.in_(new)
        )
        for sid, effect in session.execute(query):
            touched = [sid] + [m["session_id"] for m in (effect or {}).get("money", [])]
            for touched_id in touched:
                self.kept.pop(touched_id, None)
        self.rulings |= new


def everyones_stats(
    session: Session,
    since: float | None = None,
    until: float | None = None,
    profile: str | None = None,
    with_items: bool = True,
    cache: FiguresCache | None = None,
) -> list[tuple[PlayerRow, PlayerStats]]:
    """Every listed player's figures over a span (merged players' seats under the player
    kept); players with no hand there are left out. `cache`: the tallies of sessions whose
    rows stand serve again."""
    listed = session.scalars(
        select(PlayerModel).where(PlayerModel.merged_into.is_(None)).order_by(PlayerModel.name)
    )
    kept = func.coalesce(PlayerModel.merged_into, PlayerModel.id)  # a merged seat: its player's
    seats = select(SeatModel.session_id, SeatModel.seat, kept).join(
        PlayerModel, PlayerModel.id == SeatModel.player_id
    )

    if profile is not None:
        seats = seats.where(SeatModel.session_id.in_(_sessions_of(session, seats, profile)))
    everyone = _stats_by_player(session, seats, since, until, with_items, cache)
    found = [(row, everyone.get(row.id)) for row in listed]
    return [(player_row(row), stats) for row, stats in found if stats is not None and stats.hands]


def leaderboard(
    session: Session,
    figure: str,
    since: float | None = None,
    until: float | None = None,
    min_hands: int = 0,
    profile: str | None = None,
    cache: FiguresCache | None = None,
) -> list[Standing]:
    """The listed players (merged ones under the player kept) ranked by one figure over a
    span, those with fewer than `min_hands` hands (or no value) left out."""
    if figure not in RANKED:
        raise InvalidEntry(f"figure must be one of {', '.join(RANKED)}")
    scored = []
    everyone = everyones_stats(session, since, until, profile, with_items=False, cache=cache)
    for player, stats in everyone:
        value = getattr(stats, figure)
        if stats.hands >= max(min_hands, 1) and value is not None:
            scored.append((float(value), player, stats.hands))
    scored.sort(key=lambda s: (s[0] if RANKED[figure] else -s[0], s[1].name))
    standings: list[Standing] = []
    for place, (value, player, hands) in enumerate(scored, 1):
        tied = standings and standings[-1].value == value
        rank = standings[-1].rank if tied else place
        standings.append(Standing(rank=rank, player=player, value=value, hands=hands))
    return standings


def stats_csv(rows: list[tuple[PlayerRow, PlayerStats]]) -> str:
    """Players' figures as a spreadsheet (UTF-8 with a BOM): a row a player, a column a
    figure as the API names it; violations and waits a column per code and shape, the 台
    items won most often as `id×n` in one cell."""
    scalar = [
        name
        for name in PlayerStats.model_fields
        if name not in ("player_id", "violations", "wait_shapes", "top_items")
    ]
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "player_id",
            "name",
            "nickname",
            "member_no",
            *scalar,
            *(f"violations.{code}" for code in VIOLATION_CODES),
            *(f"waits.{shape}" for shape in WAIT_SHAPES),
            "top_items",
        ]
    )
    for player, stats in rows:
        writer.writerow(
            [
                player.id,
                player.name,
                player.nickname or "",
                player.member_no or "",
                *("" if (v := getattr(stats, name)) is None else v for name in scalar),
                *(stats.violations.get(code, 0) for code in VIOLATION_CODES),
                *(stats.wait_shapes.get(shape, 0) for shape in WAIT_SHAPES),
                " ".join(f"{item.id}×{item.wins}" for item in stats.top_items),
            ]
        )
    return out.getvalue()
