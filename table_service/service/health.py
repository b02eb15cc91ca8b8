"""What the service actually does, for `/api/health` and its availability topic.

Health is judged from facts, not from the process being up: whether the database takes
writes, whether the broker is connected, whether the locks on the tables are held, how
much has arrived and waits to be stored, and how long the oldest of it has waited. Any
of those wrong is `degraded`, with a reason a person can act on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from pydantic import BaseModel, Field

from table_service.service.collector import Frozen
from table_service.service.loop_watch import LoopPauses

STALL_AFTER: Final = 10.0  # seconds entries may wait in the backlog with nothing stored


class TableHealth(BaseModel):
    table: str
    last_stored_age: float | None = Field(
        description="seconds since this process last stored an event of the table (None: not yet)"
    )
    online: bool | None = Field(description="its bridge's availability (None: never heard)")


class Members(BaseModel):
    """Where this process stands among the service processes of one set of records."""

    member: int = Field(description="this process's member slot (0 when it runs alone)")
    members: list[int] = Field(description="the member slots of the processes running now")
    subscribed: list[str] | None = Field(
        description="the tables whose events this process receives (None: every table's, "
        "as the only process)"
    )
    handing_on: list[str] = Field(
        description="tables that belong to another process now, handed on at their hand's end"
    )
    relaying: bool = Field(
        False,
        description="whether the other processes' tables are relayed to this process's "
        "pages (while a page watches, with several processes)",
    )


class Health(BaseModel):
    status: Literal["ok", "degraded"]
    reasons: list[str] = Field(description="why degraded, each a sentence; empty when ok")
    tables: int = Field(description="tables the service follows")
    followed: list[TableHealth]
    waiting: dict[str, int] = Field(
        description="tables heard on the broker but not followed (over the limit of tables, "
        "waiting for an admin to start a session there), with the events refused"
    )
    backlog: int = Field(description="entries received and not yet stored")
    intake_paused: bool = Field(
        description="the backlog passed its limit: events are left with the bridges' outboxes "
        "(durable) and asked for again once it drains"
    )
    websockets: dict[str, int] = Field(
        default_factory=dict, description="WebSocket clients open, and refused over the caps"
    )
    loop_pauses: LoopPauses | None = Field(
        None, description="how long the event loop was held, which every client waits out"
    )
    collector: Frozen | None = Field(
        None,
        description="the objects kept out of full collections, and the last sweep of them "
        "(None: this process collects as Python does by default)",
    )
    members: Members | None = Field(
        None, description="the service processes sharing the tables, and this one's share"
    )


@dataclass(frozen=True)
class Facts:
    """What the service knows of itself at one moment (the caller's clock, in seconds)."""

    now: float
    database_error: str | None  # the last write's failure, None once one succeeds
    broker_connected: bool
    ownership_lost: bool
    backlog: int
    backlog_since: float | None  # when the backlog last had nothing stored while waiting
    intake_paused: bool
    last_stored: dict[str, float]  # per followed table, when it last stored an event
    online: dict[str, bool | None]  # per followed table
    waiting: dict[str, int]


def judge(facts: Facts) -> Health:
    """The service's health from its facts: each fault a reason, any reason degraded."""
    reasons: list[str] = []
    if facts.database_error is not None:
        reasons.append(f"the database refuses writes ({facts.database_error}); holding events")
    if not facts.broker_connected:
        reasons.append("not connected to the broker; the bridges keep what they publish")
    if facts.ownership_lost:
        reasons.append("the table locks were lost with the database; following no table")
    if facts.backlog_since is not None and facts.now - facts.backlog_since >= STALL_AFTER:
        waited = facts.now - facts.backlog_since
        reasons.append(f"nothing stored for {waited:.0f} s while {facts.backlog} entries wait")
    if facts.intake_paused:
        reasons.append(f"the backlog is full ({facts.backlog} entries): intake paused")
    followed = [
        TableHealth(
            table=table,
            last_stored_age=None if at is None else round(facts.now - at, 3),
            online=facts.online.get(table),
        )
        for table in sorted(facts.online)
        for at in [facts.last_stored.get(table)]
    ]
    return Health(
        status="degraded" if reasons else "ok",
        reasons=reasons,
        tables=len(followed),
        followed=followed,
        waiting=dict(facts.waiting),
        backlog=facts.backlog,
        intake_paused=facts.intake_paused,
    )
