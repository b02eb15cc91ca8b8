"""What the store's queries return (pydantic v2): the API serves these as its responses.

Every field carries a description, so the API's schema documents itself. Times are
Unix seconds (UTC). Codes and settlement kinds are the mirror's (docs/events.md) and
kept as plain strings, so rows written under an older catalogue still read.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from table_service.mirror.records import HandPlay
from table_service.mirror.rulings import Decision, RulingKind
from table_service.rules.tiles import Wind

Status = Literal["open", "confirmed", "dismissed"]
DecisionKind = Literal["confirmed", "dismissed"]  # a violation's status after a verdict
VERDICT_STATUS: Final[dict[Decision, DecisionKind]] = {
    "uphold": "confirmed",
    "overturn": "dismissed",
}
Role = Literal["referee", "admin"]  # what a token may do (the API checks it per route)
ROLES: Final[tuple[Role, ...]] = get_args(Role)


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SessionRow(_Row):
    """A session at a table: who plays, the stakes, where the 將 stood at its start."""

    id: int = Field(description="the session's id")
    table: str = Field(description="the table it is played at")
    players: list[str] = Field(description="the four players' names, by seat 0-3")
    player_ids: list[int | None] = Field(
        description="each seat's player of the club's list (GET /api/players/{id}); null: a "
        "guest, by name alone"
    )
    profile: str | dict[str, Any] = Field(
        description="the rule profile as recorded: a preset's name, or the profile written out"
    )
    profile_label: str = Field(
        description="the profile's name: a preset's, or `<preset> (changed)`"
    )
    rules: dict[str, Any] = Field(
        description="the resolved profile the session is scored by: every taiwan16.md §7 "
        "key (stakes, seat_order, tai, rules) and its value"
    )
    base: int = Field(description="底: the base stake of a win")
    per_tai: int = Field(description="台錢: the money per 台")
    start_seat: int = Field(description="起莊位: the seat where the round-wind marker sits")
    dealer: int | None = Field(
        description="the dealer's seat at the start; null when the start left the deal to the "
        "table and no hand has been played yet (it is then the first hand's)"
    )
    streak: int | None = Field(description="連莊 N at the start (null: as for the dealer)")
    round_wind: Wind | None = Field(
        description="the round wind at the start (null: as for the dealer)"
    )
    started_log_id: int = Field(description="the log entry that started it")
    started_at: float = Field(description="when it started (Unix seconds)")
    ended_log_id: int | None = Field(description="the log entry that ended it; null while open")
    ended_at: float | None = Field(description="when it ended (Unix seconds); null while open")


class TaiItem(_Row):
    """One line of a win's 台 breakdown."""

    id: str = Field(description="the item's id (docs/rules/taiwan16.md)")
    tai: int = Field(description="the 台 it is worth")
    name: str | None = Field(None, description="its Chinese name")
    en: str | None = Field(None, description="its English name")


