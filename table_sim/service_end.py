"""The real table service at the far end of the loop (soak, HIL): its stored records against
the simulator's ground truth.

The service runs as `mjtable serve` runs it (its own MQTT sessions, a real database:
SQLite in the work folder or PostgreSQL by URL); after the run its hands, ledger and
violations are read back from the database and compared hand by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from table_service.service.live import Service
from table_service.service.settings import ServeSettings
from table_service.store import HandRow, Store
from table_sim.hand import HandResult
from table_sim.truth import Breach, Tally, expected_result


@dataclass
class StoredTally:
    """What the comparison of the stored records came to (the soak summary's `service`)."""

    db: str
    hands_stored: int = 0
    events_stored: int = 0
    service_mismatches: int = 0
    ledger_mismatches: int = 0
    rulings: int = 0  # the referee's tile rulings entered (one per misread draw)
    tally: Tally = field(default_factory=Tally)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "db": self.db,
            "events_stored": self.events_stored,
            "hands_stored": self.hands_stored,
            "service_mismatches": self.service_mismatches,
            "ledger_mismatches": self.ledger_mismatches,
            "rulings": self.rulings,
            "violations_missed": self.tally.violations_missed,
            "violations_false": self.tally.violations_false,
        }


def stored_hands(store: Store, table: str) -> list[HandRow]:
    """A table's stored hands, oldest first."""
    return list(reversed(store.hands(table, None, None, None)))


def stored_mismatches(
    rows: list[HandRow], results: list[HandResult], ruled: bool = False
) -> list[str]:
    """Stored hands against the hands played: each stored once, with the truth's result,
    money, deal and 台. A last 荒局 may still be open (the next shuffle closes it), and a
    hand the sensors misread is not compared (the records say what the sensors saw) unless
    `ruled`: a referee put each misread right, so every hand must be the truth."""
    problems = []
    open_last = len(rows) == len(results) - 1 and results[-1].end == "draw"
    if len(rows) != len(results) and not open_last:
        problems.append(f"{len(rows)} hands stored, {len(results)} played")
    for n, (row, truth) in enumerate(zip(rows, results, strict=False), 1):
        if truth.injected and not ruled:
            continue
        want = (
            expected_result(truth),
            list(truth.net),
            truth.deal.dealer,
            truth.deal.streak,
            truth.tai or 0,
        )
        got = (row.result, row.net, row.dealer, row.streak, row.tai)
        if got != want:
            problems.append(f"#{n}: stored {got}, truth {want}")
    return problems


@contextlib.contextmanager
def scratch_schema(url: str, name: str) -> Iterator[str]:
    """A PostgreSQL URL whose tables live in a schema of their own, dropped afterwards (a
    run's records never meet another's); any other URL as it is."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        yield url
        return
    admin = create_engine(parsed.set(drivername="postgresql+psycopg"))
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{name}"'))
    try:
        yield parsed.update_query_dict({"options": f"-csearch_path={name}"}).render_as_string(
            hide_password=False
        )
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{name}" CASCADE'))
        admin.dispose()


class ServiceEnd:
    """Run a `Service` for the loop's tables, and be its referee through its public face
    (`rule`, as the API does): the records it holds are then compared with the truth."""

    def __init__(self, mqtt_url: str, base: str, db_url: str) -> None:
        self.settings = ServeSettings(
            mqtt=mqtt_url, db=db_url, base_topic=base, client_id=f"{base}-svc", gap_timeout=30.0
        )
        self.store = Store(db_url)
        self.service = Service(self.settings, self.store)
        self.rulings = 0
        self._task: asyncio.Task[None] | None = None

    async def rule(self, rulings: dict[str, list[dict[str, Any]]]) -> None:
        """Enter a referee's rulings through the service's public face (as the API does)."""
        for table, bodies in rulings.items():
            for body in bodies:
                await self.service.correct(table, dict(body))
                self.rulings += 1

    async def __aenter__(self) -> ServiceEnd:
        self._task = asyncio.create_task(self.service.run())
        await asyncio.wait_for(self.service.ready.wait(), 30)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.store.close()

    async def drained(self, last: dict[str, tuple[int, int]], timeout: float) -> bool:
        """Until the service has stored each table's last event (False on timeout)."""
        return await stored_up_to(self.store, last, timeout)

    def compare(self, truths: dict[str, tuple[list[HandResult], list[Breach]]]) -> StoredTally:
        """Each table's stored hands in order against the truth (every misread put right
        first by the referee's tile rulings, `rule`, so every hand must be the truth), its
        ledger against the truth's money, its violations against the breaches injected."""
        backend = self.store.engine.url.get_backend_name()
        out = StoredTally(db=backend, rulings=self.rulings)
        for table, (results, breaches) in truths.items():
            rows = stored_hands(self.store, table)
            out.hands_stored += len(rows)
            out.events_stored += sum(1 for e in self.store.entries(table) if e.kind == "event")
            problems = stored_mismatches(rows, results, ruled=True)
            out.service_mismatches += len(problems)
            out.notes += [f"{table} {p}" for p in problems]
            session = self.store.open_session(table)
            if session is not None:
                totals = {s.seat: s.total for s in self.store.standings(session.id)}
                played = results[: len(rows)]
                want_totals = {s: sum(r.net[s] for r in played) for s in range(4)}
                if totals != want_totals:
                    out.ledger_mismatches += 1
                    out.notes.append(f"{table}: ledger {totals}, truth {want_totals}")
            flagged = self.store.violations(table, None, None)
            out.tally.add_violations(breaches, flagged, f"{table} (stored)")  # type: ignore[arg-type]
        out.notes += out.tally.notes
        return out


async def stored_up_to(store: Store, last: dict[str, tuple[int, int]], timeout: float) -> bool:
    """Until `store` holds each table's event `last[table]` (False on timeout): how a far
    end knows the service has everything that was sent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        held = {t: await asyncio.to_thread(store.last_event_key, t) for t in last}
        if held == last:
            return True
        await asyncio.sleep(0.1)
    return False
