"""The systemd units of deploy/: systemd itself finds nothing wrong in them, and each
ExecStart is a command mjtable's own parser takes, whose --config names a shipped file."""

from __future__ import annotations

import configparser
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.settings import BridgeSettings, load_settings
from mjtable.cli import build_parser
from mjtable.settings_cli import settings_from
from table_service.service.settings import ServeSettings, load_serve_settings

from .conftest import DEPLOY, env_file, installed_bridge_config

INSTALLED = "/opt/mjtable/.venv/bin/mjtable"  # where the guide installs mjtable
UNITS = ["mjtable-bridge@.service", "mjtable-serve.service", "mjtable-backup.service"]


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys keep their case
    parser.read_string((DEPLOY / name).read_text())
    return parser


def exec_start(name: str, instance: str = "t01") -> list[str]:
    """ExecStart's argv after the program, with the instance for %i."""
    argv = shlex.split(unit(name)["Service"]["ExecStart"].replace("%i", instance))
    assert argv[0] == INSTALLED
    return argv[1:]


def in_deploy(path: Path) -> Path:
    """/etc/mjtable/X of the units is deploy/X of the repository."""
    assert path.parent == Path("/etc/mjtable"), path
    return DEPLOY / path.name


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_systemd_verifies_the_units(tmp_path: Path) -> None:
    """`systemd-analyze verify` on the units as installed (the bridge as instance t01),
    with this checkout's mjtable in place of /opt/mjtable's."""
    mjtable = str(Path(sys.executable).with_name("mjtable"))
    assert Path(mjtable).exists()
    names = [*UNITS, "mjtable-backup.timer"]
    for name in names:
        text = (DEPLOY / name).read_text().replace(INSTALLED, mjtable)
        (tmp_path / name.replace("@.", "@t01.")).write_text(text)
    files = [str(tmp_path / n.replace("@.", "@t01.")) for n in names]
    done = subprocess.run(
        ["systemd-analyze", "verify", *files], capture_output=True, text=True, cwd=tmp_path
    )
    ours = [line for line in done.stderr.splitlines() if "mjtable" in line]
    assert done.returncode == 0 and ours == [], done.stderr


def test_the_bridge_unit_runs_the_tables_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    args = build_parser().parse_args(exec_start("mjtable-bridge@.service"))
    assert args.command == "bridge" and args.config == Path("/etc/mjtable/bridge-t01.toml")
    service = unit("mjtable-bridge@.service")["Service"]
    env = Path(service["EnvironmentFile"].lstrip("-").replace("%i", "t01"))
    for key, value in env_file(in_deploy(env)).items():
        monkeypatch.setenv(key, value)
    assert in_deploy(args.config).is_file()
    args.config = installed_bridge_config(tmp_path)
    settings = settings_from(args, BridgeSettings, load_settings, "bridge")
    assert settings.table == "t01" and settings.credentials[1] == "change-me-t01"
    assert "dialout" in service["SupplementaryGroups"].split()  # the serial device's group
    assert service["KillSignal"] == "SIGTERM"  # the bridge then publishes `offline`
    assert settings.outbox_path.parent == Path("/var/lib", service["StateDirectory"])


def test_the_service_unit_runs_the_service_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    args = build_parser().parse_args(exec_start("mjtable-serve.service"))
    assert args.command == "serve" and args.config == Path("/etc/mjtable/serve.toml")
    service = unit("mjtable-serve.service")["Service"]
    env = Path(service["EnvironmentFile"].lstrip("-"))
    for key, value in env_file(in_deploy(env)).items():
        monkeypatch.setenv(key, value)
    args.config = in_deploy(args.config)
    settings = settings_from(args, ServeSettings, load_serve_settings, "serve")
    assert settings.credentials == ("service", "change-me-service")
    assert settings.data_dir == Path("/var/lib", service["StateDirectory"])
    after = unit("mjtable-serve.service")["Unit"]["After"].split()
    assert {"mosquitto.service", "postgresql.service"} <= set(after)


def test_the_backup_unit_backs_up_the_services_database() -> None:
    args = build_parser().parse_args(exec_start("mjtable-backup.service"))
    assert (args.command, args.action) == ("db", "backup")
    assert args.config == Path("/etc/mjtable/serve.toml") and in_deploy(args.config).is_file()
    assert args.dest == Path("/var/backups/mjtable")
    timer = unit("mjtable-backup.timer")
    assert timer["Timer"]["OnCalendar"] and timer["Timer"]["Persistent"] == "true"


@pytest.mark.parametrize(
    ("name", "least"), [("mjtable-serve.service", 65536), ("mjtable-bridge@.service", 4096)]
)
def test_each_long_running_unit_raises_its_descriptor_limit(name: str, least: int) -> None:
    """The service holds a descriptor per WebSocket client: at systemd's default soft
    limit (1024) it stopped storing at about a thousand of them."""
    limit = unit(name)["Service"]["LimitNOFILE"]
    soft, _, hard = limit.partition(":")
    assert int(soft) >= least and (not hard or int(hard) >= int(soft))


def test_the_service_unit_does_not_restart_on_a_database_it_refuses() -> None:
    """A damaged database stays damaged: restarting every 2 s would only repeat the line."""
    from mjtable.commands.serve import EXIT_UNUSABLE_DATABASE

    service = unit("mjtable-serve.service")["Service"]
    assert service["Restart"] == "always"
    assert str(EXIT_UNUSABLE_DATABASE) in service["RestartPreventExitStatus"].split()
