"""A device that breaks one rule fails exactly the check for that rule, with the frames:
on a bench (quiet) and at a table in play (100 events/s), where the checks must still see
the broken rule through the table's own events."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from firmware_bridge.conformance import run_suite
from mjtable.commands import link_test
from mjtable.commands.link_test import SimBoard

from .kit_devices import make


@pytest.mark.parametrize(
    ("device", "check", "says"),
    [
        ("never_naks", "gaps", "NAK("),
        ("runs_duplicates", "duplicates", "was acted on"),
        ("miscounts_acks", "link_down", "event"),
        ("bad_crc", "commands", "ack of command"),  # its STATE carries the ack, CRC bad
        ("no_timeout", "retransmission", "resent 0 times"),
    ],
)
@pytest.mark.parametrize("rate", [None, 100.0], ids=["quiet", "playing"])
def test_broken_device_fails_its_check(
    tmp_path: Path, device: str, check: str, says: str, rate: float | None
) -> None:
    with SimBoard(tmp_path, make(device, rate=rate)) as sim:
        [result] = run_suite(str(sim.port), sim.board(), [check])
    assert result.status == "fail"
    assert says in result.detail
    assert any("dev→host" in line for line in result.frames)
    assert any("host→dev" in line for line in result.frames)


def test_a_quiet_board_without_heartbeats_fails_heartbeat(tmp_path: Path) -> None:
    """A busy board is never idle for 1 s and owes no HEARTBEAT; a quiet one does."""
    with SimBoard(tmp_path, make("never_beats")) as sim:
        [result] = run_suite(str(sim.port), sim.board(), ["heartbeat"])
    assert result.status == "fail"
    assert "sent nothing for" in result.detail and "HEARTBEAT" in result.detail


def test_bad_crc_shows_the_refused_frames(tmp_path: Path) -> None:
    with SimBoard(tmp_path, make("bad_crc")) as sim:
        [result] = run_suite(str(sim.port), sim.board(), ["commands"])
    assert any("crc: got" in line for line in result.frames)


def test_the_reference_board_passes_what_the_broken_ones_fail(tmp_path: Path) -> None:
    with SimBoard(tmp_path, make(None)) as sim:
        results = run_suite(str(sim.port), sim.board(), ["gaps", "duplicates", "commands"])
    assert [r.status for r in results] == ["pass"] * 3


def test_slow_rto_fails_retransmission_timing(tmp_path: Path) -> None:
    with SimBoard(tmp_path, make(None, rto=0.3)) as sim:
        [result] = run_suite(str(sim.port), sim.board(), ["retransmission"])
    assert result.status == "fail"
    assert "resend 1 (RTO): 3" in result.detail and "the page says 100 ms" in result.detail


def test_cli_json_and_exit_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from mjtable.cli import main

    monkeypatch.setattr(link_test, "_default_controller", make("never_naks"))
    assert main(["link-test", "--sim", "--only", "tail,gaps", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [(r["name"], r["status"]) for r in out] == [("gaps", "fail"), ("tail", "fail")]
    assert out[0]["frames"]
