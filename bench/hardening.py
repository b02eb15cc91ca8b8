"""The service's hardening in figures (README, "Benchmark figures"): its memory stays bounded
under a flood of events, and storing goes on unharmed while crowds read and guess tokens.

    .venv/bin/python bench/hardening.py [--mqtt mqtt://127.0.0.1:1883]
        [--db sqlite | --db postgresql://postgres@127.0.0.1:5432/test] [--tables 6]
        [--seconds 60] [--ahead 50000] [--small-backlog 2000] [--phase-seconds 15] [--rate 300]
        [--ws-clients 1000] [--readers 20] [--guesses 2000] [--seed 1]

Who runs where (one 2-core machine runs it all, as bench/service/, whose helpers this
reuses: the RSS and CPU readers, the stored-event counter, the load child's protocol):

- the service: `python -m mjtable serve` in a process of its own (SQLite in a temporary
  folder by default, or a scratch PostgreSQL schema), its own base topic;
- the publishers: N tables in ONE child process, each a `FloodBridge`, the service tests'
  `FakeBridge` (table_sim/fakebridge.py: QoS 1 on `<base>/<table>/event`, keeps what
  it published) with its replays coalesced as a real bridge's outbox does (a request
  behind the one being served moves it back, one ahead of it is already covered), so a
  paused service's "send me what you kept" is answered once, not once per request.
  The games are recorded beforehand (`record_game`) and played round and round, each
  table in one boot with seq going on, `ts` the publish time;
- the crowds (WebSockets, readers, token guessers): another child process, so the
  service's CPU is its own; but the machine has 2 cores, so the crowds' clients and the
  service share them (the output says how much each took);
- the probe (this process): RSS each second, the stored events (polled from the `log`
  table), a plain client timing GET /api/tables.

1. Memory under a flood. The publishers send as fast as they can for `--seconds` (far
   faster than the service stores), then stop and only answer replays. They keep at most
   `--ahead` events published and not yet stored (the probe tells them what is stored each
   second): always far past the service's limit, so the flood never lets up, yet small
   enough to be stored within the drain's wait. The service
   pauses its intake past `--backlog-max` and asks the bridges again for what it left.
   Sampled every second: the service's RSS (start, peak, end of the flood, growth over
   its last half), events stored a second, the backlog and whether intake was paused
   (/api/health). Then, with a bounded wait for the drain: every event published stored
   exactly once (rows of kind 'event' against each table's history, no (table, boot_id,
   seq) twice, none missing). Run with a small `--backlog-max` and with the default.
2. Storing while crowds read. A steady load (`--rate` events/s over 2 tables, paced),
   and in phases of `--phase-seconds`: quiet; `--ws-clients` WebSockets on /api/ws, 10
   per client address (127.0.1.x: loopback has every 127/8 address) so that both caps
   (8 per address, 500 in all) refuse some, each accepted one reading every message;
   `--readers` clients looping GET /api/violations page by page (`before`); a client
   guessing tokens (`Authorization: Bearer wrong`) at POST /api/tables/…/session/end as
   fast as it can (8 in flight), at least `--guesses` of them. In each: the storing lag
   (an event's `ts`, its publish, to the poll that first sees its row; the poll runs
   every 50 ms, so a lag is known to ±50 ms), events stored a second, GET /api/tables
   latency (one client, back to back with 50 ms between), the service's CPU; each as a
   ratio to quiet.
3. A summary table, Markdown, to paste into the README. The last line is one JSON object.

No figure is asserted: a bench prints what it measured. The run leaves nothing behind (the
schema dropped, the retained topics cleared; the folder kept only if the run broke).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import platform
import re
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from bench.service.config import DEFAULT_MQTT  # noqa: E402
from bench.service.cpu import CpuWatch, rss_bytes  # noqa: E402
from bench.service.report import cpu_share, percentile, slope  # noqa: E402
from bench.service.run import Child, health_ok, run_in_workdir, tidy_broker  # noqa: E402
from firmware_bridge.messages import Event, ReplayRequest  # noqa: E402
from table_sim.broker import free_port  # noqa: E402
from table_sim.fakebridge import FakeBridge  # noqa: E402

DEFAULT_BACKLOG = 20_000  # `mjtable serve --backlog-max`'s default
POLL = 0.05  # seconds between the probe's polls of the log (the lag's resolution)
PROBE_GAP = 0.05  # seconds between the probe's GET /api/tables
STALL = 3.0  # seconds of nothing stored, some events missing, before the tables go on
WS_PER_ADDRESS = 10  # the crowd's WebSockets from each client address (the cap is 8)
GUESS_ROUTE = "/api/tables/t01/session/end"  # a POST that takes an admin's token
BEFORE_BOUND = "the fault campaign, before the bound: 154 → 1,562 MB in 8.5 min, ~2.8 MB/s"


# --- the publishers (a child process) ------------------------------------------------------


class FloodBridge(FakeBridge):
    """A `FakeBridge` whose replays are coalesced and sent beside its own publishing: one
    cursor into the history, moved back by a request behind it, never duplicated."""

    def __init__(self, url: str, base: str, table: str, boot_id: int) -> None:
        super().__init__(url, base, table)
        self.boot_id = boot_id
        self.replayed = 0
        self._cursor: int | None = None  # the next history index to replay
        self._wake = asyncio.Event()

    async def _run(self) -> None:
        async with aiomqtt.Client(self.host, self.port, max_queued_outgoing_messages=None) as c:
            c.pending_calls_threshold = 100_000
            self._client = c
            await c.subscribe(f"{self.base}/{self.table}/bridge/request/replay", qos=1)
            await c.publish(
                f"{self.base}/{self.table}/bridge/availability", "online", qos=1, retain=True
            )
            self._connected.set()
            replayer = asyncio.create_task(self._replayer())
            try:
                async for message in c.messages:
                    if not str(message.topic).endswith("/bridge/request/replay"):
                        continue
                    request = ReplayRequest.model_validate_json(bytes(message.payload))  # type: ignore[arg-type]
                    self.replays += 1
                    after = request.after
                    start = after.seq if after is not None and after.boot_id == self.boot_id else 0
                    if self._cursor is None or start < self._cursor:
                        self._cursor = start
                    self._wake.set()
            finally:
                replayer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await replayer

    async def _replayer(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._cursor is not None and self._cursor < len(self.history):
                event = self.history[self._cursor]
                self._cursor += 1
                await self._send(event)
                self.replayed += 1
                if self.replayed % 64 == 0:
                    await asyncio.sleep(0)
            self._cursor = None


def _say(kind: str, **data: Any) -> None:
    print(json.dumps({"type": kind, **data}, separators=(",", ":")), flush=True)


def _record(args: tuple[int, int, float]) -> list[Event]:
    from table_sim.recording import record_game
    from table_sim.violations import Violations

    seed, hands, violations = args
    game = record_game(seed, hands, violations=Violations(violations) if violations else None)
    return [e for h in game for e in h.events]


async def _publishers(cfg: dict[str, Any]) -> None:
    """The child: record the games, connect the bridges, publish (as fast as they can, or
    paced at cfg["rate"] events/s in all) from {"do": "start"} to {"do": "stop"}, then only
    answer replays (and publish one more event a table on {"do": "nudge"}) until
    {"do": "exit"}."""
    from concurrent.futures import ProcessPoolExecutor

    loop = asyncio.get_running_loop()
    names: list[str] = cfg["tables"]
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
        games = await asyncio.gather(
            *(
                loop.run_in_executor(pool, _record, (cfg["seed"] + i, cfg["hands"], cfg["faults"]))
                for i in range(len(names))
            )
        )
    bridges = [
        FloodBridge(cfg["mqtt"], cfg["base"], name, boot_id=cfg["seed"] * 1000 + i + 1)
        for i, name in enumerate(names)
    ]
    async with contextlib.AsyncExitStack() as stack:
        for bridge in bridges:
            await stack.enter_async_context(bridge)
        _say("ready", events=sum(len(g) for g in games))
        command = json.loads(await asyncio.to_thread(sys.stdin.readline))
        assert command["do"] == "start"
        stop = asyncio.Event()
        sent = stored = 0
        ahead = cfg.get("ahead")
        rate = cfg.get("rate")
        each = rate / len(bridges) if rate else None

        async def publish_next(bridge: FloodBridge, game: list[Event]) -> None:
            nonlocal sent
            seq = len(bridge.history) + 1
            event = game[(seq - 1) % len(game)].model_copy(
                update={"table": bridge.table, "boot_id": bridge.boot_id, "seq": seq,
                        "ts": time.time()}
            )  # fmt: skip
            bridge.history.append(event)
            await bridge._send(event)
            sent += 1

        async def play(bridge: FloodBridge, game: list[Event]) -> None:
            next_at = time.monotonic()
            while not stop.is_set():
                if ahead and sent - stored >= ahead:  # the most the bridges hold unstored
                    await asyncio.sleep(0.05)
                    continue
                await publish_next(bridge, game)
                if each is None:
                    if sent % 32 == 0:
                        await asyncio.sleep(0)
                    continue
                next_at += 1 / each
                wait = next_at - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                elif wait < -0.5:
                    next_at = time.monotonic()  # too far behind: do not burst to catch up

        async def report() -> None:
            while True:
                _say("sent", t=time.monotonic(), n=sent)
                await asyncio.sleep(0.25)

        async def stopper() -> None:
            nonlocal stored
            while True:  # {"do": "stored", "n": N} from the probe, until {"do": "stop"}
                command = json.loads(await asyncio.to_thread(sys.stdin.readline) or "{}")
                if command.get("do") == "stored":
                    stored = command["n"]
                    continue
                stop.set()
                return

        reporter = asyncio.create_task(report())
        await asyncio.gather(stopper(), *(play(b, g) for b, g in zip(bridges, games, strict=True)))
        reporter.cancel()
        _say("sent", t=time.monotonic(), n=sent)
        _say(
            "done",
            sent=sent,
            published={b.table: len(b.history) for b in bridges},
            replays=sum(b.replays for b in bridges),
            replayed=sum(b.replayed for b in bridges),
        )
        while True:  # a table goes on playing: its next event shows a tail the broker lost
            command = json.loads(await asyncio.to_thread(sys.stdin.readline) or '{"do": "exit"}')
            if command["do"] != "nudge":
                break
            for bridge, game in zip(bridges, games, strict=True):
                await publish_next(bridge, game)
            _say("nudged", published={b.table: len(b.history) for b in bridges})
        _say("exiting", replays=sum(b.replays for b in bridges),
             replayed=sum(b.replayed for b in bridges))  # fmt: skip
        for bridge in bridges:
            with contextlib.suppress(Exception):
                await bridge.offline()


# --- the crowds (a child process) ----------------------------------------------------------


async def _crowd(cfg: dict[str, Any]) -> None:
    """The child: one crowd (`ws`, `readers` or `guesses`) against the service's port, from
    "ready" until {"do": "stop"} on stdin; then its counts as "done"."""
    from table_sim.soak import ensure_open_files

    kind, port = cfg["kind"], cfg["port"]
    stop = asyncio.Event()
    stats: dict[str, Any] = {}
    tasks: list[asyncio.Task[Any]] = []

    async def stopper() -> None:
        await asyncio.to_thread(sys.stdin.readline)
        stop.set()

    if kind == "ws":
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed

        ensure_open_files(cfg["n"] // 3 + 1)  # 11 a table there: ~4 a socket here
        reasons: Counter[str] = Counter()
        messages = 0
        accepted: list[Any] = []
        gate = asyncio.Semaphore(50)

        async def hold(ws: Any) -> None:
            nonlocal messages
            with contextlib.suppress(ConnectionClosed):
                async for _ in ws:
                    messages += 1

        async def one(i: int) -> None:
            address = f"127.0.1.{1 + i // WS_PER_ADDRESS}"
            async with gate:
                try:
                    ws = await connect(
                        f"ws://127.0.0.1:{port}/api/ws", local_addr=(address, 0),
                        ping_interval=None, max_size=None, open_timeout=60,
                    )  # fmt: skip
                except Exception as exc:  # counted, as a browser would show it
                    reasons[f"failed: {type(exc).__name__}"] += 1
                    return
                try:
                    async with asyncio.timeout(60):
                        await ws.recv()
                except ConnectionClosed as exc:
                    code = exc.rcvd.code if exc.rcvd else None
                    reason = exc.rcvd.reason if exc.rcvd else ""
                    reasons[f"{code}: {re.sub(r'[0-9]+', 'N', reason)}"] += 1
                    return
                except TimeoutError:
                    reasons["no first message in 60 s"] += 1
                    await ws.close()
                    return
            accepted.append(ws)
            tasks.append(asyncio.create_task(hold(ws)))

        began = time.monotonic()
        await asyncio.gather(*(one(i) for i in range(cfg["n"])))
        _say(
            "ready", accepted=len(accepted), refused=dict(reasons),
            seconds=round(time.monotonic() - began, 2),
        )  # fmt: skip
        await stopper()
        still = sum(1 for ws in accepted if ws.state.name == "OPEN")
        await asyncio.gather(*(ws.close() for ws in accepted), return_exceptions=True)
        for task in tasks:
            task.cancel()
        stats = {"accepted": len(accepted), "open_at_end": still, "messages": messages}
    elif kind == "readers":
        import httpx

        counts: Counter[int] = Counter()
        times: list[float] = []
        rows = 0

        async def reader() -> None:
            nonlocal rows
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as c:
                before: int | None = None
                while not stop.is_set():
                    params: dict[str, Any] = {"limit": 100}
                    if before is not None:
                        params["before"] = before
                    t = time.monotonic()
                    r = await c.get("/api/violations", params=params)
                    times.append(time.monotonic() - t)
                    counts[r.status_code] += 1
                    page = r.json() if r.status_code == 200 else []
                    rows += len(page)
                    before = page[-1]["id"] if len(page) == 100 else None  # the next page

        began = time.monotonic()
        tasks = [asyncio.create_task(reader()) for _ in range(cfg["n"])]
        _say("ready")
        await stopper()
        await asyncio.gather(*tasks, return_exceptions=True)
        span = time.monotonic() - began
        times.sort()
        stats = {
            "requests": sum(counts.values()), "per_s": round(sum(counts.values()) / span, 1),
            "statuses": {str(k): v for k, v in counts.items()}, "rows": rows,
            "p50_ms": _ms(percentile(times, 0.5)), "p95_ms": _ms(percentile(times, 0.95)),
        }  # fmt: skip
    elif kind == "guesses":
        import httpx

        counts = Counter()
        done = 0
        transport = httpx.AsyncHTTPTransport(local_address="127.0.2.1")
        headers = {"Authorization": "Bearer wrong"}
        first_429: int | None = None

        async def guesser(c: httpx.AsyncClient) -> None:
            nonlocal done, first_429
            while not (stop.is_set() and done >= cfg["n"]):
                r = await c.post(GUESS_ROUTE, headers=headers)
                done += 1
                counts[r.status_code] += 1
                if r.status_code == 429 and first_429 is None:
                    first_429 = done

        began = time.monotonic()
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", transport=transport, timeout=60
        ) as c:
            tasks = [asyncio.create_task(guesser(c)) for _ in range(8)]
            _say("ready")
            await stopper()
            await asyncio.gather(*tasks, return_exceptions=True)
        span = time.monotonic() - began
        stats = {
            "guesses": done, "per_s": round(done / span, 1),
            "statuses": {str(k): v for k, v in counts.items()}, "first_429_at": first_429,
        }  # fmt: skip
    _say("done", **stats)


# --- the probe: the service, its memory, its log, its answers -----------------------------


def _ms(value: float) -> float | None:
    return None if math.isnan(value) or math.isinf(value) else round(value * 1000, 1)


class LogWatch:
    """New event rows of the service's log: how many, and each one's lag (its `ts`, the
    publish, to the poll that found it)."""

    def __init__(self, db_url: str) -> None:
        from sqlalchemy import text

        from table_service.store.store import make_engine

        self.engine = make_engine(db_url)
        self.query = text("SELECT id, ts FROM log WHERE id > :after AND kind = 'event' ORDER BY id")
        self.after = 0
        self.count = 0
        self.lags: list[tuple[float, float]] = []  # (ts, lag)
        self.keep_lags = False

    def poll(self) -> int:
        with self.engine.connect() as connection:
            rows = connection.execute(self.query, {"after": self.after}).all()
        found = time.time()
        if rows:
            self.after = int(rows[-1][0])
            self.count += len(rows)
            if self.keep_lags:
                self.lags.extend((ts, found - ts) for _, ts in rows)
        return self.count

    def exactly_once(self, published: dict[str, int]) -> dict[str, Any]:
        """Every table's history stored once: the counts, the duplicates, what is missing."""
        from sqlalchemy import text

        with self.engine.connect() as connection:
            per_table = connection.execute(
                text(
                    "SELECT \"table\", count(*), max(seq) FROM log WHERE kind = 'event'"
                    ' GROUP BY "table"'
                )
            ).all()
            duplicates = connection.execute(
                text(
                    "SELECT count(*) FROM (SELECT 1 FROM log WHERE kind = 'event'"
                    ' GROUP BY "table", boot_id, seq HAVING count(*) > 1) AS d'
                )
            ).scalar_one()
        stored = {str(t): (int(n), int(top or 0)) for t, n, top in per_table}
        missing = sum(max(0, n - stored.get(t, (0, 0))[0]) for t, n in published.items())
        holes = sum(top - n for n, top in stored.values())  # seqs under the top not stored
        extra = sum(max(0, s[0] - published.get(t, 0)) for t, s in stored.items())
        return {
            "published": sum(published.values()), "stored": sum(n for n, _ in stored.values()),
            "duplicates": int(duplicates), "missing": missing, "holes": holes, "extra": extra,
            "ok": missing == holes == extra == int(duplicates) == 0,
            # no duplicate, no hole, nothing foreign: what is missing is each table's last
            # events, still with its bridge (the wait ended before they were stored)
            "verdict": "ok" if missing == holes == extra == int(duplicates) == 0
            else "incomplete" if holes == extra == int(duplicates) == 0 else "BROKEN",
        }  # fmt: skip

    def close(self) -> None:
        self.engine.dispose()


