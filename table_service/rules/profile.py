"""Rule profiles (taiwan16.md §7): the values a club may choose, read from TOML text."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Literal

SeatOrder = Literal["opening", "dealer"]


class ProfileError(ValueError):
    """An unknown key or a value outside its range; the message names the key."""


@dataclass(frozen=True, slots=True)
class Profile:
    """Defaults are the mjonline club's rules (seed 002)."""

    five_concealed_pongs: int = 13  # 五暗坎: 13 (seed 002) or 12 (seed 001)
    earthly_ready: int = 4  # 地聽: 4 (seed 002) or 6 (seed 001)
    lik_gu: bool = False  # 嚦咕嚦咕 (八對半) counts as a win
    seat_order: SeatOrder = "opening"  # seat positions from the 開門位, or dealer = 東
    base: int = 100  # 底
    per_tai: int = 20  # 台錢

    def tai_override(self, item: str) -> int | None:
        """The profile's value for a 台 item whose value is a club's choice."""
        if item == "five_concealed_pongs":
            return self.five_concealed_pongs
        if item == "earthly_ready":
            return self.earthly_ready
        return None


DEFAULT_PROFILE = Profile()

_CHOICES: dict[str, tuple[object, ...]] = {
    "five_concealed_pongs": (12, 13),
    "earthly_ready": (4, 6),
    "lik_gu": (True, False),
    "seat_order": ("opening", "dealer"),
}


def profile_from_mapping(data: Mapping[str, object]) -> Profile:
    """Validate a profile's keys and values against §7."""
    known = {f.name for f in fields(Profile)}
    for key, value in data.items():
        if key not in known:
            raise ProfileError(f"{key}: unknown profile key (known: {', '.join(sorted(known))})")
        choices = _CHOICES.get(key)
        if choices is not None:
            if type(value) is not type(choices[0]) or value not in choices:
                shown = ", ".join(repr(c) for c in choices)
                raise ProfileError(f"{key}: expected one of {shown}, got {value!r}")
        elif type(value) is not int or value < 0:
            raise ProfileError(f"{key}: expected a whole number ≥ 0, got {value!r}")
    return Profile(**data)  # type: ignore[arg-type]


def profile_from_toml(text: str) -> Profile:
    """Parse a profile file's text (the caller reads the file)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"profile: not valid TOML: {exc}") from None
    return profile_from_mapping(data)
