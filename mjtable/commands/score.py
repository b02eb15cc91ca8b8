"""`mjtable score`: one declared win in, its 台 out (rules/score-format.md)."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

from mjtable import json_batch
from table_service.rules import HandInputError, Profile, ProfileError, profile_from_toml
from table_service.rules.scoring import score_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "score",
        help="score a declared win in 台",
        description=(
            "Score one declared winning hand (JSON, see docs/rules/score-format.md). "
            "Prints the result JSON; exit 0, also for a well-formed hand that is not a win "
            '("valid": false); exit 2 with one line on stderr naming the field for malformed '
            "input."
        ),
    )
    json_batch.add_input_arguments(p, "hand")
    add_profile_option(p)
    p.set_defaults(func=run)


def add_profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        metavar="TOML",
        help="rule profile file (taiwan16.md §7); default: the mjonline profile",
    )


def load_profile(path: str | None) -> Profile:
    """Read a profile file; errors name the key. Exits 2 on a bad profile."""
    if path is None:
        return Profile()
    try:
        return profile_from_toml(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        print(f"profile: cannot read {path}: {exc.strerror}", file=sys.stderr)
    except ProfileError as exc:
        print(f"profile {path}: {exc}", file=sys.stderr)
    raise SystemExit(json_batch.EXIT_BAD_INPUT)


def run(args: argparse.Namespace) -> int:
    handler = functools.partial(score_json, profile=load_profile(args.profile))
    return json_batch.run(args, handler, (HandInputError,))
