"""`mjtable settle`: one hand's payments from its result and the table's context."""

from __future__ import annotations

import argparse

from mjtable.json_batch import run_jsonl, run_one
from table_service.rules import SettleInputError, settle_json


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "settle",
        help="settle one hand's payments",
        description=(
            "Settle one hand (JSON: stakes, dealer, streak, kind, winner, payer, tai; see "
            "docs/rules/score-format.md). Prints payments and each seat's net; exit 2 with one line "
            "naming the field for malformed input."
        ),
    )
    p.add_argument("input", help="settle JSON file, or - for standard input")
    p.add_argument("--jsonl", action="store_true", help="input is JSON Lines: one hand per line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    runner = run_jsonl if args.jsonl else run_one
    return runner(args.input, settle_json, (SettleInputError,))