class Service:
    """`mjtable serve` as its own process, on this run's base topic and database."""

    def __init__(self, workdir: Path, mqtt: str, db_url: str, base: str, backlog: int) -> None:
        self.port = free_port()
        self.log_path = workdir / f"service-{backlog}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "mjtable", "serve", "--mqtt", mqtt, "--db", db_url,
                "--port", str(self.port), "--base-topic", base, "--client-id", f"{base}-svc",
                "--backlog-max", str(backlog), "--log-level", "WARNING",
            ],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=self._log,
        )  # fmt: skip

    async def up(self) -> None:
        deadline = time.monotonic() + 60
        while not await asyncio.to_thread(health_ok, self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the service did not come up; see {self.log_path}")
            await asyncio.sleep(0.2)

    def rss_mb(self) -> float:
        return rss_bytes(self.proc.pid) / 2**20

    def log_lines(self) -> list[str]:
        self._log.flush()
        return self.log_path.read_text(errors="replace").splitlines()

    async def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.proc.wait, 20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


async def _child(args: list[str], workdir: Path, name: str) -> Any:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, __file__, *args, cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=open(workdir / f"{name}.log", "wb"),  # noqa: SIM115
    )  # fmt: skip
    child = Child(proc, [])
    child.reader = asyncio.create_task(child.read())
    return child


