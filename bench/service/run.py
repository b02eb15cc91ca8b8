from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiomqtt

from bench.service.config import DEFAULT_DB, DEFAULT_MQTT, HAND_EVENTS, PREROLL_RATE, RETAINED, ROOT
from bench.service.cpu import CpuWatch, StoredCount, rss_bytes
from bench.service.probe import Probe, subscribe, watch
from bench.service.report import figures
from table_sim.broker import OwnedBroker, free_port


@dataclass
class Child:
    proc: asyncio.subprocess.Process
    tables: list[int]
    messages: dict[str, asyncio.Queue[dict[str, Any]]] = field(default_factory=dict)
    sent: list[tuple[float, int]] = field(default_factory=list)
    done: dict[str, Any] | None = None

    async def read(self) -> None:
        assert self.proc.stdout is not None
        async for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            kind = message.pop("type", "")
            if kind == "sent":
                self.sent.append((message["t"], message["n"]))
            else:
                if kind == "done":
                    self.done = message
                self.messages.setdefault(kind, asyncio.Queue()).put_nowait(message)

    async def expect(self, kind: str, timeout: float) -> dict[str, Any]:
        queue = self.messages.setdefault(kind, asyncio.Queue())
        async with asyncio.timeout(timeout):
            while True:
                if self.proc.returncode is not None and queue.empty():
                    raise RuntimeError(f"the load process exited ({self.proc.returncode})")
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.5):
                        return await queue.get()

    def tell(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())

    def sent_at(self, t: float) -> float:
        """Events sent by monotonic time t (linear between the child's reports)."""
        if not self.sent:
            return 0.0
        i = bisect.bisect_right(self.sent, (t, math.inf))
        if i == 0:
            return float(self.sent[0][1])
        if i >= len(self.sent):
            return float(self.sent[-1][1])
        (t0, n0), (t1, n1) = self.sent[i - 1], self.sent[i]
        return n0 + (n1 - n0) * (t - t0) / (t1 - t0) if t1 > t0 else float(n1)


