"""The club's players and what their play shows: a projection of the records.

A player's figures are counted from the rows the fold derived (hands, the ledger,
violations) for the seats the player took (`seats`), so a referee's ruling, which
derives those rows again, changes them like every other figure. A merged player's
history counts under the player it joined.
"""

from __future__ import annotations

import csv
import io
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
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
    found = _stats_by_player(session, seats, since, until).get(player_id)
    return found if found is not None else _figures(player_id, {}, [], [], Counter())


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
    HandModel.id, HandModel.session_id, HandModel.seat, HandModel.payer, HandModel.dealer,
    HandModel.result, HandModel.kind, HandModel.tai, HandModel.streak,
)  # fmt: skip
SEAT_PLAY: Final = ("ready_round", "turns", "turn_ms")
PLAY_FIGURES: Final = (
    HandModel.play["seconds"].as_float(), HandModel.play["go_rounds"].as_integer(),
    HandModel.play["wait"].as_string(), HandModel.play["deal_in_round"].as_integer(),
    *(HandModel.play[("seats", seat, key)].as_integer()
      for seat in range(SEATS) for key in SEAT_PLAY),
)  # fmt: skip
WON_LOST: Final = (
    func.sum(case((LedgerLine.amount > 0, LedgerLine.amount), else_=0)),
    func.sum(case((LedgerLine.amount < 0, LedgerLine.amount), else_=0)),
)


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
) -> dict[int, PlayerStats]:
    """The figures of every player `seats` names ((session, seat, player) rows): the
    hands, money and violations of all their sessions read once (three queries, however
    many players), then each player's counted by `_figures`, the one definition.
    `with_items`: count the 台 items won most often (`top_items`, else left empty)."""
    seat_of: dict[int, dict[int, int]] = defaultdict(dict)  # player -> session -> seat
    for sid, seat, player in session.execute(seats):
        seat_of[int(player)][int(sid)] = int(seat)
    sessions = {sid for sat in seat_of.values() for sid in sat}
    if not sessions:
        return {}
    in_span = _span(since, until)
    hands: dict[int, list[_Hand]] = defaultdict(list)
    query = (
        select(*HAND_FIGURES, HandModel.items if with_items else null(), *PLAY_FIGURES)
        .join(Log, Log.id == HandModel.log_id)
        .where(HandModel.session_id.in_(sessions), *in_span)
        .order_by(HandModel.id)
    )
    columns = len(HAND_FIGURES)
    for row in session.execute(query):
        items = row[columns] or []
        hand = _Hand._make((*row[:columns], items, _Play.of(row[columns + 1 :])))
        hands[hand.session_id].append(hand)
    money: dict[tuple[int, int], list[int]] = {}  # (session, seat) -> [won, lost]
    lines = (
        select(LedgerLine.session_id, LedgerLine.seat, *WON_LOST)
        .join(Log, Log.id == LedgerLine.log_id)
        .where(LedgerLine.session_id.in_(sessions), *in_span)
        .group_by(LedgerLine.session_id, LedgerLine.seat)
    )
    for sid, seat, won, lost in session.execute(lines):
        money[(int(sid), int(seat))] = [int(won or 0), int(lost or 0)]
    flagged: dict[tuple[int, int], Counter[str]] = defaultdict(Counter)
    codes = (
        select(ViolationModel.session_id, ViolationModel.seat, ViolationModel.code, func.count())
        .join(Log, Log.id == ViolationModel.log_id)
        .where(ViolationModel.session_id.in_(sessions), *in_span)
        .group_by(ViolationModel.session_id, ViolationModel.seat, ViolationModel.code)
    )
    for violation_session, seat, code, n in session.execute(codes):
        flagged[(int(violation_session or 0), int(seat))][str(code)] += int(n)
    out = {}
    for player, sat in seat_of.items():
        played = sorted((h for sid in sat for h in hands[sid]), key=lambda h: h.id)
        amounts = [(sid, seat, a) for sid, seat in sat.items() for a in money.get((sid, seat), [])]
        breaches: Counter[str] = sum((flagged[(sid, seat)] for sid, seat in sat.items()), Counter())
        out[player] = _figures(player, sat, played, amounts, breaches)
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


