"""The databases tests run on, registered once for every folder (the root conftest's
`pytest_plugins`): `store_url`, an empty database on each backend, SQLite always and
PostgreSQL too when MJTABLE_TEST_DATABASE_URL names one (CI sets it), each test in a
schema of its own (the connection's search_path) dropped afterwards; `pg_admin`, the one
engine that makes and drops those schemas."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

PG_URL = os.environ.get("MJTABLE_TEST_DATABASE_URL")

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
