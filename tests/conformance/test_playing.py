"""The suite against a table in play: the reference board keeps emitting events (2/s, a
quiet hand; 100/s, a deal) through every check, and every section still passes.

The host's link acknowledges all the time (each ack within the page's 10 ms, §3.3) and
answers every HELLO at once, so the device's window and queue never fill because a
check is waiting for something else; and each check judges its rule in a way that holds
whether the table is quiet or playing.
"""

from __future__ import annotations

import pytest

from firmware_bridge.conformance import CHECKS, Result, run_suite
from firmware_bridge.conformance.suite import LinkFigures
from mjtable.commands.link_test import SimBoard

from .devices import Playing, TcpPlaying, make

# events per second, and the device's queue: unbounded (the simulator's), or 64 events as a
# real board's, which at 100/s fills whenever acks are withheld for 0.6 s and then drops its
# oldest events and sends HELLO (§3.8) in the middle of a check
TABLES = [(2.0, None), (100.0, None), (100.0, 64)]


def _name(table: tuple[float, int | None]) -> str:
    rate, queue = table
    return f"{rate:g}_per_s" + ("" if queue is None else f"_queue_{queue}")


@pytest.fixture(scope="module", params=TABLES, ids=_name)
def played(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Result], LinkFigures, int]:
    rate, queue = request.param
    figures: list[LinkFigures] = []
    board = make(None, rate=rate, queue_limit=queue)
    with SimBoard(tmp_path_factory.mktemp("playing"), board) as sim:
        results = run_suite(str(sim.port), sim.board(), figures=figures)
        assert isinstance(sim.controller, Playing)
        emitted = sim.controller.emitted
    return {r.name: r for r in results}, figures[0], emitted


@pytest.mark.parametrize("name", [check.name for check in CHECKS])
def test_every_section_passes_while_the_table_plays(
    played: tuple[dict[str, Result], LinkFigures, int], name: str
) -> None:
    results, _, _ = played
    result = results[name]
    assert result.status == "pass", "\n".join([result.detail, *result.frames])


def test_the_host_acknowledged_within_the_pages_limits(
    played: tuple[dict[str, Result], LinkFigures, int],
) -> None:
    _, figures, emitted = played
    assert emitted > 30  # the table really played through the run
    assert figures.acks > emitted / 4
    assert figures.ack_p99_ms <= 10.0, figures.line()
    assert figures.welcome_max_ms <= 10.0 + 30.0, figures.line()


def test_the_rto_ladder_is_judged_whole_when_the_queue_holds(
    played: tuple[dict[str, Result], LinkFigures, int], request: pytest.FixtureRequest
) -> None:
    """Unbounded, the queue never fills: all six resends were judged, not a note of a cut."""
    results, _, _ = played
    detail = results["retransmission"].detail
    if "queue_64" in request.node.callspec.id:
        assert detail == "" or "queue filled" in detail
    else:
        assert detail == ""


AT_ONCE_CHECKS = ["handshake", "duplicates", "gaps", "tail", "window", "nak", "malformed"]


def test_behind_a_socket_port_while_the_table_plays() -> None:
    """socket:// as for `mjtable sim --tcp`: the "at once" rules hold over TCP too. (Against
    a separate `mjtable sim --tcp` process, Nagle's algorithm held the host's frames back
    up to 40 ms behind its many ACKs until the port got TCP_NODELAY; in one process the
    peer acks too soon for that to show, so this test covers the path, not that delay.)"""
    figures: list[LinkFigures] = []
    with TcpPlaying(100.0) as board:
        results = run_suite(board.url, only=AT_ONCE_CHECKS, figures=figures)
    failed = [f"{r.name}: {r.detail}" for r in results if r.status != "pass"]
    assert failed == []
    assert figures[0].ack_p99_ms <= 10.0, figures[0].line()
