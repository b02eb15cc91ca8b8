"""The table service under load: events/s offered and held, and the latency from a
bridge's publish to a WebSocket client, on a step ramp of offered load.

    .venv/bin/python -m bench.service [--mqtt URL | --mqtt private] [--db URL | --db sqlite]
        [--tables 50] [--rates 100,250,500,1000,2000] [--step-seconds 40] [--seed 1]

What runs where and what each figure means: README.md beside this file. The parts:
`load` (the simulated tables and their bridges, a process of its own), `probe` (the far
end: an MQTT subscriber and WebSocket clients that see each event arrive), `cpu` (each
process's share of a core), `run` (the ramp: starts them all, steps the rate, collects),
`report` (the figures and the rows `mjtable bench` prints).
"""

from bench.service.report import report, summary_rows
from bench.service.run import measure, run_in_workdir

__all__ = ["measure", "report", "run_in_workdir", "summary_rows"]
