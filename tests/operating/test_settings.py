"""The example settings files of deploy/ load through the real loaders, with the values
docs/operating.md says, and the guide shows every file it ships."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from firmware_bridge.settings import BridgeSettings, load_settings
from table_service.service.settings import ServeSettings, load_serve_settings

from .conftest import DEPLOY, DOCS, env_file, installed_bridge_config


@pytest.fixture(autouse=True)
def no_stray_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the example files count: the machine's MJTABLE_* must not leak in."""
    import os

    for key in list(os.environ):
        if key.startswith(("MJTABLE_BRIDGE_", "MJTABLE_SERVE_")):
            monkeypatch.delenv(key)


def with_env(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    for key, value in env_file(DEPLOY / name).items():
        monkeypatch.setenv(key, value)


def test_the_bridge_example(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with_env(monkeypatch, "bridge-t01.env")
    s = load_settings(installed_bridge_config(tmp_path))
    assert s.table == "t01"
    assert s.port == "/dev/serial/by-id/usb-mjtable_controller_T01-if00-port0"
    assert s.broker == ("club-server", 8883, True)  # mqtts://: TLS, port 8883
    assert s.credentials == ("bridge-t01", "change-me-t01")  # the password from the .env
    assert s.mqtt_ca_file == tmp_path / "ca.crt"  # /etc/mjtable/ca.crt, installed
    assert s.outbox_path == Path("/var/lib/mjtable/bridge-t01.db")
    assert (s.outbox_sync, s.history, s.metrics_port, s.metrics_host) == (
        "full", 100_000, 9108, "127.0.0.1"
    )  # fmt: skip
    assert s.base_topic == "mjtable" and s.mqtt_cert_file is None and not s.mqtt_tls_insecure


def test_the_bridge_example_without_its_env_has_no_password(tmp_path: Path) -> None:
    """The password lives in the .env (root only), never in the world-readable TOML."""
    config = installed_bridge_config(tmp_path)
    assert load_settings(config).credentials == ("bridge-t01", None)
    assert "password" not in (DEPLOY / "bridge-t01.toml").read_text().split("[bridge]")[1]


def test_the_command_line_wins_over_the_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_env(monkeypatch, "bridge-t01.env")
    monkeypatch.setenv("MJTABLE_BRIDGE_LOG_LEVEL", "DEBUG")
    s = load_settings(installed_bridge_config(tmp_path), metrics_port=9200)
    assert (s.metrics_port, s.log_level) == (9200, "DEBUG")


def test_the_service_example(monkeypatch: pytest.MonkeyPatch) -> None:
    with_env(monkeypatch, "serve.env")
    s = load_serve_settings(DEPLOY / "serve.toml")
    assert s.broker == ("127.0.0.1", 1883, False)  # the broker's loopback listener
    assert s.credentials == ("service", "change-me-service")
    assert s.database_url == "postgresql://mjtable@127.0.0.1:5432/mjtable"
    assert (s.host, s.port, s.data_dir) == ("0.0.0.0", 8000, Path("/var/lib/mjtable"))
    assert (s.snapshot_every, s.gap_timeout, s.drive_table) == (500, 30.0, True)
    assert env_file(DEPLOY / "serve.env")["PGPASSWORD"]  # libpq's, for psycopg and pg_dump


def test_the_service_on_sqlite_when_db_is_left_out(tmp_path: Path) -> None:
    text = (DEPLOY / "serve.toml").read_text()
    config = tmp_path / "serve.toml"
    config.write_text(re.sub(r"(?m)^db = .*$", "", text))
    s = load_serve_settings(config)
    assert s.database_url == "sqlite:////var/lib/mjtable/mjtable.db"  # an absolute path


def test_every_settings_key_of_the_examples_is_explained_in_the_guide() -> None:
    guide = DOCS.read_text()
    for name, model in (("bridge-t01.toml", BridgeSettings), ("serve.toml", ServeSettings)):
        table = tomllib.loads((DEPLOY / name).read_text())
        keys = next(iter(table.values()))
        assert set(keys) <= set(model.model_fields)
        missing = [k for k in keys if f"`{k}`" not in guide]
        assert missing == [], f"{name}: docs/operating.md does not explain {missing}"


def test_the_guide_links_every_deploy_file() -> None:
    guide = DOCS.read_text()
    links = set(re.findall(r"\]\(\.\./deploy/([^)]+)\)", guide))
    shipped = {p.name for p in DEPLOY.iterdir() if p.is_file()}
    assert shipped <= links, f"not linked from the guide: {sorted(shipped - links)}"
    assert links <= shipped, f"linked but missing: {sorted(links - shipped)}"
