"""Bridge benchmarks: codec speed, serial-in → MQTT-out latency, sustained events/s.

    .venv/bin/python bench/bridge.py [--mqtt mqtt://127.0.0.1:1883] [--events 3000]

The bridge runs as its own process (`python -m mjtable bridge`), the simulated
controller (a pty) and the MQTT subscriber in this one; both sides stamp with
CLOCK_MONOTONIC, which is shared by all processes on Linux. Without --mqtt the broker
is $MJTABLE_TEST_MQTT, else an amqtt subprocess.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from firmware_bridge.protocol import FrameDecoder, encode_frame, from_frame, to_frame  # noqa: E402
from firmware_bridge.protocol import catalogue as c  # noqa: E402
from mjtable.commands.bench_cells import Row, msec, rate, times  # noqa: E402
from table_sim.broker import OwnedBroker  # noqa: E402
from table_sim.controller import PtyController  # noqa: E402

BAUD = 115_200
BITS_PER_BYTE = 10  # 8N1


def bench_codec(n: int = 200_000) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, msg in (
        ("tile_drawn", c.TileDrawn(2, 37, c.End.FRONT)),
        ("hand_revealed_17", c.HandRevealed(1, tuple(range(0, 68, 4)))),
    ):
        dec = FrameDecoder()
        start = time.perf_counter()
        for i in range(n):
            wire = encode_frame(to_frame(msg, i & 0xFFFF, 0))
            (frame,) = dec.feed(wire)
            from_frame(frame)  # type: ignore[arg-type]
        out[name] = n / (time.perf_counter() - start)
        out[name + "_wire_bytes"] = len(wire)
    return out


BAUD_LIMIT_NOTE = "115,200-baud link"  # what the rows compare a rate with


def link_limit(wire_bytes: float) -> float:
    return BAUD / BITS_PER_BYTE / wire_bytes


async def run_bridge_bench(
    mqtt: str, events: int, sync: str, latency_events: int = 500
) -> dict[str, float]:
    table = f"bench{os.getpid()}{sync}"
    with tempfile.TemporaryDirectory() as tmp:
        device = PtyController(Path(tmp) / "tty", 0xBE4C)
        await device.start()
        cmd = [
            sys.executable, "-m", "mjtable", "bridge", "--port", str(device.port),
            "--table", table, "--mqtt", mqtt, "--outbox", f"{tmp}/o.db",
            "--outbox-sync", sync, "--log-level", "WARNING",
        ]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=ROOT)
        parts = urlsplit(mqtt)
        received: dict[int, float] = {}
        try:
            async with aiomqtt.Client(parts.hostname or "", parts.port or 1883) as sub:
                await sub.subscribe(f"mjtable/{table}/event", qos=1)

                async def collect() -> None:
                    async for m in sub.messages:
                        seq = json.loads(m.payload)["seq"]  # type: ignore[arg-type]
                        received.setdefault(seq, time.monotonic())

                collector = asyncio.create_task(collect())
                await device.wait_welcomed(30)
                # latency at 100 events/s
                sent: dict[int, float] = {}
                n_lat = latency_events
                for i in range(n_lat):
                    sent[i + 1] = time.monotonic()
                    device.emit(c.TileDrawn(i % 4, i % 144, c.End.FRONT))
                    await asyncio.sleep(0.01)
                async with asyncio.timeout(60):
                    while len(received) < n_lat:
                        await asyncio.sleep(0.01)
                lat = sorted((received[s] - sent[s]) * 1000 for s in sent)
                # sustained: a burst of `events`, all queued at once
                base = len(received)
                start = time.monotonic()
                for i in range(events):
                    device.emit(c.TileDrawn(i % 4, i % 144, c.End.FRONT))
                async with asyncio.timeout(300):
                    while len(received) < base + events:
                        await asyncio.sleep(0.005)
                rate = events / (max(received.values()) - start)
                collector.cancel()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            await device.stop()
    return {
        "latency_p50_ms": statistics.median(lat),
        "latency_p99_ms": lat[int(len(lat) * 0.99) - 1],
        "latency_max_ms": lat[-1],
        "sustained_events_per_s": rate,
    }


def measure_bridge(
    mqtt: str | None, events: int = 3000, latency_events: int = 500
) -> dict[str, Any]:
    """Latency and sustained rate for each outbox sync mode ("full", "normal") and the
    "broker" used; `mqtt` None starts an amqtt broker of its own (for `main` and for
    `mjtable bench`)."""
    broker: OwnedBroker | None = None
    if not mqtt:
        broker = OwnedBroker(Path(tempfile.mkdtemp()))
        broker.mosquitto = None
        broker.start()
        mqtt = broker.url
    try:
        out: dict[str, Any] = {"broker": mqtt}
        for sync in ("full", "normal"):
            out[sync] = asyncio.run(run_bridge_bench(mqtt, events, sync, latency_events))
        return out
    finally:
        if broker is not None:
            broker.stop()


# --- its rows in `mjtable bench`'s table ------------------------------------------------


def codec_rows(f: dict[str, Any]) -> list[Row]:
    limit = link_limit(f["tile_drawn_wire_bytes"])
    return [
        (
            f"codec: TILE_DRAWN encode + decode ({f['tile_drawn_wire_bytes']:.0f} bytes)",
            rate(f["tile_drawn"]),
            "frames/s",
            f"{times(f['tile_drawn'] / limit)} the {BAUD_LIMIT_NOTE} ({rate(limit)}/s)",
        ),
        (
            f"codec: HAND_REVEALED, 17 tiles ({f['hand_revealed_17_wire_bytes']:.0f} bytes)",
            rate(f["hand_revealed_17"]),
            "frames/s",
            "",
        ),
    ]


def tile_drawn_bytes() -> int:
    """TILE_DRAWN's size on the wire: the event the bridge bench sends."""
    from firmware_bridge.protocol import catalogue, encode_frame, to_frame

    return len(encode_frame(to_frame(catalogue.TileDrawn(2, 37, catalogue.End.FRONT), 1, 0)))


