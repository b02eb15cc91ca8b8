"""Settings for every test run: the HIL plugin (its --port option must be known at
start-up) and the Hypothesis profiles.

Hypothesis: `dev` (the default) draws new examples each run and prints the
`@reproduce_failure` blob of a failure; `ci` (MJTABLE_HYPOTHESIS_PROFILE=ci, set by
.ci/run) is derandomised, so CI runs the same examples every time and a red run can be
re-run as it was. `pytest --hypothesis-seed=N` replays a dev run's seed.
"""

import os

import pytest
from hypothesis import HealthCheck, settings

from tests.kit_brokers import clear_new_retained, remember_retained

# Fixtures every test folder shares, registered once: the HIL plugin, the brokers
# (`mqtt_url`, `owned_broker`) and the databases (`store_url`, `pg_admin`).
pytest_plugins = ["hil_tests.plugin", "tests.kit_brokers", "tests.kit_databases"]

# Winning hands are large by nature (17 tiles and their flags): the smallest
# example is necessarily big, which is not a sign of a bad strategy here.
_COMMON = {
    "suppress_health_check": [HealthCheck.large_base_example, HealthCheck.too_slow],
    "deadline": None,
    "print_blob": True,
}
settings.register_profile("dev", **_COMMON)
settings.register_profile("ci", derandomize=True, **_COMMON)
# `mutation` (bench/mutation.py): a few fixed examples per property, no example database,
# so each mutant's run is short and the same every time.
settings.register_profile("mutation", derandomize=True, max_examples=5, database=None, **_COMMON)
settings.load_profile(os.environ.get("MJTABLE_HYPOTHESIS_PROFILE", "dev"))


def pytest_sessionstart(session: pytest.Session) -> None:
    remember_retained(session.config)


def pytest_sessionfinish(session: pytest.Session) -> None:
    clear_new_retained(session.config)


# Tests that measure the link's real time (the conformance suite's intervals, the bridge's
# and the intake's clocks, the HIL runs): `-m timing` runs them alone, after the rest has
# run on every core (`-n auto -m "not timing"`), for a busy core makes a device look late.
TIMING = ("tests/conformance/", "tests/bridge/", "tests/live/", "hil_tests/")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        if where.startswith(TIMING):
            item.add_marker(pytest.mark.timing)
