"""The service's settings: command line over environment (MJTABLE_SERVE_*) over TOML [serve]."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from firmware_bridge.settings import BrokerSettings, load_toml_settings
from table_service.service.guards import AUTH_FREE, AUTH_RATE, MAX_BODY, WS_PER_CLIENT, WS_TOTAL


class ServeSettings(BrokerSettings):
    """Everything `mjtable serve` needs; each field is also a --flag and a TOML key."""

    model_config = SettingsConfigDict(env_prefix="MJTABLE_SERVE_", extra="forbid")

    db: str | None = Field(
        None, description="database URL (postgresql://…); default SQLite in --data-dir"
    )
    data_dir: Path = Field(Path("mjtable-data"), description="where the SQLite database lives")
    host: str = Field("127.0.0.1", description="address the API binds (0.0.0.0: every one)")
    port: int = Field(8000, ge=0, le=65535, description="API port")
    public_url: str | None = Field(
        None,
        description="the address players' phones reach the pages at (http://host:port), "
        "which the seat codes' QR carry; default: the address the table's page was opened at",
    )
    base_topic: str = Field("mjtable", description="topics are <base>/<table>/...")
    client_id: str = Field("mjtable-service", description="MQTT client id prefix")
    gap_timeout: float = Field(
        30.0, gt=0, description="seconds a hole in a table's events may wait for a replay"
    )
    snapshot_every: int = Field(
        500, ge=1, description="log entries between a table's snapshots (fast restarts)"
    )
    drive_table: bool = Field(
        True, description="send SEAT_LED (whose move, who may claim) and ALERT to the tables"
    )
    max_tables: int = Field(
        64,
        ge=1,
        description="tables followed without an admin: one more heard on the broker waits "
        "(costing nothing) until a session is started there",
    )
    handover_wait: float = Field(
        300.0,
        gt=0,
        description="seconds a table that belongs to another service process (one joined) "
        "waits for its hand's end before it is handed on mid-hand, from the records",
    )
    retired_after: float = Field(
        7 * 86400.0,
        gt=0,
        description="seconds between a table's last log entry and the newest of any table "
        "after which it is left out of the even share of tables between service processes "
        "(it goes by its hash alone, as a new one does)",
    )
    leave_wait: float = Field(
        10.0,
        ge=0,
        description="seconds a clean stop waits for the hands' ends while handing its tables "
        "to the other service processes (none running: it stops at once)",
    )
    gc_sweep_every: float = Field(
        6 * 3600.0,
        gt=0,
        description="seconds between sweeps of the objects kept out of full collections "
        "(the survivors of one live on, so the collector skips them; a sweep collects "
        "everything once, finding any garbage cycle among them, in one longer pause)",
    )
    store_gather: float = Field(
        0.1,
        ge=0,
        le=1,
        description="seconds after a transaction began that the next one waits for more "
        "entries: fewer, larger transactions (each costs about the same whatever it holds). "
        "Nobody waits for it: the pictures (while few watch) and the seat LEDs go out before "
        "the commit, and a hand's records or a violation, which wait for theirs, start the "
        "next transaction at once, as everything does while a crowd watches",
    )
    cpu_slice_us: int = Field(
        300,
        ge=0,
        le=100_000,
        description="µs of CPU the kernel gives the event loop's thread at a time before "
        "another task may take its core (Linux 6.12 and later; 0 leaves the kernel's own, "
        "1.4 ms on 2 cores): a thread that asks less than the running task's takes the core "
        "as soon as it wakes, not when that task's slice ends",
    )
    event_loop: Literal["uvloop", "asyncio"] = Field(
        "uvloop",
        description="the event loop the service runs on: uvloop (libuv's, in C: about a "
        "tenth less CPU an event) or Python's own asyncio loop (where uvloop is not "
        "installed, as on Windows, the service falls back to it)",
    )
    backlog_max: int = Field(
        20_000,
        ge=100,
        description="entries waiting to be stored before intake pauses (the bridges keep "
        "their events and replay them)",
    )
    max_body: int = Field(
        MAX_BODY, ge=1024, description="bytes a request body may have (more: 413, unread)"
    )
    auth_free: int = Field(
        AUTH_FREE, ge=1, description="unknown tokens one client address may present at once"
    )
    auth_rate: float = Field(
        AUTH_RATE, gt=0, description="failed token guesses a second a client earns back (429)"
    )
    ws_per_client: int = Field(
        WS_PER_CLIENT, ge=1, description="WebSockets one client address may hold open"
    )
    ws_total: int = Field(WS_TOTAL, ge=1, description="WebSockets open in all (more: 1013)")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO")

    @field_validator("db")
    @classmethod
    def _db_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        scheme = urlsplit(value).scheme.split("+")[0]
        if scheme not in ("sqlite", "postgresql", "postgres"):
            raise ValueError(f"db: {value!r} is not sqlite:///path or postgresql://…")
        return value

    @property
    def database_url(self) -> str:
        return self.db or f"sqlite:///{self.data_dir / 'mjtable.db'}"


def load_serve_settings(config: Path | None = None, **overrides: Any) -> ServeSettings:
    """Settings from `overrides` (the command line), then env, then the [serve] table of TOML."""
    return load_toml_settings(ServeSettings, "serve", config, overrides)
