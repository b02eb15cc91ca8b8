"""`mjtable settle`: one hand's payments from its result and the table's context."""

from __future__ import annotations

import argparse

from mjtable import json_batch
from table_service.rules import SettleInputError, settle_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "settle",
        help="settle one hand's payments",
        description=(
            "Settle one hand (JSON: stakes, dealer, streak, kind, winner, payer, tai; see "
            "docs/rules/score-format.md). Prints payments and each seat's net; exit 2 with "
            "one line naming the field for malformed input."
        ),
    )
    json_batch.add_input_arguments(p, "hand result")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return json_batch.run(args, settle_json, (SettleInputError,))
