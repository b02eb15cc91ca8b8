"""The conformance suite against the simulator's controller: every rule passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.conformance import CHECKS, Result, run_suite
from mjtable.commands.link_test import SimBoard

from .kit_devices import make


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    with SimBoard(tmp_path_factory.mktemp("sim"), make(None)) as sim:
        return {r.name: r for r in run_suite(str(sim.port), sim.board())}


@pytest.mark.parametrize("name", [check.name for check in CHECKS])
def test_check_passes_against_the_simulator(results: dict[str, Result], name: str) -> None:
    result = results[name]
    assert result.status == "pass", "\n".join([result.detail, *result.frames])


def test_bad_port_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--port", str(tmp_path / "nothing")]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_unknown_section_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--sim", "--only", "nonsense"]) == 2
    assert "unknown section 'nonsense'" in capsys.readouterr().err


def test_a_quiet_device_has_its_heartbeats_judged(results: dict[str, Result]) -> None:
    """Idle, the simulator owes HEARTBEATs: the check saw and judged them (no busy note)."""
    assert results["heartbeat"].detail == ""
