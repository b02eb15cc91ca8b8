"""A session at a table: who plays, the stakes, the rule profile, where the 將 stands.

The same body starts a session through the API and as a `{"session": …}` line of a
replay (replay-format.md). Every key has a default, so a table that just starts
playing is a session of "0".."3" at the default stakes.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from table_service.rules import Profile, ProfileError
from table_service.rules.profile import preset_names, profile_from_mapping
from table_service.rules.table import Deal
from table_service.rules.tiles import WIND_CODES, Wind

WINDS: Final = WIND_CODES  # a deal's round wind, by its number 0-3

NEW_TABLE: Final = Deal(0)  # where a table that has never played stands

# Named presets (taiwan16.md §7), shipped with the rules engine; the default first.
PRESETS: Final[tuple[str, ...]] = preset_names()


class SessionStart(BaseModel):
    """The body that starts a session (replay-format.md); unknown keys are refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    table: str | None = None
    players: tuple[str, str, str, str] = ("0", "1", "2", "3")
    # each seat's player of the club's list, by id (null: a guest, by name alone); the
    # mirror plays by the names, the records count each player's figures by these
    player_ids: tuple[int | None, int | None, int | None, int | None] | None = None
    profile: str | dict[str, Any] = "mjonline"
    base: int = Field(100, ge=0)
    per_tai: int = Field(20, ge=0)
    # Where the 將 stands. null (the API's default): the table's own when the session
    # begins, so a session asked for during a hand takes the deal that hand leads to.
    start_seat: int | None = Field(
        0, ge=0, le=3, description="起莊位: where the round-wind marker sits"
    )
    dealer: int | None = Field(0, ge=0, le=3)
    streak: int | None = Field(0, ge=0, description="連莊 N")
    round_wind: Wind | None = "E"

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        if isinstance(value, str) and value not in PRESETS:
            raise ValueError(f"unknown profile {value!r} (known: {', '.join(PRESETS)})")
        if isinstance(value, dict):
            try:
                _profile_of(value, 100, 20)
            except ProfileError as exc:
                raise ValueError(str(exc)) from None
        return value

    def rule_profile(self) -> Profile:
        """The profile with this session's stakes (a session's base and per_tai win)."""
        return _profile_of(self.profile, self.base, self.per_tai)

    def recorded(self) -> SessionStart:
        """This start with its profile written out whole (every §7 key, beside the preset
        it came from): what the records keep, so a hand is re-scored years later exactly
        as it was played even if the shipped presets change meanwhile."""
        profile = self.rule_profile()
        values = {k: v for k, v in profile.to_mapping().items() if k not in ("base", "per_tai")}
        return self.model_copy(update={"profile": {"preset": self.preset(), **values}})

    def preset(self) -> str:
        """The preset the profile starts from."""
        return preset_of(self.profile)

    def deal(self, table: Deal = NEW_TABLE) -> Deal:
        """Where the 將 stands: what this start names, the rest as `table` stands."""
        return Deal(
            table.dealer if self.dealer is None else self.dealer,
            table.streak if self.streak is None else self.streak,
            table.round_wind if self.round_wind is None else WINDS.index(self.round_wind),
            table.first_dealer if self.start_seat is None else self.start_seat,
        )


def _profile_of(spec: str | dict[str, Any], base: int, per_tai: int) -> Profile:
    values: dict[str, Any] = {"preset": spec} if isinstance(spec, str) else dict(spec)
    preset = values.get("preset", PRESETS[0])
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ProfileError(f"preset: unknown preset {preset!r}")
    for key in ("base", "per_tai"):
        if key in values:
            raise ProfileError(f"{key}: set the stakes beside the profile, not inside it")
    values.update(base=base, per_tai=per_tai)
    profile = profile_from_mapping(values, preset)
    if not isinstance(spec, str) and profile != profile_from_mapping(
        {"preset": preset, "base": base, "per_tai": per_tai}
    ):
        profile = profile_from_mapping(values, f"{preset} (changed)")
    return profile


def preset_of(spec: str | dict[str, Any]) -> str:
    """The preset a session's profile (a preset's name, or overrides of one) starts from."""
    if isinstance(spec, str):
        return spec
    return str(spec.get("preset", PRESETS[0]))