class PaymentRow(_Row):
    """One payment of a hand's settlement; serialized as `from`/`to` like the live record."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    payer: int = Field(alias="from", description="the seat that pays")
    payee: int = Field(alias="to", description="the seat that is paid")
    amount: int = Field(description="the money")
    tai: int = Field(description="the 台 it pays for")
    dealer_tai: int = Field(description="the dealer's 台 in it (1 + 2N), or 0")


class NextDealRow(_Row):
    """Who deals the hand after this one."""

    dealer: int = Field(description="the next dealer's seat")
    streak: int = Field(description="連莊 N of the next hand")
    round_wind: Wind = Field(description="the next hand's round wind")


class HandRow(_Row):
    """A hand the mirror scored and settled."""

    id: int = Field(description="the hand's id")
    table: str = Field(description="the table it was played at")
    session_id: int | None = Field(description="its session; null when none was open")
    log_id: int = Field(description="the log entry (event) that ended it")
    boot_id: int = Field(description="the controller boot of the event that ended it")
    seq: int = Field(description="the seq of the event that ended it")
    at: float = Field(description="when it ended: the event's time (Unix seconds)")
    hand_no: int = Field(description="the hand's number in its session, from 1")
    round_wind: Wind = Field(description="the hand's round wind")
    dealer: int = Field(description="the hand's dealer seat")
    streak: int = Field(description="連莊 N of the hand")
    result: str = Field(description="win, flower_win, false_win or drawn")
    kind: str | None = Field(description="the settlement kind; null for a drawn hand")
    seat: int | None = Field(description="the winner, or the offender of a false win")
    payer: int | None = Field(description="the one seat that paid (a discard), if one did")
    tai: int = Field(description="the hand's 台 (for a false win, its 牌面)")
    dealer_tai: int = Field(description="1 + 2N when the dealer is a party, else 0")
    winning_tile: str | None = Field(
        None, description="the tile that completed the hand (code); null for 荒局 or a 花胡 alone"
    )
    items: list[TaiItem] = Field(description="the 台 breakdown")
    codes: list[str] = Field(description="for a false win, the violation codes that made it")
    net: list[int] = Field(description="each seat's money for the hand, summing to 0")
    payments: list[PaymentRow] = Field(description="who paid whom")
    next: NextDealRow | None = Field(description="the next deal; null when the 將 is over")
    play: HandPlay | None = Field(
        None, description="what the sensors saw of its play; null for a hand stored before"
    )


class LedgerRow(_Row):
    """One seat's money from a hand or a correction, with that seat's running total."""

    id: int = Field(description="the line's id (the ledger's order)")
    session_id: int = Field(description="the session")
    table: str = Field(description="the table")
    log_id: int = Field(description="the log entry it came from")
    hand_id: int | None = Field(description="the hand, for a hand's line")
    correction_id: int | None = Field(description="the correction, for a correction's line")
    at: float = Field(description="when (the log entry's time, Unix seconds)")
    seat: int = Field(description="the seat, 0-3")
    player: str = Field(description="the player in that seat")
    amount: int = Field(description="the money won (+) or paid (-)")
    total: int = Field(description="the seat's running total up to and including this line")


class StandingRow(_Row):
    """One seat's standing in a session."""

    seat: int = Field(description="the seat, 0-3")
    player: str = Field(description="the player in that seat")
    total: int = Field(description="the money won (+) or lost (-); the four sum to 0")
    hands: int = Field(description="hands played in the session")
    wins: int = Field(description="wins (flower wins included)")
    self_draws: int = Field(description="of those, wins by self-draw (自摸)")
    dealt_in: int = Field(description="hands this seat paid for a discard or a robbed kong (放槍)")
    false_wins: int = Field(description="false wins (詐胡) declared by this seat")


class DecisionRow(_Row):
    """A referee's ruling on a violation; the latest one stands."""

    id: int = Field(description="the verdict ruling's id (an `undo` names it)")
    violation_id: int = Field(description="the violation ruled on")
    decision: DecisionKind = Field(description="confirmed or dismissed")
    note: str = Field(description="the referee's note")
    token_id: int | None = Field(description="the token of the referee who ruled")
    at: float = Field(description="when (Unix seconds)")


class ViolationRow(_Row):
    """A breach the mirror flagged, with the referee's latest ruling."""

    id: int = Field(description="the violation's id")
    table: str = Field(description="the table")
    session_id: int | None = Field(description="its session; null when none was open")
    log_id: int = Field(description="the log entry whose judgement flagged it")
    boot_id: int = Field(description="the controller boot of the event that is the breach")
    seq: int = Field(description="the seq of the event that is the breach")
    at: float = Field(description="when it was flagged (the log entry's time, Unix seconds)")
    seat: int = Field(description="the offender's seat")
    code: str = Field(description="the breach's code (taiwan16.md §3)")
    detail: str = Field(description="a sentence for the referee")
    status: Status = Field(description="open until ruled on, else the latest ruling")
    decision: DecisionRow | None = Field(description="the latest ruling, if any")


class FaultRow(_Row):
    """An impossible event stream (a sensor, not a player)."""

    id: int = Field(description="the fault's id")
    table: str = Field(description="the table")
    session_id: int | None = Field(description="its session; null when none was open")
    log_id: int = Field(description="the log entry whose judgement found it")
    boot_id: int = Field(description="the controller boot of the event concerned")
    seq: int = Field(description="the seq of the event concerned")
    at: float = Field(description="when it was found (the log entry's time, Unix seconds)")
    code: str = Field(description="the fault's code (docs/events.md)")
    detail: str = Field(description="what was impossible")


class CorrectionRow(_Row):
    """A referee's ruling (docs/rules: rulings): who made it, when and why, and what it
    changed."""

    id: int = Field(description="the ruling's id")
    table: str = Field(description="the table")
    session_id: int | None = Field(description="its session; null when none was open")
    log_id: int = Field(description="its log entry")
    kind: RulingKind = Field(
        description="tile, drop, insert (an event read wrongly, a ghost, one missing), "
        "verdict (a violation upheld or overturned), undo, deal, penalty or note"
    )
    body: dict[str, Any] = Field(description="the ruling as entered, with its reason")
    token_id: int | None = Field(description="the token of the referee who ruled")
    at: float = Field(description="when (Unix seconds)")
    effect: dict[str, Any] | None = Field(
        description="what it changed: the log entry its re-derivation began at, the hands "
        "revised ([session, hand number]), each session's money before and after; null for a "
        "ruling that acts where it stands (deal, penalty, note)"
    )
    withdrawn_by: int | None = Field(description="the undo in force that withdrew it, if any")


