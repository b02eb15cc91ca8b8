"""The long-running commands' log filter: a storm of one line is written once and counted,
and no line outgrows its bound, whatever the message or its traceback held."""

from __future__ import annotations

import io
import logging
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator

import pytest

from mjtable.logs import LogOnce, install

WINDOW = 10.0


class Captured:
    """A real logger with one stream handler guarded by a LogOnce."""

    def __init__(self, window: float = WINDOW, limit: int = 2_000) -> None:
        self.stream = io.StringIO()
        self.handler = logging.StreamHandler(self.stream)
        self.handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
        self.once = LogOnce(self.handler, window, limit)
        self.handler.addFilter(self.once)
        self.name = f"t.{uuid.uuid4().hex[:8]}"
        self.logger = logging.getLogger(self.name)
        self.logger.propagate = False
        self.logger.setLevel(logging.DEBUG)
        self.logger.addHandler(self.handler)

    def lines(self) -> list[str]:
        return self.stream.getvalue().splitlines()

    def at(self, created: float, message: str, *args: object, level: int = logging.WARNING) -> None:
        """Log as if at time `created` (the window runs on the records' own times)."""
        record = self.logger.makeRecord(self.name, level, __file__, 1, message, args, None)
        record.created = created
        self.logger.handle(record)

    def close(self) -> None:
        self.logger.removeHandler(self.handler)


@pytest.fixture
def log() -> Iterator[Captured]:
    captured = Captured()
    yield captured
    captured.close()


def test_a_storm_of_one_line_is_written_once_with_its_count(log: Captured) -> None:
    for n in range(100_000):  # one template, within the window (the records' own times)
        log.at(1000.0 + n * 1e-5, "socket.send() raised exception (%d).", n)
    log.logger.info("a different line")
    first, count, other = log.lines()
    assert first == f"{log.name} WARNING socket.send() raised exception (0)."
    assert count == f"{log.name} WARNING … repeated 99999 times in 1.0 s"
    assert other == f"{log.name} INFO a different line"


def test_another_level_or_logger_is_another_line(log: Captured) -> None:
    log.logger.warning("same")
    log.logger.error("same")
    logging.getLogger(f"{log.name}.child").warning("same")  # propagates to the handler
    log.logger.warning("same")
    assert len(log.lines()) == 4 and not any("repeated" in line for line in log.lines())


def test_a_repeat_after_the_window_is_written_again(log: Captured) -> None:
    for second in range(0, 10):
        log.at(1000.0 + second, "broker unreachable: %s", "refused")
    log.at(1000.0 + WINDOW + 1, "broker unreachable: %s", "refused")
    assert log.lines() == [
        f"{log.name} WARNING broker unreachable: refused",
        f"{log.name} WARNING … repeated 9 times in 9.0 s",
        f"{log.name} WARNING broker unreachable: refused",
    ]


def test_the_count_is_written_when_the_window_closes() -> None:
    """No other line need come: a timer ends the window and writes the count."""
    quick = Captured(window=0.2)
    try:
        written = threading.Event()
        real_emit = quick.handler.emit

        def emit(record: logging.LogRecord) -> None:
            real_emit(record)
            if "repeated" in record.getMessage():
                written.set()

        quick.handler.emit = emit  # type: ignore[method-assign]
        for _ in range(5):
            quick.logger.error("tick")
        assert written.wait(30)
        assert quick.lines()[0] == f"{quick.name} ERROR tick"
        assert quick.lines()[1].startswith(f"{quick.name} ERROR … repeated 4 times in ")
        quick.logger.error("tick")  # a new window: written again
        assert quick.lines()[2] == f"{quick.name} ERROR tick"
    finally:
        quick.close()


def test_flush_writes_the_count_held_back(log: Captured) -> None:
    log.at(5.0, "x")
    log.at(6.5, "x")
    log.once.flush()
    assert log.lines() == [
        f"{log.name} WARNING x",
        f"{log.name} WARNING … repeated 1 times in 1.5 s",
    ]
    log.once.flush()  # nothing more held
    assert len(log.lines()) == 2


def test_a_huge_message_is_cut_to_the_bound_saying_how_much(log: Captured) -> None:
    payload = "A" * 200_000
    log.logger.warning("refused a message: %s", payload)
    (line,) = log.lines()
    cut = len("refused a message: ") + 200_000 - 2_000
    assert line.endswith(f" … [{cut} more characters cut]")
    assert len(line) < 2_100


def test_a_huge_traceback_is_cut_keeping_its_head_and_tail(log: Captured) -> None:
    try:
        raise ValueError("B" * 500_000)
    except ValueError:
        log.logger.exception("could not decode")
    text = log.stream.getvalue()
    assert len(text) < 25_000
    assert "Traceback (most recent call last)" in text and "more characters cut" in text
    assert text.rstrip().endswith("B" * 100)  # the tail: what was raised


def test_the_commands_logging_collapses_a_storm_on_stderr() -> None:
    """configure_logging as `serve` (and `bridge`) call it: the root's stderr handler is
    guarded, and a count still held back is written at exit."""
    script = (
        "import logging\n"
        "from mjtable.logs import configure_logging\n"
        "configure_logging('INFO')\n"
        "for _ in range(20_000):\n"
        "    logging.getLogger('asyncio').error('socket.send() raised exception.')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, lines[:5]
    assert lines[0].endswith("ERROR asyncio: socket.send() raised exception.")
    assert "ERROR asyncio: … repeated 19999 times in " in lines[1]


def test_install_guards_a_handler() -> None:
    handler = logging.StreamHandler(io.StringIO())
    once = install(handler)
    assert once in handler.filters
