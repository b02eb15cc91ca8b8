"""Fixtures of the store tests: a fresh, migrated `Store` on each backend, and games to put
in it (the worked replay examples run through the real mirror).

SQLite always; PostgreSQL too when MJTABLE_TEST_DATABASE_URL names one (CI sets it): each
test gets a schema of its own (the connection's search_path), dropped afterwards.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from firmware_bridge.messages import Event
from table_service.mirror import SessionStart, TableMirror
from table_service.store import Applied, Store

PG_URL = os.environ.get("MJTABLE_TEST_DATABASE_URL")
REPLAYS = Path(__file__).parents[1] / "data" / "examples-replay"

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "postgresql",
        id="postgresql",
        marks=pytest.mark.skipif(not PG_URL, reason="MJTABLE_TEST_DATABASE_URL is not set"),
    ),
]


@pytest.fixture(scope="session")
def pg_admin() -> Iterator[Any]:
    """One engine for the whole run that makes and drops the tests' schemas."""
    assert PG_URL is not None
    engine = create_engine(make_url(PG_URL).set(drivername="postgresql+psycopg"))
    yield engine
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'mjtable.db'}"
        return
    admin = request.getfixturevalue("pg_admin")
    schema = f"mjt_{uuid.uuid4().hex[:16]}"
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    url = make_url(PG_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """A migrated, empty store."""
    s = Store(store_url)
    s.migrate()
    yield s
    s.close()


@dataclass
class Game:
    """A recorded game made ready to append: the session body and each event's entry."""

    table: str
    session: dict[str, Any]
    events: list[tuple[Event, list[Any]]]  # each event and the records the mirror drew

    def applied(self, session_id: int | None) -> list[Applied]:
        return [
            Applied("event", event, None, list(records), session_id)
            for event, records in self.events
        ]


def load_game(name: str, table: str) -> Game:
    """Run a worked example through the mirror, renamed to `table` so games don't collide."""
    session: dict[str, Any] = {}
    events: list[tuple[Event, list[Any]]] = []
    mirror = TableMirror(table)
    for line in (REPLAYS / f"{name}.jsonl").read_text().splitlines():
        data = json.loads(line)
        if "session" in data:
            session = {**data["session"], "table": table}
            assert mirror.start_session(SessionStart.model_validate(session)) == []
            continue
        event = Event.model_validate({**data, "table": table})
        events.append((event, mirror.apply(event)))
    assert mirror.finish() == []
    return Game(table, session, events)


def play(store: Store, game: Game) -> int:
    """Append a game as the live service would: the session, then every event; its id."""
    store.append(game.table, [Applied("session", None, game.session)])
    opened = store.open_session(game.table)
    assert opened is not None
    store.append(game.table, game.applied(opened.id))
    return opened.id


@pytest.fixture(scope="session")
def ex01() -> Game:
    """EX01: a win on a discard (seat 1 on seat 0's discard, 6 台)."""
    return load_game("EX01", "t1")


@pytest.fixture(scope="session")
def ex02() -> Game:
    """EX02: a 詐胡 by seat 2 with the dealer on 連1 (a violation and a hand)."""
    return load_game("EX02", "t2")
