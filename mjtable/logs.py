"""The long-running commands' logging (`serve`, `bridge`): a line that repeats is written
once with a count, and no line outgrows a bound.

Both guard the disk against one fault: a storm (asyncio logged 2.4 million identical lines,
179 MB, in 80 s) or one huge value (a refused 200 MB message became a 200 MB line).
"""

from __future__ import annotations

import atexit
import logging
import threading
from typing import Final

FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
WINDOW: Final = 10.0  # seconds a repeated line stays collapsed before it is written again
MESSAGE_LIMIT: Final = 2_000  # characters of a formatted message
TRACE_LIMIT: Final = 20_000  # characters of a traceback (head and tail kept)

_SUMMARY: Final = "_mjtable_repeat_summary"  # marks the count line, which passes as it is


class LogOnce(logging.Filter):
    """A handler's filter: a record with the same logger, level and template (`record.msg`)
    as the one just written, within `window` seconds of it, is counted, not written; when
    the window closes or another line comes, one line says "… repeated N times in S s".
    Any message longer than `limit` characters is cut, saying how much was."""

    def __init__(
        self,
        handler: logging.Handler,
        window: float = WINDOW,
        limit: int = MESSAGE_LIMIT,
        trace_limit: int = TRACE_LIMIT,
    ) -> None:
        super().__init__()
        self.handler = handler
        self.window = window
        self.limit = limit
        self.trace_limit = trace_limit
        self._lock = threading.RLock()
        self._key: tuple[str, int, str] | None = None
        self._first: logging.LogRecord | None = None
        self._repeats = 0
        self._last = 0.0
        self._timer: threading.Timer | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, _SUMMARY, False):
            return True
        key = (record.name, record.levelno, _template(record.msg))
        with self._lock:
            first = self._first
            if (
                key == self._key
                and first is not None
                and record.created - first.created < self.window
            ):
                self._repeats += 1
                self._last = record.created
                if self._timer is None:
                    self._start_timer(first.created + self.window - record.created)
                return False
            self._flush_locked()
            self._key, self._first, self._repeats = key, record, 0
        self._bound(record)
        return True

    def flush(self) -> None:
        """Write the count of the repeats held back now (at exit, say)."""
        with self._lock:
            self._flush_locked()
            self._key, self._first = None, None

    def _start_timer(self, delay: float) -> None:
        self._timer = threading.Timer(max(delay, 0.0), self._window_closed)
        self._timer.daemon = True
        self._timer.start()

    def _window_closed(self) -> None:
        with self._lock:
            self._flush_locked()
            self._key, self._first = None, None  # the next one is written again

    def _flush_locked(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        first, repeats = self._first, self._repeats
        self._repeats = 0
        if first is None or repeats == 0:
            return
        summary = logging.LogRecord(
            first.name,
            first.levelno,
            first.pathname,
            first.lineno,
            "… repeated %d times in %.1f s",
            (repeats, self._last - first.created),
            None,
        )
        setattr(summary, _SUMMARY, True)
        self.handler.handle(summary)

    def _bound(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if len(message) > self.limit:
            cut = len(message) - self.limit
            record.msg = f"{message[: self.limit]} … [{cut} more characters cut]"
            record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = _middle_cut(record.exc_text, self.trace_limit)
        if record.stack_info:
            record.stack_info = _middle_cut(record.stack_info, self.trace_limit)


def _template(msg: object) -> str:
    """The record's template as a key; a non-string message (an exception, say) by its text."""
    return msg if isinstance(msg, str) else str(msg)[:MESSAGE_LIMIT]


def _middle_cut(text: str, limit: int) -> str:
    """A traceback's head (where it began) and tail (what was raised), the middle cut."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… [{len(text) - 2 * half} more characters cut] …\n{text[-half:]}"


def install(
    handler: logging.Handler, window: float = WINDOW, limit: int = MESSAGE_LIMIT
) -> LogOnce:
    """Put a LogOnce on `handler`; its held-back count is written at exit."""
    once = LogOnce(handler, window, limit)
    handler.addFilter(once)
    atexit.register(once.flush)  # runs before logging's own shutdown, registered earlier
    return once


def configure_logging(level: str | int) -> None:
    """The root logger at `level` on stderr, its handler guarded by a LogOnce. Handlers
    a host set up before (a test runner's capture, say) are left as they are."""
    root = logging.getLogger()
    before = set(root.handlers)
    logging.basicConfig(level=level, format=FORMAT)
    for handler in root.handlers:
        if handler not in before and not any(isinstance(f, LogOnce) for f in handler.filters):
            install(handler)