def _figures(
    player_id: int,
    seat_of: dict[int, int],
    hands: list[_Hand],
    lines: list[tuple[int, int, int]],
    flagged: Counter[str],
) -> PlayerStats:
    """The figures from the rows (kept apart from the queries, so each reads as its
    definition): the one place each figure is defined."""
    wins: list[_Hand] = []
    dealt_in: list[_Hand] = []
    false_wins = dealer_hands = dealer_wins = longest = 0
    for h in hands:
        seat = seat_of[h.session_id]
        if h.dealer == seat:
            dealer_hands += 1
            longest = max(longest, h.streak)
        if h.result in WINS and h.seat == seat:
            wins.append(h)
            dealer_wins += h.dealer == seat
        elif _dealt_in(h, seat):
            dealt_in.append(h)
        elif h.result == "false_win" and h.seat == seat:
            false_wins += 1
    self_drawn = sum(1 for h in wins if h.payer is None)
    amounts = [a for sid, seat, a in lines if seat_of[sid] == seat]
    biggest = max(wins, key=lambda h: (h.tai, -h.id), default=None)
    items: Counter[str] = Counter()
    for hand in wins:
        items.update({str(item["id"]) for item in hand.items})
    count = len(hands)
    return PlayerStats(
        **_sensed(seat_of, hands, wins, dealt_in),
        player_id=player_id,
        sessions=len({h.session_id for h in hands}),
        hands=count,
        wins=len(wins),
        self_draws=self_drawn,
        discard_wins=len(wins) - self_drawn,
        deal_ins=len(dealt_in),
        false_wins=false_wins,
        violations=dict(sorted(flagged.items())),
        net=sum(amounts),
        won=sum(a for a in amounts if a > 0),
        lost=-sum(a for a in amounts if a < 0),
        win_rate=_ratio(len(wins), count),
        self_draw_rate=_ratio(self_drawn, len(wins)),
        deal_in_rate=_ratio(len(dealt_in), count),
        tai_per_win=_ratio(sum(h.tai for h in wins), len(wins)),
        tai_per_deal_in=_ratio(sum(h.tai for h in dealt_in), len(dealt_in)),
        dealer_hands=dealer_hands,
        dealer_wins=dealer_wins,
        longest_streak=longest,
        biggest_hand=biggest.id if biggest is not None else None,
        biggest_tai=biggest.tai if biggest is not None else None,
        top_items=[ItemWins(id=i, wins=n) for i, n in items.most_common(5)],
    )


def _ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def _sensed(
    seat_of: dict[int, int], hands: list[_Hand], wins: list[_Hand], dealt_in: list[_Hand]
) -> dict[str, Any]:
    """The figures only the sensors give (each hand's `play`), over the hands that have it."""
    sensed = [(h.session_id, h.play) for h in hands if h.play is not None]
    mine = [play.seats[seat_of[sid]] for sid, play in sensed]  # (ready_round, turns, ms)
    ready = [r for r, _, _ in mine if r is not None]
    turns = sum(n for _, n, _ in mine)
    shapes = Counter(h.play.wait for h in wins if h.play and h.play.wait)
    rounds = [h.play.deal_in_round for h in dealt_in if h.play and h.play.deal_in_round]
    return {
        "sensed_hands": len(sensed),
        "wait_shapes": {shape: shapes[shape] for shape in WAIT_SHAPES if shapes[shape]},
        "ready_rate": _ratio(len(ready), len(sensed)),
        "ready_round": _ratio(sum(ready), len(ready)),
        "deal_in_round": _ratio(sum(rounds), len(rounds)),
        "seconds_per_turn": _ratio(sum(ms for _, _, ms in mine) / 1000, turns),
        "hand_seconds": _ratio(sum(play.seconds for _, play in sensed), len(sensed)),
        "go_rounds": _ratio(sum(play.go_rounds for _, play in sensed), len(sensed)),
    }


# The figures a leaderboard ranks by, and whether less is better (a deal-in rate).
RANKED: Final[dict[str, bool]] = {
    "net": False, "wins": False, "win_rate": False, "self_draws": False,
    "self_draw_rate": False, "deal_in_rate": True, "tai_per_win": False, "hands": False,
    "dealer_wins": False, "longest_streak": False, "ready_rate": False, "ready_round": True,
    "seconds_per_turn": True,
}  # fmt: skip


