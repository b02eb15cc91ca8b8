"""Fixtures of the operator's guide tests: the files in deploy/, and a private Mosquitto run
from deploy/mosquitto.conf and deploy/acl with a CA and server certificate made for it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from table_sim.broker import free_port, wait_listening

__all__ = ["DEPLOY", "PASSWORDS", "Club", "club", "env_file", "installed_bridge_config"]

ROOT = Path(__file__).parents[2]
DEPLOY = ROOT / "deploy"
DOCS = ROOT / "docs" / "operating.md"
# The broker users of deploy/acl and the passwords the tests give them (t01's and the
# service's as in the example .env files, so the settings load unchanged).
PASSWORDS = {"service": "change-me-service", "bridge-t01": "change-me-t01", "bridge-t02": "pw-t02"}


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a systemd EnvironmentFile (comments and blanks skipped)."""
    values: dict[str, str] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


@dataclass
class Club:
    """The club's broker as deploy/ configures it, on free ports of 127.0.0.1."""

    plain_port: int  # the loopback listener (the service)
    tls_port: int  # the TLS listener (the bridges)
    ca: Path  # the CA that signed the server certificate (the bridges' mqtt_ca_file)
    workdir: Path
    log: Path


def _openssl(workdir: Path, *args: str) -> None:
    subprocess.run(["openssl", *args], cwd=workdir, check=True, capture_output=True)


EC = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")


def make_ca(workdir: Path) -> Path:
    """A CA of the test's own: ca.key and ca.crt in `workdir`."""
    _openssl(workdir, "req", "-x509", *EC, "-keyout", "ca.key", "-out", "ca.crt",
             "-days", "2", "-subj", "/CN=mjtable test CA")  # fmt: skip
    return workdir / "ca.crt"


def installed_bridge_config(tmp_path: Path) -> Path:
    """deploy/bridge-t01.toml as installed, the CA file it names in place (the settings
    refuse a CA file that is missing or not PEM): /etc/mjtable/ca.crt made in tmp_path."""
    ca = make_ca(tmp_path)
    text = (DEPLOY / "bridge-t01.toml").read_text()
    assert text.count('"/etc/mjtable/ca.crt"') == 1
    config = tmp_path / "bridge-t01.toml"
    config.write_text(text.replace('"/etc/mjtable/ca.crt"', f'"{ca}"'))
    return config


def make_certificates(workdir: Path) -> None:
    """A CA, and a server certificate it signed for localhost and 127.0.0.1 (as the
    guide's openssl steps do, with the test's names)."""
    make_ca(workdir)
    _openssl(workdir, "req", *EC, "-keyout", "server.key", "-out", "server.csr",
             "-subj", "/CN=localhost")  # fmt: skip
    (workdir / "server.ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl(workdir, "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey",
             "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2",
             "-extfile", "server.ext")  # fmt: skip


def broker_config(club: Club) -> str:
    """deploy/mosquitto.conf with the test's ports and paths: every line it changes must
    be there, so a change to the shipped file cannot pass unnoticed."""
    text = (DEPLOY / "mosquitto.conf").read_text()
    w = club.workdir
    swaps = {
        "pid_file /run/mosquitto/mosquitto.pid": f"pid_file {w}/mosquitto.pid",
        "log_dest syslog": "log_dest stderr",
        "/etc/mosquitto/mjtable.passwd": f"{w}/mjtable.passwd",
        "/etc/mosquitto/mjtable.acl": f"{DEPLOY}/acl",
        "persistence_location /var/lib/mosquitto/": f"persistence_location {w}/",
        "listener 1883 127.0.0.1": f"listener {club.plain_port} 127.0.0.1",
        "listener 8883\n": f"listener {club.tls_port} 127.0.0.1\n",
        "/etc/mosquitto/certs/server.crt": f"{w}/server.crt",
        "/etc/mosquitto/certs/server.key": f"{w}/server.key",
    }
    for old, new in swaps.items():
        assert text.count(old) == 1, f"deploy/mosquitto.conf no longer has {old!r} once"
        text = text.replace(old, new)
    # As root Mosquitto drops to user `mosquitto`, which could not read our temp files.
    return text + ("user root\n" if os.geteuid() == 0 else "")


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Club]:
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    passwd = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not (Path(mosquitto).exists() and Path(passwd).exists() and shutil.which("openssl")):
        pytest.skip("needs mosquitto, mosquitto_passwd and openssl")
    workdir = tmp_path_factory.mktemp("club-broker")
    club = Club(free_port(), free_port(), workdir / "ca.crt", workdir, workdir / "mosquitto.log")
    make_certificates(workdir)
    for i, (user, password) in enumerate(PASSWORDS.items()):
        create = ["-c"] if i == 0 else []
        subprocess.run([passwd, *create, "-b", str(workdir / "mjtable.passwd"), user, password],
                       check=True, capture_output=True)  # fmt: skip
    conf = workdir / "mosquitto.conf"
    conf.write_text(broker_config(club))
    with club.log.open("wb") as log:
        proc = subprocess.Popen([mosquitto, "-c", str(conf)], stdout=log, stderr=log)
    try:
        wait_listening(club.plain_port, proc)
        wait_listening(club.tls_port, proc)
        yield club
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
