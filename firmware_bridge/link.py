"""The host side of the table link's I/O: the serial port, its reopening, the timers.

Runs over pyserial-asyncio-fast on a device path or a `socket://` URL. The rules live
in the sans-I/O `HostSession` (host_session.py): this adapter feeds it the bytes that
arrive and the time, and writes what it answers. An event is acknowledged to the
controller only after `EventStore.store` returned (it is then durable).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import serial  # type: ignore[import-untyped]
import serial_asyncio_fast

from firmware_bridge.counters import Counters
from firmware_bridge.host_session import (
    EventStore,
    HostSession,
    LinkDown,
    LinkEvent,
    LinkInfo,
    LinkState,
    Outcome,
    Tag,
)
from firmware_bridge.protocol.arq import Timing
from firmware_bridge.protocol.catalogue import Message
from firmware_bridge.settings import redact_url

__all__ = [
    "EventStore",
    "HostLink",
    "LinkDown",
    "LinkEvent",
    "LinkInfo",
    "LinkState",
    "Outcome",
    "Tag",
]

log = logging.getLogger(__name__)


def _new_future() -> asyncio.Future[None]:
    return asyncio.get_running_loop().create_future()


@dataclass
class _Wire(asyncio.Protocol):
    on_data: Callable[[bytes], None]
    lost: asyncio.Future[None] = field(default_factory=_new_future)

    def data_received(self, data: bytes) -> None:
        self.on_data(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(None)


def _same(wire: _Wire) -> _Wire:
    return wire


class HostLink:
    """One table's link; `run()` keeps it up until cancelled, reopening the port as needed."""

    def __init__(
        self,
        url: str,
        store: EventStore,
        counters: Counters,
        *,
        baudrate: int = 115200,
        timing: Timing | None = None,
        reopen_min: float = 0.2,
        reopen_max: float = 5.0,
        reopen_after_down: float = 10.0,
        controller_id: int | None = None,
        on_info: Callable[[LinkInfo], None] = lambda info: None,
        on_error: Callable[[str, str, bytes], None] = lambda reason, detail, raw: None,
        on_outcome: Callable[[Tag, Outcome, str], None] = lambda tag, outcome, detail: None,
        wall_clock: Callable[[], float] = time.time,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url = url
        self.shown = redact_url(url)  # for logs and the published status
        self.counters = counters
        self.baudrate = baudrate
        self.timing = timing or Timing()
        self.reopen_min, self.reopen_max = reopen_min, reopen_max
        self.reopen_after_down = reopen_after_down
        self.clock = clock
        self.session = HostSession(
            store,
            counters,
            timing=self.timing,
            now=clock(),
            wall_clock=wall_clock,
            controller_id=controller_id,
            name=self.shown,
            on_info=on_info,
            on_error=on_error,
            on_outcome=on_outcome,
        )
        self._transport: asyncio.WriteTransport | None = None
        self._opened_once = False

    @property
    def info(self) -> LinkInfo:
        return self.session.info

    @property
    def up(self) -> bool:
        return self.session.up

    def send(self, message: Message, tag: Tag | None = None) -> None:
        """Queue a command for the controller; raises LinkDown when no session is up.

        `tag` comes back with the command's outcome (`on_outcome`): done, refused or unknown.
        """
        now = self.clock()
        self.session.send(message, now, tag)
        self._flush(now)

    def resync(self) -> None:
        """Ask the controller for a new handshake (SYNC)."""
        self.session.resync(self.clock())
        self._flush(self.clock())

    async def run(self) -> None:
        """Open, serve, and reopen for ever, with exponential backoff after every failure.

        A failure is a port that will not open, or one that closed or went quiet before
        a handshake (a TCP serial server that accepts and drops); only a session that
        came up resets the delay, so nothing can make the link spin.
        """
        delay = self.reopen_min
        while True:
            try:
                wire = await self._open()
            except (OSError, serial.SerialException) as exc:
                why = str(exc)
            else:
                try:
                    await self._serve(wire)
                finally:
                    if self._transport is not None:
                        self._transport.close()
                    self._transport = None
                    self.session.closed()
                if self.session.handshaken:
                    delay = self.reopen_min
                    continue  # a session was up: reopen at once
                why = "closed before a handshake" if wire.lost.done() else "no handshake"
            log.info("port %s: %s; reopening in %.2fs", self.shown, why, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.reopen_max)

    async def _open(self) -> _Wire:
        loop = asyncio.get_running_loop()
        wire = _Wire(self._on_data)
        transport, _ = await serial_asyncio_fast.create_serial_connection(
            loop, partial(_same, wire), self.url, baudrate=self.baudrate
        )
        if self._opened_once:
            self.counters.reconnects += 1
        self._opened_once = True
        assert isinstance(transport, asyncio.WriteTransport)
        self._transport = transport
        now = self.clock()
        self.session.opened(now)
        self._flush(now)
        return wire

    async def _serve(self, wire: _Wire) -> None:
        tick = min(0.02, self.timing.rto_initial / 2)
        while not wire.lost.done():
            # asyncio.wait, not wait_for: 3.11's wait_for can swallow a cancellation
            await asyncio.wait({wire.lost}, timeout=tick)
            now = self.clock()
            self._flush(now)
            down_for = self.session.no_session_for(now)
            if down_for > self.reopen_after_down:
                log.warning("link %s: no session for %.0fs, reopening", self.shown, down_for)
                return

    def _on_data(self, data: bytes) -> None:
        now = self.clock()
        self.session.receive(data, now)
        self._flush(now)

    def _flush(self, now: float) -> None:
        """Write what the session has to say now (answers, due resends, heartbeats)."""
        data = self.session.poll(now)
        if data and self._transport is not None:
            self._transport.write(data)
