"""Entry point of the `mjtable` command: one subcommand per module in `mjtable.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module here exposes `register(subparsers) -> None`; the parser it adds sets
# `func(args) -> int` as its default. Add a command by adding its module name.
COMMAND_MODULES: tuple[str, ...] = (
    "demo",
    "score",
    "settle",
    "profile",
    "replay",
    "bridge",
    "serve",
    "token",
    "export",
    "db",
    "sim",
    "bench",
    "link_test",
)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser; every subcommand documents its needs in --help."""
    parser = argparse.ArgumentParser(
        prog="mjtable",
        description="Controller and tally service for automatic Taiwanese 16-tile mahjong tables.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"mjtable.commands.{name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        sys.stderr.close()
        return 0
