"""The fold: what each kind of log entry does to a table's mirror (one meaning for each).

The live service, a restart and a referee's re-derivation all read a table's log
through this one function, with the rulings in force, so the records they give agree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from firmware_bridge.messages import Event
from table_service.mirror.mirror import TableMirror
from table_service.mirror.records import Fault, Record
from table_service.mirror.rulings import Rulings, parse_ruling
from table_service.mirror.session import SessionStart

NO_RULINGS = Rulings()


def fold(
    mirror: TableMirror,
    kind: str,
    event: Event | None,
    body: Mapping[str, Any] | None,
    rulings: Rulings = NO_RULINGS,
    log_id: int | None = None,
) -> list[Record]:
    """Apply one log entry to a mirror; the records it gives (a service fault's is its own).
    `log_id`: the entry's, so a deal or penalty ruling an undo withdrew is passed over."""
    if kind == "event" and event is not None:
        mirror.overturned = rulings.overturned
        if (event.boot_id, event.seq) not in rulings.named:  # all but the few a referee named
            return mirror.apply(event)
        placed = mirror.hand.where if mirror.hand is not None else {}
        out = mirror.pass_over(event) if rulings.drops(event) else []
        for amended, inserted in rulings.events(event, placed):
            out += mirror.apply(amended, inserted)
        decided = rulings.decided.get((event.boot_id, event.seq))
        if decided is not None:  # the referee says how the hand ended, right after it
            out += mirror.decide_hand(decided)
        return out
    body = dict(body or {})
    if kind == "session":
        return mirror.start_session(SessionStart.model_validate(body))
    if kind == "seating":  # a seat taken before the session's first shuffle
        mirror.seat_player(body["seat"], body["name"], body.get("player_id"))
        return []
    if kind == "session_end":
        mirror.end_session()
        return []
    if kind == "fault":
        return [Fault(table=mirror.table, **body)]
    if kind == "correction" and log_id not in rulings.withdrawn_logs:
        ruling = parse_ruling(body)
        if ruling.kind == "deal":
            mirror.correct_deal(ruling.dealer, ruling.streak, ruling.round_wind)
        elif ruling.kind == "penalty":
            mirror.pay(mirror.penalty(ruling.seat, ruling.tai))
    return []  # a note; a ruling on the past acts where it names
