"""Every field of a settings model as a --flag, and the settings the command line,
environment and TOML file make: one pattern for `mjtable bridge` and `mjtable serve`."""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings

EXIT_BAD_CONFIG = 2
S = TypeVar("S", bound=BaseSettings)


def add_settings_arguments(
    p: argparse.ArgumentParser, model: type[BaseSettings], header: str, metavars: dict[str, str]
) -> None:
    """--config and one flag per field (booleans as --x/--no-x), help from the descriptions."""
    p.add_argument("--config", type=Path, metavar="TOML", help=f"settings file ([{header}] table)")
    for name, field in model.model_fields.items():
        flag = "--" + name.replace("_", "-")
        help_text = field.description or name.replace("_", " ")
        if not field.is_required() and field.default is not None and field.annotation is not bool:
            help_text += f" (default: {field.default})"
        if field.annotation is bool:
            p.add_argument(
                flag, dest=name, action=argparse.BooleanOptionalAction, default=None, help=help_text
            )
        else:
            metavar = metavars.get(name, name.split("_")[-1].upper())
            p.add_argument(flag, dest=name, metavar=metavar, help=help_text)


def settings_from(
    args: argparse.Namespace,
    model: type[S],
    load: Callable[..., S],
    command: str,
    hints: dict[str, str] | None = None,
) -> S:
    """The settings the arguments, environment and file make; exits 2 naming the bad field."""
    given: dict[str, Any] = {n: getattr(args, n) for n in model.model_fields}
    try:
        return load(args.config, **given)
    except FileNotFoundError as exc:
        print(f"{command}: {exc}", file=sys.stderr)
    except tomllib.TOMLDecodeError as exc:
        print(f"{command}: {args.config}: not valid TOML: {exc}", file=sys.stderr)
    except ValidationError as exc:
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"]) or "settings"
            hint = (hints or {}).get(where, "")
            print(f"{command}: {where}: {error['msg']}{hint}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_CONFIG)
