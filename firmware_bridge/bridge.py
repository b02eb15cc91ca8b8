"""The bridge process: one table's serial link, outbox, MQTT side and metrics, wired together."""

from __future__ import annotations

import asyncio
import errno
import logging
from collections.abc import Callable
from typing import Any

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
        if self.outbox.damage is not None:
            log.error(
                "outbox %s: %s; the controller's next handshake shows which events were lost",
                settings.outbox_path,
                self.outbox.damage,
            )
        self.counters.outbox_depth = self.outbox.depth
        topics = Topics(settings.base_topic, settings.table)
        self.mqtt = MqttSide(
            settings,
            self.outbox,
            self.counters,
            lambda: self.link,
            self.counters_payload,
            self.link_status,
            replay_rate=settings.replay_rate,
            replay_burst=settings.replay_burst,
        )
        store = OutboxEventStore(
            self.outbox, topics, settings.table, self._stored, counters=self.counters
        )
        self.link = HostLink(
            settings.port,
            store,
            self.counters,
            baudrate=settings.baudrate,
            timing=timing,
            reopen_min=settings.reopen_min,
            reopen_max=settings.reopen_max,
            controller_id=settings.controller_id,
            on_info=self.mqtt.status_changed,
            on_error=self.mqtt.report_error,
            on_outcome=self.mqtt.command_outcome,
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
        loop = asyncio.get_running_loop()
        previous = loop.get_exception_handler()
        loop.set_exception_handler(_quiet_closed_sockets)
        tasks = [asyncio.create_task(self.link.run()), asyncio.create_task(self.mqtt.run())]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
        finally:
            await cancel_and_wait(tasks)
            loop.set_exception_handler(previous)
            if self._stop_metrics is not None:
                self._stop_metrics()
            self.outbox.close()


def _quiet_closed_sockets(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """One line, not a traceback, for a socket closed under a loop callback.

    A broker killed hard closes paho's socket while aiomqtt still has a reader or writer
    registered on it: asyncio then reports `OSError: [Errno 9] Bad file descriptor`
    from that callback. The MQTT side reconnects anyway; anything else is reported as usual.
    """
    exc = context.get("exception")
    if isinstance(exc, OSError) and exc.errno == errno.EBADF:
        log.warning("mqtt: socket closed under a callback (%s); reconnecting", exc.strerror)
        return
    loop.default_exception_handler(context)