async def _end_child(child: Any) -> None:
    with contextlib.suppress(Exception):
        child.tell({"do": "exit"})
    try:
        await asyncio.wait_for(child.proc.wait(), 20)
    except (TimeoutError, ProcessLookupError):
        with contextlib.suppress(ProcessLookupError):
            child.proc.kill()
        await child.proc.wait()
    child.reader.cancel()


def _health(port: int) -> dict[str, Any]:
    import httpx

    try:
        return dict(httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=5).json())
    except (httpx.HTTPError, ValueError):
        return {}


@contextlib.contextmanager
def _database(db: str, workdir: Path, name: str) -> Any:
    from table_sim.service_end import scratch_schema

    if db == "sqlite":
        yield f"sqlite:///{workdir / f'{name}.db'}"
    else:
        with scratch_schema(db, name) as url:
            yield url


# --- 1. memory under a flood --------------------------------------------------------------


async def flood(args: argparse.Namespace, workdir: Path, backlog: int) -> dict[str, Any]:
    base = f"bench-hard-{uuid.uuid4().hex[:8]}"
    names = [f"f{t + 1:02d}" for t in range(args.tables)]
    say(f"\nflood: {args.tables} tables as fast as they can for {args.seconds:.0f} s,"
        f" --backlog-max {backlog:,}")  # fmt: skip
    with _database(args.db, workdir, base.replace("-", "_")) as db_url:
        service = Service(workdir, args.mqtt, db_url, base, backlog)
        pub = None
        watch = None
        try:
            await service.up()
            hands = 12
            cfg = {"tables": names, "mqtt": args.mqtt, "base": base, "seed": args.seed,
                   "hands": hands, "faults": 0.0, "ahead": args.ahead}  # fmt: skip
            pub = await _child(["--publishers", json.dumps(cfg)], workdir, f"flood-{backlog}")
            await pub.expect("ready", 120)
            watch = LogWatch(db_url)
            cpu = CpuWatch(service.proc.pid, [pub.proc.pid], None)
            await asyncio.sleep(1.0)
            rss_start = service.rss_mb()
            samples: list[dict[str, Any]] = []
            t0 = time.monotonic()
            cpu_a = await asyncio.to_thread(cpu.sample)
            pub.tell({"do": "start"})
            while (now := time.monotonic()) < t0 + args.seconds:
                health = await asyncio.to_thread(_health, service.port)
                stored = await asyncio.to_thread(watch.poll)
                pub.tell({"do": "stored", "n": stored})
                samples.append({
                    "t": round(now - t0, 2), "rss_mb": round(service.rss_mb(), 1),
                    "stored": stored, "sent": pub.sent_at(now),
                    "backlog": health.get("backlog"), "paused": health.get("intake_paused"),
                })  # fmt: skip
                if len(samples) % 15 == 0:
                    s = samples[-1]
                    say(
                        f"  {s['t']:5.0f} s: RSS {s['rss_mb']:6.1f} MB, sent {s['sent']:9,.0f},"
                        f" stored {stored:8,}, backlog {s['backlog']}, paused {s['paused']}"
                    )
                await asyncio.sleep(max(0.0, t0 + len(samples) - time.monotonic()))
            cpu_b = await asyncio.to_thread(cpu.sample)
            pub.tell({"do": "stop"})
            done = await pub.expect("done", 60)
            published: dict[str, int] = done["published"]
            total = sum(published.values())
            flood_end = time.monotonic()
            stored_at_end = await asyncio.to_thread(watch.poll)
            drained = None
            peak_drain = 0.0
            nudges = 0
            last, moved = stored_at_end, time.monotonic()
            while time.monotonic() < flood_end + args.drain_seconds:
                peak_drain = max(peak_drain, service.rss_mb())
                count = await asyncio.to_thread(watch.poll)
                if count >= total:
                    drained = time.monotonic() - flood_end
                    break
                if count > last:
                    last, moved = count, time.monotonic()
                elif time.monotonic() - moved > STALL:
                    # nothing stored for a while, some missing: the broker dropped a tail
                    # (a slow subscriber's queue is bounded) that only the next event shows
                    pub.tell({"do": "nudge"})
                    published = (await pub.expect("nudged", 30))["published"]
                    total = sum(published.values())
                    nudges += 1
                    moved = time.monotonic()
                await asyncio.sleep(0.5)
            await asyncio.sleep(1.0)
            if await asyncio.to_thread(watch.poll) >= total and drained is None:
                drained = time.monotonic() - flood_end  # in the last second of the wait
            check = await asyncio.to_thread(watch.exactly_once, published)
            rss_after = service.rss_mb()
            lines = service.log_lines()
        finally:
            if pub is not None:
                await _end_child(pub)
            await service.stop()
            if watch is not None:
                watch.close()
            await tidy_broker(args.mqtt, base, names)
    span = samples[-1]["t"] - samples[0]["t"] if len(samples) > 1 else 1.0
    half = [(s["t"], s["rss_mb"]) for s in samples if s["t"] >= args.seconds / 2]
    backlogs = [s["backlog"] for s in samples if isinstance(s["backlog"], int)]
    result = {
        "backlog_max": backlog,
        "ahead": args.ahead,
        "tables": args.tables,
        "seconds": args.seconds,
        "rss_start_mb": round(rss_start, 1),
        "rss_peak_mb": round(max([s["rss_mb"] for s in samples] + [peak_drain]), 1),
        "rss_end_mb": samples[-1]["rss_mb"],
        "rss_after_drain_mb": round(rss_after, 1),
        "growth_last_half_mb_per_s": round(slope(half), 3),
        "sent_per_s": round((samples[-1]["sent"] - samples[0]["sent"]) / span, 1),
        "stored_per_s": round((samples[-1]["stored"] - samples[0]["stored"]) / span, 1),
        "stored_at_flood_end": stored_at_end,
        "backlog_peak": max(backlogs, default=None),
        "paused_share": round(sum(1 for s in samples if s["paused"]) / len(samples), 2),
        "pauses": sum(1 for line in lines if "intake paused" in line),
        "replay_requests": done["replays"],
        "replayed": done["replayed"],
        "drained_s": None if drained is None else round(drained, 1),
        "nudges": nudges,
        "check": check,
        "cpu": cpu_share(cpu_a, cpu_b),
        "tracebacks": sum(1 for line in lines if "Traceback" in line),
        "rss_samples": [s["rss_mb"] for s in samples],
    }
    report_flood(result)
    return result


