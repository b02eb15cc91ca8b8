"""What the service tells a table: seat LEDs for whose move it is and who may claim, and an
alert on the seat that broke a rule. Pure: mirror state in, bridge commands out."""

from __future__ import annotations

from typing import Any, Final

from table_service.mirror.records import Record, Violation
from table_service.mirror.state import HandState, open_claims
from table_service.rules.table import SEATS
from table_service.rules.tiles import is_flower_tile, tile_kind

# Violation codes the table's alert catalogue names (docs/protocol.md AlertCode); a claim
# refused for any rule is CLAIM_REFUSED, anything else OTHER.
ALERTS: Final = {
    "out_of_turn": "out_of_turn",
    "wrong_end": "wrong_end",
    "reserve_draw": "wrong_end",
    "false_win": "false_win",
    "passed_win": "false_win",
    "chow_not_from_left": "claim_refused",
    "late_claim": "claim_refused",
    "dead_hand_claim": "claim_refused",
    "passed_pong": "claim_refused",
    "restriction_7": "claim_refused",
    "restriction_8": "claim_refused",
}


def seat_modes(hand: HandState | None) -> list[str]:
    """Each seat's LED: `turn` for the seat to move, `claim` for seats that may claim the
    open discard (a win, a pong or kong, the 下家's chow) by the rules (`open_claims`, the
    public state's answer) and their tiles, `off` otherwise."""
    modes = ["off"] * SEATS
    if hand is None or hand.phase != "play":
        return modes
    modes[hand.turn] = "turn"
    pending = hand.pending
    if pending is None or pending.closed or is_flower_tile(pending.tile):
        return modes
    kind = tile_kind(pending.tile)
    allowed = open_claims(pending, [s.dead for s in hand.seats])  # the rules' one answer
    for seat, claims in enumerate(allowed):
        counts = hand.seats[seat].counts()
        win = "win" in claims and seat in pending.winners
        pong = "pong" in claims and counts[kind] >= 2
        chow = "chow" in claims and _can_chow(counts, kind)
        if win or pong or chow:
            modes[seat] = "claim"
    return modes


def _can_chow(counts: list[int], kind: int) -> bool:
    if kind >= 27:
        return False
    pos = kind % 9
    shapes = [(-2, -1), (-1, 1), (1, 2)]
    return any(
        0 <= pos + a <= 8 and 0 <= pos + b <= 8 and counts[kind + a] and counts[kind + b]
        for a, b in shapes
    )


def led_commands(before: list[str], after: list[str]) -> list[dict[str, Any]]:
    """SEAT_LED commands for the seats whose LED changes (a table is not flooded)."""
    return [
        {"command": "seat_led", "seat": seat, "mode": mode}
        for seat, (was, mode) in enumerate(zip(before, after, strict=True))
        if was != mode
    ]


def alert_commands(records: list[Record]) -> list[dict[str, Any]]:
    """An ALERT on the offending seat for each violation."""
    return [
        {"command": "alert", "seat": r.seat, "code": ALERTS.get(r.code, "other"), "beeps": 2}
        for r in records
        if isinstance(r, Violation)
    ]