def loop_pauses(port: int) -> dict[str, Any] | None:
    """The service's event-loop pauses as its health tells them, with its collector's
    frozen objects under "collector" (None: no answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=5) as r:
            health = json.loads(r.read())
    except (OSError, ValueError):
        return None
    pauses = health.get("loop_pauses")
    if not isinstance(pauses, dict):
        return None
    return {**pauses, "collector": health.get("collector")}


def health_ok(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1) as r:
            return bool(r.status == 200)
    except OSError:
        return False


# --- the run ------------------------------------------------------------------------------


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    from table_sim.service_end import scratch_schema

    run_id = uuid.uuid4().hex[:8]
    base = f"bench-svc-{run_id}"
    rates = [float(r) for r in args.rates.split(",")]
    names = [f"t{t + 1:02d}" for t in range(args.tables)]
    ends = contextlib.ExitStack()
    broker: OwnedBroker | None = None
    procs: list[subprocess.Popen[bytes]] = []
    children: list[Child] = []
    tasks: list[asyncio.Task[Any]] = []
    notes: list[str] = []
    mqtt = args.mqtt
    try:
        if mqtt == "private":
            (workdir / "broker").mkdir()
            broker = OwnedBroker(workdir / "broker")
            if not broker.persistent:
                raise SystemExit("--mqtt private needs mosquitto installed")
            await asyncio.to_thread(broker.start)
            mqtt = broker.url
        if args.db == "sqlite":
            db_url = f"sqlite:///{workdir / 'service.db'}"
        else:
            db_url = ends.enter_context(scratch_schema(args.db, base.replace("-", "_")))
        port = free_port()
        service_log = open(workdir / "service.log", "wb")  # noqa: SIM115
        service = subprocess.Popen(
            [
                sys.executable, "-m", "mjtable", "serve", "--mqtt", mqtt, "--db", db_url,
                "--port", str(port), "--base-topic", base, "--client-id", f"{base}-svc",
                "--log-level", "WARNING",
            ],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=service_log,
        )  # fmt: skip
        procs.append(service)
        total_events = sum(r * args.step_seconds for r in rates)
        hands = math.ceil(total_events / args.tables * 1.3 / HAND_EVENTS) + 2
        # The probe hears every event from the first, as the service does: a probe that
        # joined later would see a gap, learn the deal from the table and differ from the
        # service's picture (which keeps the default deal) for the rest of the run.
        probe = Probe()
        subscribed, connected = asyncio.Event(), asyncio.Event()
        tasks.append(asyncio.create_task(subscribe(probe, mqtt, base, subscribed)))
        async with asyncio.timeout(20):
            await subscribed.wait()
        split = [list(range(args.tables))[k :: args.load_procs] for k in range(args.load_procs)]
        for k, indices in enumerate(split):
            cfg = {
                "tables": indices, "seed": args.seed, "hands": hands, "mqtt": mqtt, "base": base,
                "workdir": str(workdir), "outbox_sync": args.outbox_sync, "nice": args.load_nice,
            }  # fmt: skip
            load_proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.service", "--child", json.dumps(cfg), cwd=ROOT,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=open(workdir / f"load{k}.log", "wb"),  # noqa: SIM115
            )  # fmt: skip
            child = Child(load_proc, indices)
            children.append(child)
            tasks.append(asyncio.create_task(child.read()))
        deadline = time.monotonic() + 60
        while not await asyncio.to_thread(health_ok, port):
            if service.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not come up; see {workdir}/service.log")
            await asyncio.sleep(0.2)
        tasks.append(asyncio.create_task(watch(probe, port, args.ws_deflate, connected)))
        async with asyncio.timeout(20):
            await connected.wait()
        print(f"service: http://127.0.0.1:{port}/api (topics {base}/…)", flush=True)
        ready = [await c.expect("ready", 180) for c in children]
        at_speed_1 = sum(r["per_table_at_speed_1"] * r["tables"] for r in ready)
        print(
            f"load ready: {args.tables} tables, games of {hands} hands each played beforehand"
            f" ({sum(r['events'] for r in ready):,} events), bridges up in"
            f" {max(r['seconds'] for r in ready):.1f} s; {at_speed_1:.1f} events/s at speed 1",
            flush=True,
        )
        stored = StoredCount(db_url)
        for child in children:
            child.tell({"do": "preroll"})
        prerolled = sum([(await c.expect("prerolled", 120))["sent"] for c in children])
        deadline = time.monotonic() + 30
        while (held := await asyncio.to_thread(stored)) < prerolled:
            if time.monotonic() > deadline:
                notes.append(f"pre-roll: the service held {held} of {prerolled}")
                break
            await asyncio.sleep(0.2)
        if args.probe_nice:  # this thread only: the service and the load are started
            os.setpriority(os.PRIO_PROCESS, 0, args.probe_nice)
        pids = [c.proc.pid for c in children]
        cpu = CpuWatch(service.pid, pids, broker.proc.pid if broker and broker.proc else None)
        offset = time.time() - time.monotonic()
        t0 = time.monotonic() + 1.0
        steps = [
            (t0 + i * args.step_seconds, t0 + (i + 1) * args.step_seconds, rate / at_speed_1)
            for i, rate in enumerate(rates)
        ]
        for child in children:
            child.tell({"steps": steps})
        print(
            f"pre-roll: {prerolled:,} events at {PREROLL_RATE:.0f}/s; ramp of {len(rates)} steps of"
            f" {args.step_seconds:.0f} s from now",
            flush=True,
        )
        samples: list[tuple[float, float, float, int]] = []  # (t, sent, stored, published)
        cpu_at: list[dict[str, float]] = []
        loops_at: list[dict[str, Any] | None] = []  # the service's loop pauses, per boundary
        boundaries = [s[0] for s in steps] + [steps[-1][1]]
        next_boundary = 0
        last_freeze = time.monotonic()
        while True:
            now = time.monotonic()
            if next_boundary < len(boundaries) and now >= boundaries[next_boundary]:
                await asyncio.to_thread(stored)
                cpu_at.append(await asyncio.to_thread(cpu.sample, stored))
                loops_at.append(await asyncio.to_thread(loop_pauses, port))
                next_boundary += 1
                if next_boundary > 1:
                    print(f"  step {next_boundary - 1} done", flush=True)
            if now > steps[-1][1] + 0.5 and next_boundary >= len(boundaries):
                break
            before = time.monotonic()
            count = await asyncio.to_thread(stored)
            t = (before + time.monotonic()) / 2
            samples.append((t, sum(c.sent_at(t) for c in children), count, probe.published))
            probe.expire(time.time())
            if now - last_freeze > 5:
                gc.freeze()  # the probe's mirrors only grow: keep full collections off them
                last_freeze = now
            wait = 0.5
            if next_boundary < len(boundaries):
                wait = min(wait, max(0.0, boundaries[next_boundary] - time.monotonic()))
            await asyncio.sleep(wait)
        # drain: every event sent must be stored (and shown) before the figures are taken;
        # with the load stopped, a backlog shows what the service does with the CPU to itself
        done = [await c.expect("done", 90) for c in children]
        sent_total = sum(d["sent"] for d in done)
        ramp_end = steps[-1][1]
        drained = None
        while time.monotonic() < ramp_end + args.drain_seconds:
            count = await asyncio.to_thread(stored)
            if count >= sent_total:
                drained = time.monotonic() - ramp_end
                break
            await asyncio.sleep(0.1)
        else:
            count = await asyncio.to_thread(stored)
        drain_cpu = await asyncio.to_thread(cpu.sample, stored)
        await asyncio.sleep(1.0)  # the last state messages
        probe.expire(math.inf)
        rss = rss_bytes(service.pid) if service.poll() is None else 0
        return figures(
            args, rates, steps, offset, samples, [*cpu_at, drain_cpu], probe, done, sent_total,
            count, drained, rss, notes, mqtt, db_url, service_log.name, loops_at,
        )  # fmt: skip
    finally:
        for child in children:
            with contextlib.suppress(Exception):
                child.tell({"do": "exit"})
        for child in children:
            try:
                await asyncio.wait_for(child.proc.wait(), 20)
            except (TimeoutError, ProcessLookupError):
                with contextlib.suppress(ProcessLookupError):
                    child.proc.kill()
                await child.proc.wait()
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.to_thread(proc.wait, 15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        from firmware_bridge.stopping import cancel_and_wait

        await cancel_and_wait(tasks)
        await tidy_broker(mqtt, base, names)
        if broker is not None:
            await asyncio.to_thread(broker.stop)
        ends.close()


async def tidy_broker(url: str, base: str, names: list[str]) -> None:
    """Leave the broker as found: end the service's persistent session, clear the run's
    retained topics."""
    if url == "private":
        return
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 1883
    with contextlib.suppress(aiomqtt.MqttError, TimeoutError):
        async with aiomqtt.Client(host, port, identifier=f"{base}-svc-events", clean_session=True):
            pass
        async with aiomqtt.Client(host, port, identifier=f"{base}-tidy") as client:
            topics = [f"{base}/service/availability"] + [
                f"{base}/{name}/{suffix}" for name in names for suffix in RETAINED
            ]
            for topic in topics:
                await client.publish(topic, b"", qos=1, retain=True)


def measure(
    tables: int = 50,
    rates: str = "100,250,500,1000,2000",
    step_seconds: float = 40.0,
    mqtt: str = DEFAULT_MQTT,
    db: str = DEFAULT_DB,
    drain_seconds: float = 30.0,
    load_procs: int = 1,
    load_nice: int = 0,
    probe_nice: int = 0,
    outbox_sync: str = "normal",
    ws_deflate: bool = True,
    seed: int = 1,
) -> dict[str, Any]:
    """One ramp's figures, the dict `main` reports (with "ws_p99_raw" in each step); raises
    if the run broke, its logs kept in the folder the exception names (for `main` and for
    `mjtable bench`)."""
    args = argparse.Namespace(
        tables=tables, rates=rates, step_seconds=step_seconds, mqtt=mqtt, db=db,
        drain_seconds=drain_seconds, load_procs=load_procs, load_nice=load_nice,
        probe_nice=probe_nice, outbox_sync=outbox_sync, ws_deflate=ws_deflate, seed=seed,
    )  # fmt: skip
    return run_in_workdir("mjtable-bench-service-", run, args)


def run_in_workdir(
    prefix: str,
    body: Callable[[argparse.Namespace, Path], Coroutine[Any, Any, dict[str, Any]]],
    args: argparse.Namespace,
) -> dict[str, Any]:
    """`body(args, workdir)` in a fresh folder, its wall time added; the folder is kept,
    and named in the error, when the run broke (its logs are the evidence)."""
    workdir = Path(tempfile.mkdtemp(prefix=prefix))
    started = time.monotonic()
    try:
        result = asyncio.run(body(args, workdir))
    except Exception as exc:
        raise RuntimeError(f"{type(exc).__name__}: {exc} (logs kept in {workdir})") from exc
    result["wall_seconds"] = round(time.monotonic() - started, 1)
    shutil.rmtree(workdir, ignore_errors=True)
    return result
