"""Prometheus text exposition of the bridge counters (prometheus_client, own registry)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from firmware_bridge.counters import Counters

GAUGES = {"outbox_depth": "events stored but not yet acknowledged by the broker"}
HELP = {
    "frames_good": "intact frames received",
    "frames_bad": "frames dropped (bad COBS, CRC, length, version)",
    "events": "events stored in order",
    "invalid_events": "intact events the catalogue refused",
    "duplicates": "duplicate frames suppressed",
    "gaps": "out-of-order frames (NAK sent)",
    "lost": "events the controller discarded unsent",
    "retransmits": "commands resent by the bridge",
    "reconnects": "serial port reopened",
    "link_downs": "link declared down by silence",
    "reboots": "controller reboots seen",
    "commands_sent": "commands queued to the controller",
    "commands_dropped": "commands dropped unacknowledged",
    "commands_refused": "commands the controller refused (its COMMAND_REFUSED events)",
    "commands_rejected": "commands and requests the bridge rejected (bad, retained, link down)",
    "refusals_unanswered": "refusals not answered: too many replies already pending",
    "published": "events acknowledged by the broker",
    "mqtt_reconnects": "broker connections lost",
    "replays": "replay requests served from the history",
    "replays_limited": "replay requests refused: over the per-bridge rate",
}


class BridgeCollector(Collector):
    """Reads the live counters at scrape time."""

    def __init__(self, table: str, counters: Counters, link_up: Callable[[], bool]) -> None:
        self.table = table
        self.counters = counters
        self.link_up = link_up

    def collect(self) -> Iterator[Metric]:
        snap: dict[str, Any] = self.counters.snapshot()
        for name, doc in HELP.items():
            fam = CounterMetricFamily(f"mjtable_bridge_{name}", doc, labels=["table"])
            fam.add_metric([self.table], snap[name])
            yield fam
        bad = CounterMetricFamily(
            "mjtable_bridge_frames_bad_by_reason",
            "dropped frames by reason",
            labels=["table", "reason"],
        )
        for reason, n in sorted(snap["bad_by_reason"].items()):
            bad.add_metric([self.table, reason], n)
        yield bad
        for name, doc in GAUGES.items():
            g = GaugeMetricFamily(f"mjtable_bridge_{name}", doc, labels=["table"])
            g.add_metric([self.table], snap[name])
            yield g
        up = GaugeMetricFamily(
            "mjtable_bridge_link_up", "1 while a session is up", labels=["table"]
        )
        up.add_metric([self.table], 1 if self.link_up() else 0)
        yield up


def registry_for(table: str, counters: Counters, link_up: Callable[[], bool]) -> CollectorRegistry:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(BridgeCollector(table, counters, link_up))
    return registry


def serve(registry: CollectorRegistry, host: str, port: int) -> Callable[[], None]:
    """Start the HTTP endpoint in a thread; returns a function that stops it."""
    server, thread = start_http_server(port, addr=host, registry=registry)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=2)

    return stop
