"""Running a JSON-in, JSON-out tool on one document or on a JSON Lines batch.

`mjtable score` and `mjtable settle` share it: one object → result and exit 0,
or one line on stderr and exit 2; in --jsonl mode every input line yields one
output line, an error object for a bad line, and the batch goes on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import IO, TextIO

Handler = Callable[[object], dict[str, object]]
EXIT_BAD_INPUT = 2


def add_input_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """The input file (or -) and --jsonl, as every JSON tool takes them."""
    parser.add_argument("input", help=f"{what} JSON file, or - for standard input")
    parser.add_argument(
        "--jsonl", action="store_true", help=f"input is JSON Lines: one {what} per line"
    )


def run(args: argparse.Namespace, handler: Handler, errors: tuple[type[Exception], ...]) -> int:
    """One document or, with --jsonl, a batch."""
    runner = run_jsonl if args.jsonl else run_one
    return runner(args.input, handler, errors)


def _open(path: str) -> IO[str]:
    return sys.stdin if path == "-" else open(path, encoding="utf-8")


def _dump(obj: object, indent: int | None = None) -> str:
    return json.dumps(obj, ensure_ascii=False, indent=indent)


def run_one(path: str, handler: Handler, errors: tuple[type[Exception], ...]) -> int:
    """One JSON document from `path` (or - for stdin)."""
    try:
        with _open(path) as stream:
            text = stream.read()
    except OSError as exc:
        print(f"input: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"input: not valid JSON: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        result = handler(data)
    except errors as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    print(_dump(result, indent=2))
    return 0


def run_lines(
    lines: Iterable[str], handler: Handler, errors: tuple[type[Exception], ...], out: TextIO
) -> int:
    """One result line per input line; blank lines are skipped. Returns bad-line count."""
    bad = 0
    write = out.write
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            result = handler(json.loads(line))
        except json.JSONDecodeError as exc:
            result, bad = {"error": f"line {number}: not valid JSON: {exc.msg}"}, bad + 1
        except errors as exc:
            result, bad = {"error": f"line {number}: {exc}"}, bad + 1
        write(_dump(result))
        write("\n")
    return bad


def run_jsonl(path: str, handler: Handler, errors: tuple[type[Exception], ...]) -> int:
    """A JSON Lines batch; exit 0 even when some lines were bad (they are reported inline)."""
    try:
        stream = _open(path)
    except OSError as exc:
        print(f"input: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    with stream:  # a closed stdout (`| head`) is BrokenPipeError: cli.main ends quietly
        run_lines(stream, handler, errors, sys.stdout)
    return 0
