"""The conformance suite against the simulator's controller: every rule it follows passes.

Rules settled in issue 11 that the reference DeviceSession does not follow yet are
expected to fail (strict: when the change lands the mark must go).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge.conformance import CHECKS, Result, run_suite
from mjtable.commands.link_test import SimBoard

from .devices import make

PENDING = {
    "nak": "arq.Sender.on_nak: answer every NAK (no 20 ms guard; bench/nak_guard.py)",
    "double_handshake": "device_session: a WELCOME while welcomed applies only its ack",
    "wrong_direction": "device_session: wrong-length/direction control frames ignored whole",
    "refused": "catalogue + device_session: COMMAND_REFUSED (0x1E) event",
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Result]:
    with SimBoard(tmp_path_factory.mktemp("sim"), make(None)) as sim:
        return {r.name: r for r in run_suite(str(sim.port), sim.board())}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            check.name,
            marks=[pytest.mark.xfail(reason=PENDING[check.name], strict=True)]
            if check.name in PENDING
            else [],
        )
        for check in CHECKS
    ],
)
def test_check_passes_against_the_simulator(results: dict[str, Result], name: str) -> None:
    result = results[name]
    assert result.status == "pass", "\n".join([result.detail, *result.frames])


def test_pending_rules_fail_with_their_frames(results: dict[str, Result]) -> None:
    for name in PENDING:
        if results[name].status == "fail":
            assert results[name].frames, name
            assert any("host→dev" in line for line in results[name].frames)


def test_checks_are_marked_by_the_issue_that_settled_them() -> None:
    assert set(PENDING) <= {check.name for check in CHECKS if check.since == "issue 11"}


def test_bad_port_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--port", str(tmp_path / "nothing")]) == 2
    assert "cannot open" in capsys.readouterr().err


def test_unknown_section_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from mjtable.cli import main

    assert main(["link-test", "--sim", "--only", "nonsense"]) == 2
    assert "unknown section 'nonsense'" in capsys.readouterr().err
