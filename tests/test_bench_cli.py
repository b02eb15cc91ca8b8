"""`mjtable bench`: the cheapest benchmark end to end, and a clear refusal of unknown names.
Never asserts on a timing: only that the figures are there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mjtable.cli import main


def test_only_codec_prints_its_rows_and_saves_its_figures(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    saved = tmp_path / "figures.json"
    assert main(["bench", "--quick", "--only", "codec", "--json", str(saved)]) == 0
    out = capfd.readouterr().out
    assert "machine: " in out and " cores, " in out
    assert "figure" in out and "ratio / aim" in out
    assert "codec: TILE_DRAWN encode + decode" in out
    assert "frames/s" in out
    assert "scoring" not in out  # only what was asked for
    data = json.loads(saved.read_text(encoding="utf-8"))
    assert set(data["figures"]) == {"codec"}
    assert data["figures"]["codec"]["tile_drawn"] > 0
    assert data["errors"] == {}


def test_markdown_table(capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--quick", "--only", "codec", "--markdown"]) == 0
    out = capfd.readouterr().out
    assert "| figure | value | unit | ratio / aim |" in out
    assert "| codec: TILE_DRAWN encode + decode" in out


def test_unknown_benchmark_exits_2_and_names_the_choices(
    capfd: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--only", "nosuch"]) == 2
    err = capfd.readouterr().err
    assert "no benchmark named nosuch" in err
    assert "codec" in err and "soak" in err


def test_missing_bench_folder_exits_2(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from mjtable.commands import bench

    monkeypatch.setattr(bench, "BENCH_DIR", tmp_path / "bench")  # as in a wheel install
    assert main(["bench", "--only", "codec"]) == 2
    assert "run from a checkout" in capfd.readouterr().err


def test_every_bench_makes_its_own_rows() -> None:
    """Each job's rows come from its own module (bench/<name>.py), not the command."""
    from mjtable.commands import bench

    for job in bench.jobs(quick=True, mqtt=None, db=None):
        module = bench.load_bench(job.module) if job.module else bench
        assert callable(getattr(module, job.rows, None)), (job.key, job.rows)


def test_the_service_bench_knows_what_the_state_adds_to_the_mirror() -> None:
    """bench/service's probe compares the service's state with its own mirror's snapshot:
    the keys only the service adds must be the ones it leaves out (a key added to the
    state and not there made every event read 'never seen')."""
    from mjtable.commands.bench import load_bench
    from table_service.mirror import TableMirror
    from table_service.service.live import TableRunner

    config = load_bench("service.config")
    runner = TableRunner("t1", TableMirror("t1"))
    added = set(runner.state()) - set(runner.mirror.snapshot())
    assert added == set(config.STATE_NOISE)


def test_the_service_bench_probe_matches_each_state_the_service_sends_to_its_event() -> None:
    """The probe times an event on the WebSocket by finding the service's state message
    among the pictures its own mirror made: each must match, in one spelling, or the
    latencies would be of the wrong events."""
    import time

    from mjtable.commands.bench import load_bench
    from table_service.mirror import TableMirror
    from table_service.mirror.session import SessionStart
    from table_service.service.live import TableRunner
    from table_sim.recording import record_game

    probe_module = load_bench("service.probe")
    probe = probe_module.Probe()
    runner = TableRunner("t1", TableMirror("t1"))
    runner.mirror.start_session(SessionStart.model_validate({"table": "t1"}))
    events = [e for hand in record_game(3, 2, table="t1") for e in hand.events]
    for event in events:
        probe.on_event(event.model_dump_json().encode(), time.time())
        runner.mirror.apply(event)
        state = json.dumps(runner.state(), separators=(",", ":"), ensure_ascii=False)
        probe.on_ws(f'{{"type":"state","table":"t1","state":{state}}}', time.time())
    probe.expire(float("inf"))
    assert probe.unmatched == 0
    assert probe.unseen() == []
    assert len(probe.ws) + probe.invisible == len(events) > 100
    assert len(probe.ws) > 50
