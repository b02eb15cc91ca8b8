"""Commands under a flood: refused and valid commands per second, and a valid command's
wait after a flood of bad ones.

    .venv/bin/python bench/command_flood.py [--mqtt mqtt://127.0.0.1:1883]
        [--n 300] [--rate 5000] [--seconds 10] [--bridge-path DIR]

The bridge runs as its own process (`python -m mjtable bridge`), the simulated
controller (a pty), the flooder and the probe in this one. `--bridge-path DIR` puts
DIR first on the bridge's PYTHONPATH: a copy of an older `firmware_bridge` there
(`git archive HEAD firmware_bridge mjtable | tar -x -C DIR`) gives the "before" figures.

Figures: refused and valid commands answered per second (`--n` of each published back
to back; keep --n within the bridge's answer burst, 400); then `--rate` bad commands a
second for `--seconds` (QoS 0, from one client), then one valid command from another
client: the time until its reply, and how many of the flood were answered or counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import aiomqtt  # noqa: E402

from firmware_bridge.mqtt import set_nodelay_on_open  # noqa: E402
from table_sim.controller import PtyController  # noqa: E402

BAD = b'{"command": "seat_led", "seat": 9, "mode": "turn"}'
GOOD = {"command": "request_state"}


def client(url: str) -> aiomqtt.Client:
    parts = urlsplit(url)
    c = aiomqtt.Client(parts.hostname or "127.0.0.1", parts.port or 1883, timeout=30)
    set_nodelay_on_open(c)  # the bench's own clients must not add Nagle's 40 ms
    c.pending_calls_threshold = 100_000
    return c


class Replies:
    """Every …/set/response and the bridge's retained state, as they arrive."""

    def __init__(self) -> None:
        self.responses: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.link_state: str | None = None
        self.counters: dict[str, Any] = {}

    async def run(self, c: aiomqtt.Client, root: str) -> None:
        async for m in c.messages:
            payload = m.payload if isinstance(m.payload, bytes) else b""
            if m.topic.matches(f"{root}/set/response"):
                self.responses.append(json.loads(payload))
                self.arrived.set()
            elif m.topic.matches(f"{root}/bridge/link"):
                self.link_state = json.loads(payload)["state"]
            elif m.topic.matches(f"{root}/bridge/counters"):
                self.counters = json.loads(payload)

    async def until(self, check: Any, timeout: float) -> None:
        async with asyncio.timeout(timeout):
            while not check():
                self.arrived.clear()
                await asyncio.wait({asyncio.ensure_future(self.arrived.wait())}, timeout=0.05)


async def answered_rate(
    pub: aiomqtt.Client, replies: Replies, root: str, body: bytes, n: int
) -> float:
    """`n` commands published back to back (QoS 1); replies per second until the last."""
    want = len(replies.responses) + n
    start = time.perf_counter()
    await asyncio.gather(*(pub.publish(f"{root}/set", body, qos=1) for _ in range(n)))
    await replies.until(lambda: len(replies.responses) >= want, 120)
    return n / (time.perf_counter() - start)


async def flood(url: str, root: str, rate: int, seconds: float) -> int:
    sent = 0
    async with client(url) as c:
        start = time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            due = int(elapsed * rate) - sent
            for _ in range(due):
                await c.publish(f"{root}/set", BAD, qos=0)
            sent += max(0, due)
            await asyncio.sleep(0.005)
    return sent


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mqtt", default=os.environ.get("MJTABLE_TEST_MQTT", "mqtt://127.0.0.1:1883"))
    ap.add_argument("--n", type=int, default=300, help="commands of each kind, back to back")
    ap.add_argument("--rate", type=int, default=5000, help="bad commands per second in the flood")
    ap.add_argument("--seconds", type=float, default=10.0, help="length of the flood")
    ap.add_argument("--bridge-path", default="", help="put this first on the bridge's path")
    args = ap.parse_args()

    table = "flood" + uuid.uuid4().hex[:8]
    root = f"mjtable/{table}"
    tmp = Path(tempfile.mkdtemp())
    device = PtyController(tmp / "tty", 0xF100D)
    await device.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MJTABLE_BRIDGE_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (args.bridge_path, str(ROOT)) if p)
    cmd = [
        sys.executable, "-m", "mjtable", "bridge", "--port", str(device.port), "--table", table,
        "--mqtt", args.mqtt, "--outbox", str(tmp / "o.db"), "--status-interval", "0.5",
        "--log-level", "ERROR",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, cwd=tmp, env=env)
    replies = Replies()
    try:
        async with client(args.mqtt) as sub, client(args.mqtt) as pub:
            await sub.subscribe(f"{root}/set/response", qos=1)
            await sub.subscribe(f"{root}/bridge/#", qos=1)
            listener = asyncio.create_task(replies.run(sub, root))
            await replies.until(lambda: replies.link_state == "up", 30)

            refused_rate = await answered_rate(pub, replies, root, BAD, args.n)
            valid_rate = await answered_rate(pub, replies, root, json.dumps(GOOD).encode(), args.n)
            print(f"refused commands answered: {refused_rate:8.0f} /s ({args.n} back to back)")
            print(f"valid commands answered:   {valid_rate:8.0f} /s ({args.n} back to back)")

            before = len(replies.responses)
            sent = await flood(args.mqtt, root, args.rate, args.seconds)
            flood_end = time.perf_counter()
            probe = dict(GOOD, transaction="probe")
            await pub.publish(f"{root}/set", json.dumps(probe), qos=1)
            try:
                await replies.until(
                    lambda: any(r.get("transaction") == "probe" for r in replies.responses), 120
                )
                wait = f"{time.perf_counter() - flood_end:.2f} s"
            except TimeoutError:
                wait = "no reply within 120 s"
            answered = len(replies.responses) - before - 1
            print(f"flood: {sent} bad commands in {args.seconds:.0f} s ({args.rate}/s, QoS 0)")
            print(f"valid command after the flood answered after: {wait}")
            print(f"flood refusals answered: {answered}")
            await asyncio.sleep(1.0)  # one more counters publication
            for key in ("commands_rejected", "refusals_unanswered"):
                if key in replies.counters:
                    print(f"bridge counter {key}: {replies.counters[key]}")
            listener.cancel()
    finally:
        proc.terminate()
        proc.wait(10)
        await device.stop()


if __name__ == "__main__":
    asyncio.run(main())
