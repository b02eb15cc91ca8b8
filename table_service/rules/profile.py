"""Rule profiles (taiwan16.md §7): every value and switch a club may choose.

A profile is the stakes, the seat order, a `[tai]` table (the value of one unit
of each §4 item, by id) and a `[rules]` table of switches. The rows of the 台
table read it (`rows_for`); nothing here forks the scoring code. A profile
file may start from a preset shipped in `table_service/rules/profiles/` and
override it; `resolve` also reports where each resolved value came from.

The resolved form (`to_mapping`, `to_toml`) names every key once, in a stable
order, without shorthands or `preset`; `profile_from_mapping` reads it back to an
equal Profile.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Final, Literal, NamedTuple, cast, get_args

from table_service.rules.items import DEFAULT_TAI, ITEMS, LIFTED, SWITCHED_ROWS, Item, negative_item
from table_service.rules.settlement import Stakes
from table_service.rules.switches import PING_HU_WAITS, RULE_KEYS, PingHuWait, Rules

__all__ = ["PING_HU_WAITS", "RULE_KEYS", "PingHuWait", "Rules"]  # (their home: switches.py)

SeatOrder = Literal["opening", "dealer"]
SEAT_ORDERS: Final = get_args(SeatOrder)
DEFAULT_PRESET: Final = "mjonline"
MAX_TAI: Final = 100  # a [tai] value is 0–100 (the overlap item: −100–0)


class ProfileError(ValueError):
    """An unknown key or preset, or a value of the wrong type or range; names the key."""


TAI_IDS: Final = tuple(DEFAULT_TAI)
# The keys kept from the first profile format, each standing for one key of a table.
SHORTHANDS: Final = {
    "five_concealed_pongs": "tai.five_concealed_pongs",
    "earthly_ready": "tai.earthly_ready",
    "lik_gu": "rules.lik_gu",
}
# A shorthand keeps the choices it always had; the [tai] table takes any value in range.
_SHORTHAND_CHOICES: Final[dict[str, tuple[object, ...]]] = {
    "five_concealed_pongs": (12, 13),
    "earthly_ready": (4, 6),
    "lik_gu": (True, False),
}
TOP_KEYS: Final = ("base", "per_tai", "seat_order")
# Every key of the resolved form, dotted: "base", "tai.full_flush", "rules.lik_gu".
KEYS: Final = (
    *TOP_KEYS,
    *(f"tai.{i}" for i in TAI_IDS),
    *(f"rules.{k}" for k in RULE_KEYS),
)


@dataclass(frozen=True, slots=True, init=False)
class Profile:
    """One club's rules, immutable. `Profile()` is the default (the mjonline preset).

    Keyword arguments: `base`, `per_tai`, `seat_order`, `tai` (a mapping of 台 values
    over the defaults), `rules` (a Rules), `label`, and the shorthands
    `five_concealed_pongs`, `earthly_ready`, `lik_gu` (a `tai` or `rules` value wins
    over a shorthand). Raises ProfileError naming the key of a bad value.
    `label` is a short name for display; it takes no part in equality.
    """

    base: int
    per_tai: int
    seat_order: SeatOrder
    tai: tuple[tuple[str, int], ...]  # every §4 id with its value, in TAI_IDS order
    rules: Rules
    label: str = field(compare=False)
    _hash: int = field(init=False, compare=False, repr=False)
    _by_id: dict[str, int] = field(init=False, compare=False, repr=False)

    def __init__(
        self,
        *,
        base: int = 100,
        per_tai: int = 20,
        seat_order: SeatOrder = "opening",
        tai: Mapping[str, int] | Iterable[tuple[str, int]] = (),
        rules: Rules | None = None,
        label: str = DEFAULT_PRESET,
        five_concealed_pongs: int | None = None,
        earthly_ready: int | None = None,
        lik_gu: bool | None = None,
    ) -> None:
        values: dict[str, object] = {"base": base, "per_tai": per_tai, "seat_order": seat_order}
        values |= {f"tai.{i}": v for i, v in DEFAULT_TAI.items()}
        values |= {f"rules.{k}": getattr(rules or Rules(), k) for k in RULE_KEYS}
        short: dict[str, object] = {
            "five_concealed_pongs": five_concealed_pongs,
            "earthly_ready": earthly_ready,
            "lik_gu": lik_gu,
        }
        for key, value in short.items():
            if value is not None:  # rules.lik_gu is read below only when `rules` is None
                check_value(key, value)
                values[SHORTHANDS[key]] = value
        for item, value in dict(tai).items():
            values[f"tai.{item}"] = value
        for key, value in values.items():
            check_value(key, value)
        rules_value = rules or Rules(lik_gu=bool(values["rules.lik_gu"]))
        table = tuple((i, cast(int, values[f"tai.{i}"])) for i in TAI_IDS)
        set_ = object.__setattr__
        set_(self, "base", base)
        set_(self, "per_tai", per_tai)
        set_(self, "seat_order", seat_order)
        set_(self, "tai", table)
        set_(self, "rules", rules_value)
        set_(self, "label", label)
        # Scoring looks rows up by profile on every hand: hash once, not per lookup.
        set_(self, "_hash", hash((base, per_tai, seat_order, table, rules_value)))
        set_(self, "_by_id", dict(table))  # private, never handed out

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[object, ...]:
        # Rebuilt through __init__: a string's hash differs between processes.
        return (
            _restore,
            (self.base, self.per_tai, self.seat_order, self.tai, self.rules, self.label),
        )

    def tai_of(self, item: str) -> int:
        """The value of one unit of a §4 item under this profile."""
        return self._by_id[item]

    def stakes(self) -> Stakes:
        """What settlement needs: 底, 台錢, and the 作莊, 連N and 七搶一 values."""
        table = self._by_id
        return Stakes(
            self.base, self.per_tai, table["dealer"], table["streak"], table["seven_rob_one"]
        )

    def with_stakes(self, base: int, per_tai: int) -> Profile:
        """The same rules at other stakes (a session's 底 and 台錢)."""
        return Profile(
            base=base,
            per_tai=per_tai,
            seat_order=self.seat_order,
            tai=self.tai,
            rules=self.rules,
            label=self.label,
        )

    def to_mapping(self) -> dict[str, object]:
        """The resolved form: every key once, tables nested; JSON- and TOML-ready."""
        return {
            "base": self.base,
            "per_tai": self.per_tai,
            "seat_order": self.seat_order,
            "tai": dict(self.tai),
            "rules": {k: getattr(self.rules, k) for k in RULE_KEYS},
        }

    def flat(self) -> dict[str, object]:
        """The resolved form with dotted keys (KEYS order): "tai.full_flush" → 12."""
        return flatten_resolved(self.to_mapping())

    def to_toml(self) -> str:
        """The resolved form as a profile file's text."""
        return format_toml(self.flat())


def _restore(
    base: int,
    per_tai: int,
    seat_order: SeatOrder,
    tai: tuple[tuple[str, int], ...],
    rules: Rules,
    label: str,
) -> Profile:
    return Profile(
        base=base, per_tai=per_tai, seat_order=seat_order, tai=tai, rules=rules, label=label
    )


def check_value(key: str, value: object) -> None:
    """Raise ProfileError naming the (dotted) key if `value` is not allowed there."""
    if key in _SHORTHAND_CHOICES:
        choices = _SHORTHAND_CHOICES[key]
        if not any(type(value) is type(c) and value == c for c in choices):
            shown = ", ".join(literal(c) for c in choices)
            raise ProfileError(f"{key}: expected one of {shown}, got {value!r}")
    elif key in ("base", "per_tai"):
        if type(value) is not int or value < 0:
            raise ProfileError(f"{key}: expected a whole number ≥ 0, got {value!r}")
    elif key == "seat_order":
        _check_choice(key, value, SEAT_ORDERS)
    elif key == "rules.ping_hu_wait":
        _check_choice(key, value, PING_HU_WAITS)
    elif key.startswith("rules."):
        if key[6:] not in RULE_KEYS:
            raise ProfileError(f"{key}: unknown switch (known: {', '.join(RULE_KEYS)})")
        if type(value) is not bool:
            raise ProfileError(f"{key}: expected true or false, got {value!r}")
    elif key.startswith("tai."):
        item = key[4:]
        if item not in DEFAULT_TAI:
            raise ProfileError(f"{key}: unknown 台 item (known: {', '.join(TAI_IDS)})")
        low, high = (-MAX_TAI, 0) if negative_item(item) else (0, MAX_TAI)
        if type(value) is not int or not low <= value <= high:
            raise ProfileError(f"{key}: expected a whole number {low}–{high}, got {value!r}")
    else:
        known = ", ".join((*TOP_KEYS, *SHORTHANDS, "preset", "tai", "rules"))
        raise ProfileError(f"{key}: unknown profile key (known: {known})")


def _check_choice(key: str, value: object, choices: tuple[str, ...]) -> None:
    if type(value) is not str or value not in choices:
        shown = ", ".join(literal(c) for c in choices)
        raise ProfileError(f"{key}: expected one of {shown}, got {value!r}")


DEFAULT_PROFILE: Final = Profile()


# --- reading a profile: a file's mapping, its preset, where each value came from -----


class Resolved(NamedTuple):
    """A profile and, per dotted key, the layer it came from ("preset seed001", "file")."""

    profile: Profile
    origins: dict[str, str]


def preset_names() -> tuple[str, ...]:
    """The presets shipped with the package, the default first."""
    names = sorted(
        p.name.removesuffix(".toml")
        for p in resources.files("table_service.rules").joinpath("profiles").iterdir()
        if p.name.endswith(".toml")
    )
    return (DEFAULT_PRESET, *(n for n in names if n != DEFAULT_PRESET))


@cache
def _preset_text(name: str) -> str:
    if name not in preset_names():
        raise ProfileError(f"preset: unknown preset {name!r} (known: {', '.join(preset_names())})")
    path = resources.files("table_service.rules").joinpath("profiles", f"{name}.toml")
    return path.read_text(encoding="utf-8")


@cache
def load_preset(name: str) -> Profile:
    """A named preset (ProfileError naming `preset` for an unknown name)."""
    return resolve_preset(name).profile


@cache
def resolve_preset(name: str) -> Resolved:
    return _resolve(_parse(_preset_text(name), f"preset {name}"), f"preset {name}", (name,))


def profile_from_mapping(data: Mapping[str, object], label: str | None = None) -> Profile:
    """A profile from its mapping: shorthands, `preset`, `[tai]` and `[rules]` allowed."""
    return resolve(data, label).profile


def profile_from_toml(text: str, label: str | None = None) -> Profile:
    """Parse a profile file's text (the caller reads the file)."""
    return resolve(_parse(text, "profile"), label).profile


def resolve_toml(text: str, label: str | None = None) -> Resolved:
    return resolve(_parse(text, "profile"), label)


def resolve(data: Mapping[str, object], label: str | None = None, origin: str = "file") -> Resolved:
    """The profile a mapping describes, and where each of its values came from."""
    resolved = _resolve(data, origin, ())
    if label is not None:
        resolved = Resolved(_with_label(resolved.profile, label), resolved.origins)
    return resolved


def _parse(text: str, where: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{where}: not valid TOML: {exc}") from None


def _resolve(data: Mapping[str, object], origin: str, chain: tuple[str, ...]) -> Resolved:
    """A mapping over its preset (the default preset when it names none), with origins."""
    preset = data.get("preset")
    if preset is None:
        base = Resolved(DEFAULT_PROFILE, dict.fromkeys(KEYS, f"preset {DEFAULT_PRESET}"))
    elif type(preset) is not str:
        raise ProfileError(f"preset: expected a preset's name, got {preset!r}")
    elif preset in chain:
        raise ProfileError(f"preset: {preset!r} starts from itself")
    else:
        text = _preset_text(preset)  # an unknown name is this mapping's error, named `preset`
        base = _resolve(_parse(text, f"preset {preset}"), f"preset {preset}", (*chain, preset))
    own = flatten(data)
    if not own:
        label = str(preset) if preset is not None else DEFAULT_PRESET
        return Resolved(_with_label(base.profile, label), base.origins)
    values = base.profile.flat() | own
    origins = base.origins | dict.fromkeys(own, origin)
    return Resolved(_from_flat(values, chain[-1] if chain else "custom"), origins)


def flatten(data: Mapping[str, object]) -> dict[str, object]:
    """A profile mapping's own values as dotted keys, each checked; tables win over shorthands."""
    out: dict[str, object] = {}
    tables: dict[str, object] = {}
    for key, value in data.items():
        if key == "preset":
            continue
        if key in ("tai", "rules"):
            if not isinstance(value, Mapping):
                raise ProfileError(f"{key}: expected a table of {key} values, got {value!r}")
            for sub, v in value.items():
                dotted = f"{key}.{sub}"
                check_value(dotted, v)
                tables[dotted] = v
            continue
        check_value(key, value)
        out[SHORTHANDS.get(key, key)] = value
    return out | tables


def flatten_resolved(data: Mapping[str, object]) -> dict[str, object]:
    tai = cast(Mapping[str, object], data["tai"])
    rules = cast(Mapping[str, object], data["rules"])
    out = {k: data[k] for k in TOP_KEYS}
    out |= {f"tai.{i}": tai[i] for i in TAI_IDS}
    out |= {f"rules.{k}": rules[k] for k in RULE_KEYS}
    return out


def _from_flat(values: Mapping[str, object], label: str) -> Profile:
    rules = Rules(**{k: values[f"rules.{k}"] for k in RULE_KEYS})  # type: ignore[arg-type]
    return Profile(
        base=cast(int, values["base"]),
        per_tai=cast(int, values["per_tai"]),
        seat_order=cast(SeatOrder, values["seat_order"]),
        tai={i: cast(int, values[f"tai.{i}"]) for i in TAI_IDS},
        rules=rules,
        label=label,
    )


def _with_label(profile: Profile, label: str) -> Profile:
    return dataclasses.replace(profile, label=label)


def literal(value: object) -> str:
    """A value as TOML writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def format_toml(flat: Mapping[str, object], notes: Mapping[str, str] | None = None) -> str:
    """Dotted values as a profile file (top keys, then [tai], then [rules]); notes as comments."""
    lines: list[str] = []
    section = ""
    for key, value in flat.items():
        table, _, name = key.rpartition(".")
        if table != section:
            lines += ["", f"[{table}]"]
            section = table
        line = f"{name} = {literal(value)}"
        if notes and key in notes:
            line = f"{line:<40}# {notes[key]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


@cache
def rows_for(profile: Profile) -> tuple[Item, ...]:
    """The table as a profile has it: its values, its switches' exclusions; one per profile.

    A row valued 0, or switched off, is no row at all: it neither scores nor excludes.
    """
    rules = profile.rules
    rows = []
    for row in ITEMS:
        tai = profile.tai_of(row.id)
        if tai == 0 or (row.id in SWITCHED_ROWS and not getattr(rules, row.id)):
            continue
        excludes = row.excludes
        for switch, lifting, row_id, lifted in LIFTED:
            if row_id == row.id and getattr(rules, switch) == lifting:
                excludes = excludes - lifted
        rows.append(row._replace(tai=tai, excludes=excludes))
    return tuple(rows)
