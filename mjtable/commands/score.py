"""`mjtable score`: one declared win in, its 台 out (rules/score-format.md)."""

from __future__ import annotations

import argparse
import functools

from mjtable import json_batch
from mjtable.commands.profile import add_profile_option, load_profile
from table_service.rules import HandInputError
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


def run(args: argparse.Namespace) -> int:
    handler = functools.partial(score_json, profile=load_profile(args.profile))
    return json_batch.run(args, handler, (HandInputError,))
