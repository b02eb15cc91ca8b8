"""The store's PostgreSQL pool: a connection the server dropped while it sat idle is
replaced before anyone uses it; one in steady use goes out unpinged (the ping's round
trip on every checkout cost ~7 % of a busy service), so its loss fails one transaction,
and the next gets a new connection."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from table_service.store import Store
from table_service.store import store as store_module
from tests.kit_databases import PG_URL

pytestmark = [
    pytest.mark.skipif(not PG_URL, reason="MJTABLE_TEST_DATABASE_URL is not set"),
    pytest.mark.parametrize("store_url", ["postgresql"], indirect=True),
]


def backend(store: Store) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(text("SELECT pg_backend_pid()")).scalar_one())


def kill(pg_admin: Any, pid: int) -> None:
    with pg_admin.begin() as connection:
        assert connection.execute(text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()


def test_an_idle_connection_the_server_dropped_is_replaced_unseen(
    store: Store, pg_admin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "PING_IDLE", 0.05)
    first = backend(store)
    assert backend(store) == first  # the pool hands the same connection back
    kill(pg_admin, first)
    time.sleep(0.2)
    assert store.revision() is not None  # no error reaches the caller
    assert backend(store) != first


def test_a_connection_in_steady_use_goes_out_unpinged(
    store: Store, pg_admin: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "PING_IDLE", 60.0)
    first = backend(store)
    kill(pg_admin, first)
    with pytest.raises(OperationalError):
        store.revision()  # the lost connection fails this one use ...
    assert store.revision() is not None  # ... and the pool has let it go
    assert backend(store) != first
