"""The bridge's settings: command line over environment (MJTABLE_BRIDGE_*) over TOML file."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any, Literal, TypeVar, cast
from urllib.parse import unquote, urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from firmware_bridge.messages import TABLE_PATTERN


class BrokerSettings(BaseSettings):
    """The broker every mjtable process talks to: its URL and credentials, checked once."""

    mqtt: str = Field("mqtt://127.0.0.1:1883", description="broker URL, mqtt:// or mqtts://")
    mqtt_username: str | None = Field(None, description="broker user (or user@ in the URL)")
    mqtt_password: SecretStr | None = Field(None, description="broker password")
    mqtt_tls: bool = Field(False, description="use TLS (implied by mqtts://)")
    mqtt_ca_file: Path | None = Field(None, description="CA bundle to verify the broker")
    mqtt_cert_file: Path | None = Field(None, description="client certificate (mutual TLS)")
    mqtt_key_file: Path | None = Field(None, description="client private key (mutual TLS)")
    mqtt_tls_insecure: bool = Field(False, description="skip broker hostname verification")

    @field_validator("mqtt")
    @classmethod
    def _mqtt_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise ValueError(f"mqtt: {value!r} is not mqtt://host[:port] or mqtts://host[:port]")
        return value

    def _tls_asked(self) -> bool:
        return self.mqtt_tls

    @property
    def broker(self) -> tuple[str, int, bool]:
        """(host, port, tls) from the URL; TLS by mqtts:// (or the bridge's mqtt_tls)."""
        parts = urlsplit(self.mqtt)
        tls = parts.scheme == "mqtts" or self._tls_asked()
        return parts.hostname or "", parts.port or (8883 if tls else 1883), tls

    @property
    def credentials(self) -> tuple[str | None, str | None]:
        """(user, password): the settings' own, else the URL's, percent-decoded."""
        parts = urlsplit(self.mqtt)
        url_user = unquote(parts.username) if parts.username is not None else None
        url_secret = unquote(parts.password) if parts.password is not None else None
        user = self.mqtt_username or url_user
        secret = self.mqtt_password.get_secret_value() if self.mqtt_password else url_secret
        return user, secret

    @field_validator("mqtt_ca_file", "mqtt_cert_file", "mqtt_key_file")
    @classmethod
    def _readable_file(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_file():
            raise ValueError(f"no such file {value}")
        return value

    @field_validator("mqtt_ca_file")
    @classmethod
    def _ca_bundle(cls, value: Path | None) -> Path | None:
        if value is not None:
            try:
                ssl.create_default_context(cafile=str(value))
            except (ssl.SSLError, ValueError) as exc:
                raise ValueError(f"{value} is not a PEM CA bundle ({exc})") from None
        return value

    def tls_options(self) -> dict[str, Any]:
        """aiomqtt.Client's TLS keyword arguments (none for plain MQTT): the broker is
        verified against `mqtt_ca_file` (or the system's CAs), a client certificate sent
        when one is given."""
        if not self.broker[2]:
            return {}
        import aiomqtt

        return {
            "tls_params": aiomqtt.TLSParameters(
                ca_certs=str(self.mqtt_ca_file) if self.mqtt_ca_file else None,
                certfile=str(self.mqtt_cert_file) if self.mqtt_cert_file else None,
                keyfile=str(self.mqtt_key_file) if self.mqtt_key_file else None,
                cert_reqs=ssl.CERT_REQUIRED,
            ),
            "tls_insecure": self.mqtt_tls_insecure,
        }

    @property
    def mqtt_shown(self) -> str:
        """The broker URL for logs: any password replaced by `***`."""
        return redact_url(self.mqtt)


def redact_url(url: str) -> str:
    """`url` with the password of its user-info replaced by `***` (for logs and status)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user_info, _, host = parts.netloc.rpartition("@")
    user = user_info.split(":", 1)[0]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()


class BridgeSettings(BrokerSettings):
    """Everything `mjtable bridge` needs; each field is also a --flag and a TOML key."""

    model_config = SettingsConfigDict(env_prefix="MJTABLE_BRIDGE_", extra="forbid")

    port: str = Field(description="serial device path or pyserial URL (socket://host:port)")
    table: str = Field(pattern=TABLE_PATTERN, description="table id in topics")
    baudrate: int = Field(115200, gt=0, description="serial speed")
    controller_id: int | None = Field(
        None,
        ge=0,
        le=0xFFFF,
        description="accept only a controller whose HELLO has this table_id (protocol §5.1)",
    )
    mqtt_client_id: str | None = Field(None, description="default mjtable-bridge-<table>")
    base_topic: str = Field("mjtable", description="topics are <base>/<table>/...")
    outbox: Path | None = Field(None, description="SQLite outbox, default ./bridge-<table>.db")
    outbox_sync: Literal["full", "normal"] = Field(
        "full", description="full: survives power loss; normal: survives a crash, faster"
    )
    history: int = Field(
        100_000, ge=0, description="published events kept for consumers' replay requests"
    )
    replay_rate: float = Field(
        2.0, gt=0, description="replay requests served a second, on average (more: refused)"
    )
    replay_burst: int = Field(5, ge=1, description="replay requests served in one burst")
    metrics_port: int | None = Field(None, description="serve Prometheus text on this port")
    metrics_host: str = Field("127.0.0.1", description="address for the metrics port")
    status_interval: float = Field(5.0, gt=0, description="seconds between counter updates")
    reopen_min: float = Field(0.2, gt=0, description="first serial reopen delay, seconds")
    reopen_max: float = Field(5.0, gt=0, description="longest serial reopen delay, seconds")
    mqtt_reconnect_min: float = Field(0.5, gt=0, description="first broker retry, seconds")
    mqtt_reconnect_max: float = Field(10.0, gt=0, description="longest broker retry, seconds")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO")

    @property
    def outbox_path(self) -> Path:
        return self.outbox or Path(f"bridge-{self.table}.db")


S = TypeVar("S", bound=BaseSettings)


def load_toml_settings(
    cls: type[S], header: str, config: Path | None, overrides: dict[str, Any]
) -> S:
    """`cls` from `overrides` (the command line), then env, then the [header] table of TOML.

    One precedence for every mjtable command (`bridge`, `serve`, …).
    """
    if config is not None and not config.is_file():
        raise FileNotFoundError(f"config: no such file {config}")

    class FromFile(cls):  # type: ignore[valid-type,misc]
        @classmethod
        def settings_customise_sources(
            cls,
            settings_cls: type[BaseSettings],
            init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource,
            dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            if config is None:
                return (init_settings, env_settings)
            toml = TomlConfigSettingsSource(settings_cls, config, toml_table_header=(header,))
            return (init_settings, env_settings, toml)

    given = {k: v for k, v in overrides.items() if v is not None}
    return cast(S, FromFile(**given))


def load_settings(config: Path | None = None, **overrides: Any) -> BridgeSettings:
    """Settings from `overrides` (the command line), then env, then the [bridge] table of TOML."""
    return load_toml_settings(BridgeSettings, "bridge", config, overrides)
