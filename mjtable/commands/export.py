"""`mjtable export --session ID --format csv|json`: a session's hands and ledger."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "export",
        help="a session's hands, ledger and standings as CSV or JSON",
        description=(
            "Print a session's records from the service's database (exit 2 if the session "
            "or the database is unknown; a missing database is never created). The CSV is "
            "UTF-8 with a BOM, a row per hand and per correction, seats named by players."
        ),
    )
    p.add_argument("--session", type=int, required=True, metavar="ID")
    p.add_argument("--format", choices=("csv", "json"), default="json")
    p.add_argument("--output", "-o", type=Path, help="write to this file (default stdout)")
    add_database_arguments(p)
    p.set_defaults(func=run)


def add_database_arguments(p: argparse.ArgumentParser) -> None:
    """The options that name the records as `mjtable serve` finds them (token, export, db)."""
    p.add_argument(
        "--config", type=Path, metavar="TOML", help="the service's settings ([serve] table)"
    )
    p.add_argument("--db", metavar="URL", help="database URL (default SQLite in --data-dir)")
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="the service's data directory (default mjtable-data)",
    )


def database_url(args: argparse.Namespace) -> str:
    """The URL `mjtable serve --config … --db … --data-dir …` (and its env) would use."""
    from mjtable.settings_cli import settings_from
    from table_service.service.settings import ServeSettings, load_serve_settings

    given = argparse.Namespace(**{name: None for name in ServeSettings.model_fields})
    given.config, given.db, given.data_dir = args.config, args.db, args.data_dir
    settings = settings_from(given, ServeSettings, load_serve_settings, args.command)
    return settings.database_url


@contextlib.contextmanager
def open_store(args: argparse.Namespace) -> Iterator[Any]:
    """The service's store, as `mjtable serve` with these options (and its env) would open it."""
    from table_service.store import Store

    store = Store(database_url(args))
    try:
        store.migrate()
        yield store
    finally:
        store.close()


def missing_database(url: str) -> Path | None:
    """The SQLite file `url` names when it does not exist (None: it does, or not SQLite):
    a reader must not create an empty database where the service keeps none."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(str(parsed.database))
    return None if path.exists() else path.absolute()


def run(args: argparse.Namespace) -> int:
    missing = missing_database(database_url(args))
    if missing is not None:
        print(
            f"export: no database at {missing} (looked there for the service's records; "
            "name them with --db URL, --data-dir DIR or --config TOML)",
            file=sys.stderr,
        )
        return 2
    with open_store(args) as store:
        if store.session(args.session) is None:
            print(f"export: no session {args.session}", file=sys.stderr)
            return 2
        if args.format == "csv":
            text = store.export_csv(args.session)
        else:
            text = json.dumps(store.export_session(args.session), ensure_ascii=False, indent=1)
    if args.output:
        args.output.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0