def report_flood(r: dict[str, Any]) -> None:
    c, k = r["check"], r["cpu"]
    drained = (
        f"all stored {r['drained_s']} s after the flood"
        if r["drained_s"] is not None
        else f"NOT all stored within the drain wait ({c['stored']:,} of {c['published']:,})"
    )
    if r["nudges"]:
        drained += (
            f" (after {r['nudges']} more event(s) a table: tails the broker dropped for the"
            " busy service, shown only by the table's next event)"
        )
    say(
        f"  RSS start {r['rss_start_mb']:.0f} MB, peak {r['rss_peak_mb']:.0f} MB, end of flood"
        f" {r['rss_end_mb']:.0f} MB, after the drain {r['rss_after_drain_mb']:.0f} MB; growth"
        f" over the last half {r['growth_last_half_mb_per_s']:+.2f} MB/s ({BEFORE_BOUND})\n"
        f"  sent {r['sent_per_s']:,.0f} events/s, stored {r['stored_per_s']:,.0f} events/s"
        f" ({r['stored_per_s'] / max(r['sent_per_s'], 1):.2f} of what was sent); backlog peak"
        f" {r['backlog_peak']} (its limit {r['backlog_max']:,}), intake paused in"
        f" {r['paused_share']:.0%} of the samples"
        f" ({r['pauses']} pauses); {r['replay_requests']:,} replay requests answered with"
        f" {r['replayed']:,} events again\n"
        f"  {drained}; exactly once: published {c['published']:,}, stored {c['stored']:,},"
        f" duplicates {c['duplicates']}, missing {c['missing']}, holes {c['holes']}:"
        f" {c['verdict']}; tracebacks in the service log {r['tracebacks']}\n"
        f"  CPU (% of a core): service {k['service']} (its event loop {k['service_loop']}),"
        f" publishers {k['load']}, mosquitto"
        f" {k['mosquitto']}, postgres {k['postgres']}, other programs {k['other']}, machine"
        f" {k['machine']} of 200"
    )
    peak = r["backlog_peak"] or 0
    if peak < r["backlog_max"] * 0.9:
        say(
            f"  note: the backlog stayed under its limit (peak {peak:,} of"
            f" {r['backlog_max']:,}): what the service did not take in time was left with the"
            " bridges (dropped by the broker's bounded queue for a slow subscriber, or deferred"
            f" behind a hole) and replayed ({r['replayed']:,} events sent again)"
        )


