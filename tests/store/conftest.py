"""Fixtures of the store tests: a fresh, migrated `Store` on each backend (`store_url`:
tests/kit_databases.py) and the worked replay examples run through the real mirror, to
put in it (tests/store/kit.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from table_service.store import Store
from tests.store.kit import Game, load_game


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """A migrated, empty store."""
    s = Store(store_url)
    s.migrate()
    yield s
    s.close()


@pytest.fixture(scope="session")
def ex01() -> Game:
    """EX01: a win on a discard (seat 1 on seat 0's discard, 6 台)."""
    return load_game("EX01", "t1")


@pytest.fixture(scope="session")
def ex02() -> Game:
    """EX02: a 詐胡 by seat 2 with the dealer on 連1 (a violation and a hand)."""
    return load_game("EX02", "t2")