def summary_rows(f: dict[str, Any]) -> list[Row]:
    limit = link_limit(tile_drawn_bytes())
    rows: list[Row] = []
    for sync in ("full", "normal"):
        r = f[sync]
        rows.append(
            (
                f"bridge: serial in → MQTT out at 100 events/s, outbox `{sync}`, p50 / p99",
                f"{msec(r['latency_p50_ms'])} / {msec(r['latency_p99_ms'])}",
                "ms",
                f"max {msec(r['latency_max_ms'])} ms",
            )
        )
    for sync in ("full", "normal"):
        r = f[sync]
        rows.append(
            (
                f"bridge: sustained through one bridge process, outbox `{sync}`",
                rate(r["sustained_events_per_s"]),
                "events/s",
                f"{times(r['sustained_events_per_s'] / limit)} the {BAUD_LIMIT_NOTE}",
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mqtt", default=os.environ.get("MJTABLE_TEST_MQTT"))
    parser.add_argument("--events", type=int, default=3000)
    args = parser.parse_args()
    codec = bench_codec()
    print(
        f"codec: tile_drawn encode+decode {codec['tile_drawn']:,.0f} frames/s "
        f"({codec['tile_drawn_wire_bytes']:.0f} bytes on the wire)"
    )
    print(
        f"codec: hand_revealed(17) encode+decode {codec['hand_revealed_17']:,.0f} frames/s "
        f"({codec['hand_revealed_17_wire_bytes']:.0f} bytes)"
    )
    limit = link_limit(int(codec["tile_drawn_wire_bytes"]))
    print(f"link limit at {BAUD} baud 8N1: {limit:,.0f} tile_drawn events/s")
    figures = measure_bridge(args.mqtt, args.events)
    for sync in ("full", "normal"):
        r = figures[sync]
        print(
            f"bridge (outbox_sync={sync}, broker {figures['broker']}): latency at 100 events/s "
            f"p50 {r['latency_p50_ms']:.2f} ms, p99 {r['latency_p99_ms']:.2f} ms, "
            f"max {r['latency_max_ms']:.2f} ms; sustained {r['sustained_events_per_s']:,.0f} "
            f"events/s ({r['sustained_events_per_s'] / limit:.1f}x the 115200-baud link)"
        )


if __name__ == "__main__":
    main()
