"""`mjtable settle`: one hand's payments from its result and the table's context."""

from __future__ import annotations

import argparse
import functools

from mjtable import json_batch
from mjtable.commands.profile import add_profile_option, load_profile
from table_service.rules import SettleInputError, settle_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "settle",
        help="settle one hand's payments",
        description=(
            "Settle one hand (JSON: stakes, dealer, streak, kind, winner, payer, tai; see "
            "docs/rules/score-format.md). Prints payments and each seat's net; exit 2 with "
            "one line naming the field for malformed input. The profile gives the stakes a "
            "request leaves out, and the dealer and 七搶一 台."
        ),
    )
    json_batch.add_input_arguments(p, "hand result")
    add_profile_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    handler = functools.partial(settle_json, defaults=load_profile(args.profile).stakes())
    return json_batch.run(args, handler, (SettleInputError,))
