"""`mjtable replay EVENTS.jsonl`: a recorded event stream through the game mirror.

The interface is docs/rules/replay-format.md: JSON lines in (events as the bridge
publishes them, and `{"session": …}` lines), judgement records out, a summary last.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO

from table_service.mirror.replay import ReplayInputError, replay_lines

EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "replay",
        help="judge a recorded event stream: violations, faults, hands, a summary",
        description=(
            "Run a table's recorded events (JSON lines: bridge events and session lines, see "
            "docs/rules/replay-format.md) through the game mirror and print one JSON record "
            "per judgement (violation, fault, hand), then a summary. Exit 0 when the stream "
            "was read to its end (violations and faults are findings), 2 on an unreadable "
            "line, which is named on stderr; nothing after it is judged."
        ),
    )
    p.add_argument("events", metavar="EVENTS.jsonl", help="the event stream, or - for stdin")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        source: IO[str] = (
            sys.stdin if args.events == "-" else open(args.events, encoding="utf-8")  # noqa: SIM115
        )
    except OSError as exc:
        print(f"{args.events}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = sys.stdout
    try:
        with source:
            for line in replay_lines(source):
                out.write(line)
                out.write("\n")
    except ReplayInputError as exc:
        out.flush()
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0
