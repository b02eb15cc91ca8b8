"""`mjtable replay EVENTS.jsonl`: a recorded event stream through the game mirror.

The interface is docs/rules/replay-format.md: JSON lines in (events as the bridge
publishes them, and `{"session": …}` lines), judgement records out, a summary last.
"""

from __future__ import annotations

import argparse
import io
import sys
from typing import IO

from mjtable.commands.profile import add_profile_option, load_profile
from table_service.mirror.records import Record
from table_service.mirror.replay import Replay, ReplayInputError, replay_lines
from table_service.rules import Profile

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
    add_profile_option(p)
    p.epilog = (
        "--profile judges every table by that profile instead of its session's (the "
        "session's stakes stay): the same game under another club's rules."
    )
    p.set_defaults(func=run)


class _ProfiledReplay(Replay):
    """A replay whose tables are all judged by one profile, with their sessions' stakes."""

    def __init__(self, profile: Profile) -> None:
        super().__init__()
        self.profile = profile
        self._by_stakes: dict[tuple[int, int], Profile] = {}

    def feed(self, number: int, line: str) -> list[Record]:
        records = super().feed(number, line)
        for mirror in self.mirrors.values():  # a session line has just set its own profile
            session = mirror.session
            stakes = (self.profile.base, self.profile.per_tai)
            if session is not None:
                stakes = (session.base, session.per_tai)
            if stakes not in self._by_stakes:
                self._by_stakes[stakes] = self.profile.with_stakes(*stakes)
            mirror.profile = self._by_stakes[stakes]
        return records


def run(args: argparse.Namespace) -> int:
    profile = load_profile(args.profile) if args.profile is not None else None
    try:
        # Bad bytes kept (as surrogates) for the line that holds them to be named.
        source: IO[str] = (
            io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="surrogateescape")
            if args.events == "-"
            else open(args.events, encoding="utf-8", errors="surrogateescape")  # noqa: SIM115
        )
    except OSError as exc:
        print(f"{args.events}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    out = sys.stdout
    try:
        with source:
            lines = replay_lines(source, None if profile is None else _ProfiledReplay(profile))
            for line in lines:
                out.write(line)
                out.write("\n")
    except ReplayInputError as exc:
        out.flush()
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0
