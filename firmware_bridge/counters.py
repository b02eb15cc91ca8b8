"""The bridge's counters: one mutable record the link, outbox and MQTT side all bump."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Counters:
    """Totals since the bridge started; `bad_by_reason` splits `frames_bad` (crc, cobs, ...)."""

    frames_good: int = 0
    frames_bad: int = 0
    bad_by_reason: Counter[str] = field(default_factory=Counter)
    events: int = 0
    invalid_events: int = 0
    duplicates: int = 0
    gaps: int = 0
    lost: int = 0
    retransmits: int = 0
    reconnects: int = 0
    link_downs: int = 0
    reboots: int = 0
    commands_sent: int = 0
    commands_dropped: int = 0
    commands_refused: int = 0  # the controller's COMMAND_REFUSED, one per event stored
    commands_rejected: int = 0  # the bridge's own: a bad body, a retained command, link down
    refusals_unanswered: int = 0
    published: int = 0
    mqtt_reconnects: int = 0
    replays: int = 0
    replays_limited: int = 0  # replay requests refused: over the per-bridge rate
    outbox_depth: int = 0

    def bad(self, reason: str) -> None:
        self.frames_bad += 1
        self.bad_by_reason[reason] += 1

    def snapshot(self) -> dict[str, Any]:
        """Plain values for JSON and Prometheus."""
        out: dict[str, Any] = {k: v for k, v in vars(self).items() if k != "bad_by_reason"}
        out["bad_by_reason"] = dict(self.bad_by_reason)
        return out