# --- 2. storing while crowds read --------------------------------------------------------


async def crowds(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    base = f"bench-hard-{uuid.uuid4().hex[:8]}"
    names = ["t01", "t02"]
    say(f"\ncrowds: {len(names)} tables at {args.rate:.0f} events/s in all, phases of"
        f" {args.phase_seconds:.0f} s")  # fmt: skip
    import httpx

    phases: list[dict[str, Any]] = []
    with _database(args.db, workdir, base.replace("-", "_")) as db_url:
        service = Service(workdir, args.mqtt, db_url, base, DEFAULT_BACKLOG)
        pub = None
        watch = None
        try:
            await service.up()
            hands = math.ceil(args.rate * args.phase_seconds * 5 / len(names) / 280) + 2
            cfg = {"tables": names, "mqtt": args.mqtt, "base": base, "seed": args.seed + 100,
                   "hands": min(hands, 40), "faults": 0.05, "rate": args.rate}  # fmt: skip
            pub = await _child(["--publishers", json.dumps(cfg)], workdir, "steady")
            await pub.expect("ready", 120)
            watch = LogWatch(db_url)
            watch.keep_lags = True
            cpu = CpuWatch(service.proc.pid, [pub.proc.pid], None)
            pub.tell({"do": "start"})
            stop_polling = asyncio.Event()

            async def poller() -> None:
                while not stop_polling.is_set():
                    await asyncio.to_thread(watch.poll)
                    await asyncio.sleep(POLL)

            polling = asyncio.create_task(poller())
            await asyncio.sleep(5.0)  # warm: the tables followed, the mirrors made
            async with httpx.AsyncClient(
                base_url=f"http://127.0.0.1:{service.port}", timeout=60
            ) as client:
                plan = [
                    ("quiet", None, {}),
                    (f"{args.ws_clients:,} WebSockets", "ws", {"n": args.ws_clients}),
                    (f"{args.readers} readers of /api/violations", "readers", {"n": args.readers}),
                    (f"token guesser (≥ {args.guesses:,})", "guesses", {"n": args.guesses}),
                ]
                for label, kind, extra in plan:
                    phases.append(
                        await phase(
                            args, workdir, service, client, watch, cpu, pub, label, kind, extra
                        )
                    )
            stop_polling.set()
            await polling
            pub.tell({"do": "stop"})
            done = await pub.expect("done", 60)
            deadline = time.monotonic() + 30
            while await asyncio.to_thread(watch.poll) < done["sent"]:
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(POLL)
            check = await asyncio.to_thread(watch.exactly_once, done["published"])
            lines = service.log_lines()
        finally:
            if pub is not None:
                await _end_child(pub)
            await service.stop()
            if watch is not None:
                watch.close()
            await tidy_broker(args.mqtt, base, names)
    for p in phases:  # the lags now: an event a phase held back may be stored after it
        lo, hi = p.pop("window")
        lags = sorted(lag for ts, lag in watch.lags if lo <= ts < hi)
        p["lag_p50_ms"] = _ms(percentile(lags, 0.5))
        p["lag_p95_ms"] = _ms(percentile(lags, 0.95))
        p["lag_max_ms"] = _ms(lags[-1]) if lags else None
        p["lag_samples"] = len(lags)
    quiet = phases[0]
    for p in phases:
        p["ratios"] = {
            k: (round(p[k] / quiet[k], 2) if p.get(k) and quiet.get(k) else None)
            for k in ("lag_p50_ms", "lag_p95_ms", "get_p50_ms", "get_p95_ms", "stored_per_s")
        }
    result = {
        "rate": args.rate,
        "tables": len(names),
        "phase_seconds": args.phase_seconds,
        "phases": phases,
        "check": check,
        "tracebacks": sum(1 for line in lines if "Traceback" in line),
    }
    report_crowds(result)
    return result


async def phase(
    args: argparse.Namespace, workdir: Path, service: Service, client: Any, watch: LogWatch,
    cpu: Any, pub: Any, label: str, kind: str | None, extra: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    say(f"  phase: {label} …")
    began = time.monotonic()  # the last phase's backlog stored first (a second's slack)
    while watch.count < pub.sent_at(time.monotonic() - 1.0) and time.monotonic() < began + 60:
        await asyncio.sleep(0.1)
    settled = time.monotonic() - began
    crowd = None
    ready: dict[str, Any] = {}
    stats: dict[str, Any] = {}
    try:
        if kind is not None:
            cfg = {"kind": kind, "port": service.port, **extra}
            crowd = await _child(["--crowd", json.dumps(cfg)], workdir, f"crowd-{kind}")
            ready = await crowd.expect("ready", 300)
        pids = [pub.proc.pid] + ([crowd.proc.pid] if crowd else [])
        cpu.fixed["load"] = pids
        a = await asyncio.to_thread(cpu.sample)
        start_wall, start = time.time(), time.monotonic()
        stored0 = watch.count
        latencies: list[float] = []
        errors = 0
        while time.monotonic() < start + args.phase_seconds:
            t = time.monotonic()
            try:
                r = await client.get("/api/tables")
                ok = r.status_code == 200
            except Exception:  # a refused or timed-out probe is a figure
                ok = False
            latencies.append(time.monotonic() - t)
            errors += not ok
            await asyncio.sleep(PROBE_GAP)
        span = time.monotonic() - start
        end_wall = time.time()
        stored = watch.count - stored0
        b = await asyncio.to_thread(cpu.sample)
        if crowd is not None:
            crowd.tell({"do": "stop"})
            stats = await crowd.expect("done", 120)
    finally:
        if crowd is not None:
            await _end_child(crowd)
    latencies.sort()
    share = cpu_share(a, b)
    out = {
        "label": label,
        "kind": kind or "quiet",
        "window": (start_wall, end_wall),
        "settled_s": round(settled, 1),
        "backlog_end": round(pub.sent_at(time.monotonic()) - watch.count),
        "stored_per_s": round(stored / span, 1),
        "get_p50_ms": _ms(percentile(latencies, 0.5)),
        "get_p95_ms": _ms(percentile(latencies, 0.95)),
        "get_max_ms": _ms(latencies[-1]) if latencies else None,
        "get_samples": len(latencies),
        "get_errors": errors,
        "cpu": {k: share[k] for k in ("service", "service_loop", "probe", "machine", "other")}
        | {"clients": share["load"]},
        "ready": ready,
        "crowd": stats,
    }
    say(
        f"    (after {settled:.1f} s for the last phase's backlog) stored"
        f" {out['stored_per_s']:.0f}/s, backlog at the end {out['backlog_end']:,}; GET /api/tables"
        f" p50/p95/max {out['get_p50_ms']} / {out['get_p95_ms']} / {out['get_max_ms']} ms"
        f" ({len(latencies)}, {errors} failed); CPU service {share['service']}% (loop"
        f" {share['service_loop']}%), clients"
        f" {share['load']}%, other programs {share['other']}%, machine {share['machine']}%"
    )
    if ready or stats:
        say(f"    crowd: {json.dumps({**ready, **stats}, ensure_ascii=False)}")
    return out


def report_crowds(r: dict[str, Any]) -> None:
    head = (
        f"  {'phase':<32} {'lag p50':>8} {'p95':>7} {'max':>7} {'stored/s':>8} | {'GET p50':>7}"
        f" {'p95':>7} {'max':>7} | {'×lag p95':>8} {'×GET p95':>8} | {'service':>7} {'(loop)':>6}"
        f" {'clients':>7} {'other':>5}"
    )
    say(f"\nstoring while crowds read ({r['tables']} tables at {r['rate']:.0f} events/s; ms;"
        " × = ratio to quiet; CPU in % of a core)")  # fmt: skip
    say(head)
    say("  " + "-" * (len(head) - 2))
    for p in r["phases"]:
        x = p["ratios"]
        say(
            f"  {p['label']:<32} {_num(p['lag_p50_ms']):>8} {_num(p['lag_p95_ms']):>7}"
            f" {_num(p['lag_max_ms']):>7} {p['stored_per_s']:>8.0f} | {_num(p['get_p50_ms']):>7}"
            f" {_num(p['get_p95_ms']):>7} {_num(p['get_max_ms']):>7} |"
            f" {_times(x['lag_p95_ms']):>8} {_times(x['get_p95_ms']):>8} |"
            f" {p['cpu']['service']:>7} {p['cpu']['service_loop']:>6} {p['cpu']['clients']:>7}"
            f" {p['cpu']['other']:>5}"
        )
    c = r["check"]
    say(
        f"  exactly once at the end: published {c['published']:,}, stored {c['stored']:,},"
        f" duplicates {c['duplicates']}, missing {c['missing']}: {c['verdict']};"
        f" tracebacks in the service log {r['tracebacks']}"
    )
    say(
        "  note: the crowds' clients run in their own process but on the same 2 cores as the"
        " service (their CPU is the 'clients' column, with the publishers'; 'other' is the"
        " rest of the machine's programs; '(loop)' the service's event-loop thread, a core"
        " at most)"
    )


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f}" if value < 100 else f"{value:,.0f}"


def _times(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}×" if value < 10 else f"{value:,.0f}×"


# --- 3. the summary ------------------------------------------------------------------------


def summary_rows(result: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(figure, value, unit, ratio or note) rows, as `mjtable bench` prints them: the
    README's table."""
    rows: list[tuple[str, str, str, str]] = []
    for r in result["floods"]:
        c = r["check"]
        label = f"flood, {r['tables']} tables, --backlog-max {r['backlog_max']:,}"
        rows.append((
            f"{label}: service RSS start / peak / end ({r['seconds']:.0f} s)",
            f"{r['rss_start_mb']:.0f} / {r['rss_peak_mb']:.0f} / {r['rss_end_mb']:.0f}", "MB",
            f"{r['growth_last_half_mb_per_s']:+.2f} MB/s over the last half (before the bound:"
            " ~2.8 MB/s)",
        ))  # fmt: skip
        rows.append((
            f"{label}: sent / stored",
            f"{r['sent_per_s']:,.0f} / {r['stored_per_s']:,.0f}", "events/s",
            f"intake paused {r['paused_share']:.0%} of the time; {r['replay_requests']:,}"
            " replay requests",
        ))  # fmt: skip
        drained = "not drained" if r["drained_s"] is None else f"drained in {r['drained_s']:.0f} s"
        rows.append((
            f"{label}: stored once / published (duplicates, missing)",
            f"{c['stored']:,} / {c['published']:,} ({c['duplicates']}, {c['missing']})", "",
            f"{c['verdict']}; {drained}",
        ))  # fmt: skip
    crowd = result.get("crowds")
    if crowd:
        quiet = crowd["phases"][0]
        for p in crowd["phases"]:
            x = p["ratios"]
            what = f"; stored {p['stored_per_s']:,.0f}/s"
            if p["kind"] == "ws":
                refused = sum(p["ready"].get("refused", {}).values())
                what += f", {p['ready'].get('accepted', 0)} accepted, {refused} refused"
            elif p["kind"] == "readers":
                what += f", {p['crowd'].get('per_s', 0):,.0f} pages/s read"
            elif p["kind"] == "guesses":
                st = p["crowd"].get("statuses", {})
                what += (
                    f", {p['crowd'].get('guesses', 0):,} guesses at"
                    f" {p['crowd'].get('per_s', 0):,.0f}/s, {st.get('429', 0):,} answered 429,"
                    f" {st.get('401', 0)} looked up"
                )
            rows.append((
                f"storing at {crowd['rate']:.0f}/s, {p['label']}: lag p50 / p95;"
                " GET /api/tables p50 / p95",
                f"{_num(p['lag_p50_ms'])} / {_num(p['lag_p95_ms'])};"
                f" {_num(p['get_p50_ms'])} / {_num(p['get_p95_ms'])}", "ms",
                ("quiet" if p is quiet else
                 f"p95 {_times(x['lag_p95_ms'])} / {_times(x['get_p95_ms'])} quiet's") + what,
            ))  # fmt: skip
    return rows


def markdown(result: dict[str, Any]) -> str:
    lines = ["| figure | value | unit | ratio / note |", "|---|---:|---|---|"]
    for row in summary_rows(result):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
    return "\n".join(lines)


# --- the run -------------------------------------------------------------------------------


def say(text: str) -> None:
    print(text, flush=True)


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    floods = []
    for backlog in (args.small_backlog, DEFAULT_BACKLOG):
        if not args.skip_flood:
            floods.append(await flood(args, workdir, backlog))
    result: dict[str, Any] = {"floods": floods}
    if not args.skip_crowds:
        result["crowds"] = await crowds(args, workdir)
    return result


def measure(
    mqtt: str = DEFAULT_MQTT,
    db: str = "sqlite",
    tables: int = 6,
    seconds: float = 60.0,
    drain_seconds: float = 45.0,
    ahead: int = 50_000,
    small_backlog: int = 2000,
    phase_seconds: float = 15.0,
    rate: float = 300.0,
    ws_clients: int = 1000,
    readers: int = 20,
    guesses: int = 2000,
    seed: int = 1,
    skip_flood: bool = False,
    skip_crowds: bool = False,
) -> dict[str, Any]:
    """Every section's figures (for `main` and `mjtable bench`); raises if the run broke,
    its logs kept in the folder the exception names."""
    args = argparse.Namespace(**{k: v for k, v in locals().items()})
    result = run_in_workdir("mjtable-bench-hardening-", run, args)
    result["db"] = "sqlite" if db == "sqlite" else db.split("?")[0]
    return result


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] in ("--publishers", "--crowd"):
        cfg = json.loads(sys.argv[2])
        asyncio.run(_publishers(cfg) if sys.argv[1] == "--publishers" else _crowd(cfg))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mqtt", default=DEFAULT_MQTT, help="broker URL")
    parser.add_argument("--db", default="sqlite", help="'sqlite' (default) or a PostgreSQL URL")
    parser.add_argument("--tables", type=int, default=6, help="tables of the flood")
    parser.add_argument("--seconds", type=float, default=60.0, help="each flood's length")
    parser.add_argument(
        "--drain-seconds", type=float, default=45.0,
        help="the most a flood's backlog is waited for afterwards",
    )  # fmt: skip
    parser.add_argument(
        "--ahead", type=int, default=50_000,
        help="the most events the flood's bridges hold published and not yet stored (0: no"
        " limit; the drain afterwards may then outlast --drain-seconds)",
    )  # fmt: skip
    parser.add_argument("--small-backlog", type=int, default=2000, help="the small --backlog-max")
    parser.add_argument("--phase-seconds", type=float, default=15.0)
    parser.add_argument("--rate", type=float, default=300.0, help="steady events/s in all")
    parser.add_argument("--ws-clients", type=int, default=1000)
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--guesses", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip-flood", action="store_true", help="only the crowds")
    parser.add_argument("--skip-crowds", action="store_true", help="only the floods")
    args = parser.parse_args()
    say(
        f"python {platform.python_version()}, {os.cpu_count()} cpus, load average"
        f" {os.getloadavg()[0]:.2f} at start; db {args.db}, broker {args.mqtt}"
    )
    try:
        result = measure(**vars(args))
    except RuntimeError as exc:
        say(f"the run broke: {exc}")
        print(json.dumps({"ok": False, "error": str(exc)}))
        sys.exit(1)
    say(f"\nsummary (wall {result['wall_seconds']:.0f} s, load average"
        f" {os.getloadavg()[0]:.2f} at the end):\n")  # fmt: skip
    say(markdown(result))
    for r in result["floods"]:
        r.pop("rss_samples", None)
    print(json.dumps({**result, "ok": True}, separators=(",", ":"), default=str))


if __name__ == "__main__":
    main()