class TokenRow(_Row):
    """An API token (its secret is never stored, only its hash)."""

    id: int = Field(description="the token's id")
    role: Role = Field(description="referee or admin")
    label: str = Field(description="who or what holds it")
    created_at: float = Field(description="when it was made (Unix seconds)")
    revoked_at: float | None = Field(description="when it was revoked; null while valid")


# --- players (table_service/store/players.py counts them) ---


class PlayerRow(_Row):
    """A player of the club's list."""

    id: int = Field(description="the player's id")
    name: str = Field(description="the name shown (unique in the club)")
    nickname: str | None = Field(description="a nickname, if any")
    member_no: str | None = Field(description="the club's member number, if any")
    merged_into: int | None = Field(description="the player this one was merged into")
    created_at: float = Field(description="when the player was added (Unix seconds)")


class ItemWins(_Row):
    """A 台 item and how many of the player's wins had it."""

    id: str = Field(description="the item's id (GET /api/vocabulary names it)")
    wins: int


class PlayerStats(_Row):
    """A player's figures over the hands of the sessions they sat in (within a span)."""

    player_id: int
    sessions: int = Field(description="sessions in which the player played a hand")
    hands: int = Field(description="hands played (every result)")
    wins: int = Field(description="hands won (a 花胡 included)")
    self_draws: int = Field(description="wins every other seat paid (自摸)")
    discard_wins: int = Field(description="wins one seat paid (on a discard, a robbed kong)")
    deal_ins: int = Field(description="放槍: wins by another seat on this player's discard")
    false_wins: int = Field(description="詐胡 by this player")
    violations: dict[str, int] = Field(description="violations flagged on this player, by code")
    net: int = Field(description="money won less money lost (penalties included)")
    won: int = Field(description="money won, over the hands and penalties that paid it")
    lost: int = Field(description="money lost")
    win_rate: float | None = Field(description="wins / hands")
    self_draw_rate: float | None = Field(description="self-draws / wins")
    deal_in_rate: float | None = Field(description="deal-ins / hands")
    tai_per_win: float | None = Field(description="average 台 of a win")
    tai_per_deal_in: float | None = Field(description="average 台 of a win dealt in")
    dealer_hands: int = Field(description="hands as the dealer")
    dealer_wins: int = Field(description="hands won as the dealer")
    longest_streak: int = Field(description="the longest 連莊 held (N of 連N)")
    biggest_hand: int | None = Field(description="the id of the win of most 台")
    biggest_tai: int | None = Field(description="its 台")
    top_items: list[ItemWins] = Field(description="the 台 items won most often, most first")
    # what only the sensors see (HandPlay), over the hands that carry it
    sensed_hands: int = Field(description="hands whose play the sensors saw (the figures below)")
    wait_shapes: dict[str, int] = Field(
        description="the waits of the wins: single, edge, closed (the 獨聽 shapes), "
        "two_sided, double_pong, multi, other"
    )
    ready_rate: float | None = Field(description="hands in which the hand became ready / hands")
    ready_round: float | None = Field(
        description="the average go-round (巡) whose discard first left the hand ready"
    )
    deal_in_round: float | None = Field(description="the average go-round of a deal-in")
    seconds_per_turn: float | None = Field(
        description="the average time from the draw (or claim) to the discard"
    )
    hand_seconds: float | None = Field(description="the average length of a hand played")
    go_rounds: float | None = Field(description="the average go-rounds (巡) of a hand played")


class PlayerHand(_Row):
    """One hand a player played, as their charts read it."""

    hand_id: int
    session_id: int
    table: str
    hand_no: int = Field(description="the hand's number in its session")
    at: float = Field(description="when it ended (Unix seconds)")
    seat: int = Field(description="the player's seat")
    result: str = Field(description="win, flower_win, false_win or drawn")
    won: bool = Field(description="the player won it")
    dealt_in: bool = Field(description="the player dealt the winning tile in (放槍)")
    tai: int = Field(description="the hand's 台 (a 詐胡's 牌面)")
    net: int = Field(description="the player's money of the hand")


class Standing(_Row):
    """A player's place on a leaderboard."""

    rank: int = Field(description="1 for the best; players of equal value share a rank")
    player: PlayerRow
    value: float | None = Field(description="the figure ranked by")
    hands: int = Field(description="hands played in the span")
