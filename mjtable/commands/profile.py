"""`mjtable profile show|diff`: a rule profile resolved, or two compared (taiwan16.md §7).

Also the `--profile NAME|FILE` option that `score`, `settle`, `replay` and `sim`
share: a preset's name (`mjonline`, `seed001`) or a profile file's path.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from table_service.rules.profile import (
    DEFAULT_PRESET,
    Profile,
    ProfileError,
    Resolved,
    format_toml,
    literal,
    preset_names,
    resolve_preset,
    resolve_toml,
)

EXIT_BAD_PROFILE = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "profile",
        help="show a rule profile resolved, or the keys where two differ",
        description=(
            "Rule profiles (docs/rules/taiwan16.md §7). A profile is a preset's name "
            f"({', '.join(preset_names())}) or a TOML file's path. Exit 2 with one line on "
            "stderr naming the key for a bad profile or an unknown preset."
        ),
    )
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    show = actions.add_parser(
        "show",
        help="every key and its value, each marked with where it came from",
        description=(
            "Print the resolved profile as a profile file: every key and its value, each "
            "marked `# preset NAME` or `# file` by where its value came from."
        ),
    )
    show.add_argument("profile", nargs="?", default=DEFAULT_PRESET, metavar="NAME|FILE")
    show.set_defaults(func=run_show)
    diff = actions.add_parser(
        "diff",
        help="the keys where two profiles differ",
        description=(
            "Print one line per key where profiles A and B differ: the key, A's value, B's "
            "value. Exit 0 when they are the same (nothing printed), 1 when they differ."
        ),
    )
    diff.add_argument("a", metavar="A", help="a preset's name or a profile file")
    diff.add_argument("b", metavar="B", help="a preset's name or a profile file")
    diff.set_defaults(func=run_diff)


def add_profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        metavar="NAME|FILE",
        help=(
            f"rule profile: a preset ({', '.join(preset_names())}) or a TOML file "
            f"(taiwan16.md §7); default: {DEFAULT_PRESET}"
        ),
    )


def resolve_spec(spec: str) -> Resolved:
    """A preset by name, else a file by path; raises ProfileError or OSError."""
    if spec in preset_names():
        return resolve_preset(spec)
    path = Path(spec)
    if not path.exists() and path.suffix != ".toml" and len(path.parts) == 1:
        known = ", ".join(preset_names())
        raise ProfileError(f"unknown preset {spec!r} (known: {known}; or a .toml file's path)")
    return resolve_toml(path.read_text(encoding="utf-8"), label=path.stem)


def load_resolved(spec: str) -> Resolved:
    """`resolve_spec`, or one line on stderr and exit 2."""
    try:
        return resolve_spec(spec)
    except OSError as exc:
        print(f"profile: cannot read {spec}: {exc.strerror}", file=sys.stderr)
    except ProfileError as exc:
        print(f"profile {spec}: {exc}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_PROFILE)


def load_profile(spec: str | None) -> Profile:
    """The `--profile` option's profile (the default when absent); exit 2 on a bad one."""
    return load_resolved(spec or DEFAULT_PRESET).profile


def run_show(args: argparse.Namespace) -> int:
    profile, origins = load_resolved(args.profile)
    print(f"# profile {profile.label}: {args.profile}")
    print(format_toml(profile.flat(), origins), end="")
    return 0


def run_diff(args: argparse.Namespace) -> int:
    a = load_resolved(args.a).profile.flat()
    b = load_resolved(args.b).profile.flat()
    rows = [(key, literal(a[key]), literal(b[key])) for key in a if a[key] != b[key]]
    if not rows:
        return 0
    rows.insert(0, ("key", args.a, args.b))
    width = max(len(key) for key, _, _ in rows)
    left = max(len(value) for _, value, _ in rows)
    for key, va, vb in rows:
        print(f"{key:<{width}}  {va:<{left}}  {vb}".rstrip())
    return 1
