"""`mjtable token`: create, list and revoke the API's bearer tokens (stored hashed)."""

from __future__ import annotations

import argparse
import json
import sys

from mjtable.commands.export import add_database_arguments, open_store
from table_service.store import ROLES


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "token",
        help="manage the API's bearer tokens",
        description=(
            "create prints a new token's secret once (only its hash is stored); list shows "
            "the tokens without secrets; revoke ends one. Roles: referee (decide violations, "
            "corrections, penalties), admin (also sessions and tokens)."
        ),
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser("create", help="a new token; prints its secret")
    create.add_argument("--role", choices=ROLES, required=True)
    create.add_argument("--label", default="", help="who or what it is for")
    actions.add_parser("list", help="every token (no secrets)")
    revoke = actions.add_parser("revoke", help="end a token")
    revoke.add_argument("id", type=int)
    for action in actions.choices.values():
        add_database_arguments(action)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from table_service.store import NotFound

    with open_store(args) as store:
        if args.action == "create":
            row, secret = store.create_token(args.role, args.label)
            print(secret)
            print(
                f"token {row.id} ({row.role}) created; the secret is shown only now",
                file=sys.stderr,
            )
        elif args.action == "list":
            for row in store.tokens():
                print(json.dumps(row.model_dump(mode="json"), ensure_ascii=False))
        else:
            try:
                store.revoke_token(args.id)
            except NotFound:
                print(f"token: no token {args.id}", file=sys.stderr)
                return 2
    return 0