def records_version(session: Session) -> tuple[int, ...]:
    """What every player's figures are counted from, as it stands now, in a few index
    reads: a hand or a violation stored, a ruling (every re-derivation is one), a session
    started, a seat taken or changed, a player merged each change it. (A rename does not:
    the names are read afresh each time.)"""

    def newest(column: Any) -> Any:
        return select(func.coalesce(func.max(column), 0)).scalar_subquery()

    seats = (
        select(func.count(), func.coalesce(func.sum(SeatModel.player_id * (SeatModel.seat + 1)), 0))
        .select_from(SeatModel)
        .subquery()
    )
    merged = select(func.coalesce(func.sum(PlayerModel.merged_into), 0)).scalar_subquery()
    query = select(
        newest(HandModel.id), newest(ViolationModel.id), newest(CorrectionModel.id),
        newest(SessionModel.id), *seats.c, merged,
    )  # fmt: skip
    return tuple(int(v) for v in session.execute(query).one())


class FiguresCache:
    """Every player's figures over a span as last counted, kept while the records they
    were counted from stand unchanged (`records_version`): a leaderboard on a TV asked for
    again and again between two hands is counted once. A small LRU of spans."""

    def __init__(self, size: int = 16) -> None:
        self.size = size
        self.kept: dict[tuple[Any, ...], dict[int, PlayerStats]] = {}
        self.lock = threading.Lock()  # the API's readers share it from their threads

    def figures(self, session: Session, key: tuple[Any, ...], count: Any) -> dict[int, PlayerStats]:
        full = (records_version(session), *key)
        with self.lock:
            found = self.kept.get(full)
        if found is None:
            found = count()  # outside the lock: another span need not wait for it
        with self.lock:
            self.kept.pop(full, None)
            self.kept[full] = found  # the newest last
            while len(self.kept) > self.size:
                del self.kept[next(iter(self.kept))]
        return found


def everyones_stats(
    session: Session,
    since: float | None = None,
    until: float | None = None,
    profile: str | None = None,
    with_items: bool = True,
    cache: FiguresCache | None = None,
) -> list[tuple[PlayerRow, PlayerStats]]:
    """Every listed player's figures over a span (merged players' seats under the player
    kept), in one pass over the records; players with no hand there are left out.
    `cache`: figures counted before from the same records serve again."""
    listed = session.scalars(
        select(PlayerModel).where(PlayerModel.merged_into.is_(None)).order_by(PlayerModel.name)
    )
    kept = func.coalesce(PlayerModel.merged_into, PlayerModel.id)  # a merged seat: its player's
    seats = select(SeatModel.session_id, SeatModel.seat, kept).join(
        PlayerModel, PlayerModel.id == SeatModel.player_id
    )

    def count() -> dict[int, PlayerStats]:
        chosen = seats
        if profile is not None:
            chosen = seats.where(SeatModel.session_id.in_(_sessions_of(session, seats, profile)))
        return _stats_by_player(session, chosen, since, until, with_items)

    key = (since, until, profile, with_items)
    everyone = count() if cache is None else cache.figures(session, key, count)
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
    scalar = [name for name in PlayerStats.model_fields
              if name not in ("player_id", "violations", "wait_shapes", "top_items")]  # fmt: skip
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([
        "player_id", "name", "nickname", "member_no", *scalar,
        *(f"violations.{code}" for code in VIOLATION_CODES),
        *(f"waits.{shape}" for shape in WAIT_SHAPES), "top_items",
    ])  # fmt: skip
    for player, stats in rows:
        writer.writerow([
            player.id, player.name, player.nickname or "", player.member_no or "",
            *("" if (v := getattr(stats, name)) is None else v for name in scalar),
            *(stats.violations.get(code, 0) for code in VIOLATION_CODES),
            *(stats.wait_shapes.get(shape, 0) for shape in WAIT_SHAPES),
            " ".join(f"{item.id}×{item.wins}" for item in stats.top_items),
        ])  # fmt: skip
    return out.getvalue()
