"""The bridge process: one table's serial link, outbox, MQTT side and metrics, wired together."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from firmware_bridge.counters import Counters
from firmware_bridge.event_store import OutboxEventStore
from firmware_bridge.link import HostLink
from firmware_bridge.messages import CountersPayload, LinkStatus, Topics
from firmware_bridge.metrics import registry_for, serve
from firmware_bridge.mqtt import MqttSide
from firmware_bridge.outbox import Outbox
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.settings import BridgeSettings
from firmware_bridge.stopping import cancel_and_wait

log = logging.getLogger(__name__)


class Bridge:
    """Build with settings, then `await run()` until cancelled (a clean stop says `offline`)."""

    def __init__(self, settings: BridgeSettings, timing: Timing | None = None) -> None:
        self.settings = settings
        self.counters = Counters()
        self.outbox = Outbox(settings.outbox_path, settings.outbox_sync, settings.history)
        self.counters.outbox_depth = self.outbox.depth
        topics = Topics(settings.base_topic, settings.table)
        self.mqtt = MqttSide(
            settings, self.outbox, self.counters, lambda: self.link, self.counters_payload,
            self.link_status,
        )  # fmt: skip
        store = OutboxEventStore(self.outbox, topics, settings.table, self._stored)
        self.link = HostLink(
            settings.port,
            store,
            self.counters,
            baudrate=settings.baudrate,
            timing=timing,
            reopen_min=settings.reopen_min,
            reopen_max=settings.reopen_max,
            on_info=self.mqtt.status_changed,
            on_error=self.mqtt.report_error,
        )
        self._stop_metrics: Callable[[], None] | None = None

    def _stored(self) -> None:
        self.counters.outbox_depth = self.outbox.depth
        self.mqtt.wake.set()

    def counters_payload(self) -> CountersPayload:
        self.counters.outbox_depth = self.outbox.depth
        return CountersPayload(table=self.settings.table, **self.counters.snapshot())

    def link_status(self) -> LinkStatus:
        info = self.link.info
        return LinkStatus(
            table=self.settings.table,
            state=info.state,
            port=info.port,
            since=info.since,
            protocol_version=info.protocol_version,
            firmware_version=info.firmware_version,
            controller_table_id=info.controller_table_id,
            boot_id=info.boot_id,
            last_seq=info.last_seq,
            counters=self.counters_payload(),
        )

    async def run(self) -> None:
        s = self.settings
        if s.metrics_port is not None:
            registry = registry_for(s.table, self.counters, lambda: self.link.up)
            self._stop_metrics = serve(registry, s.metrics_host, s.metrics_port)
            log.info("metrics on http://%s:%d/metrics", s.metrics_host, s.metrics_port)
        tasks = [asyncio.create_task(self.link.run()), asyncio.create_task(self.mqtt.run())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            await cancel_and_wait(tasks)
            if self._stop_metrics is not None:
                self._stop_metrics()
            self.outbox.close()
