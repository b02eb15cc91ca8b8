"""MQTT brokers this project starts itself: embedded amqtt, or a private Mosquitto.

The demo, the soak run and the tests use them. Each runs in its own process (amqtt
in-process races its PUBACKs with its own clients) and can be stopped and restarted on
the same port. A Mosquitto started here keeps sessions across restarts
(persistence) and raises the queue limit that otherwise drops QoS 1 messages.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

_handed_out: set[int] = set()


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port() -> int:
    """A free port below the kernel's ephemeral range, never the same twice in a process.

    A port from the ephemeral range (what `bind(0)` gives) can be taken meanwhile as the
    source port of any outgoing connection, even one to itself (TCP self-connect), so a
    server restarted on it may find it in use: CI saw exactly that.
    """
    low = max(_ephemeral_low(), 11000)
    while True:
        port = random.randrange(10000, low)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port


def wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"broker exited with {proc.returncode} before listening on {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"broker not listening on 127.0.0.1:{port} after {timeout}s")


class OwnedBroker:
    """A broker process on a fixed port that may be stopped and started again."""

    def __init__(self, workdir: Path, port: int | None = None, embedded: bool = False) -> None:
        self.port = port or free_port()
        self.workdir = workdir
        forced = os.environ.get("MJTABLE_TEST_OWNED_BROKER")  # "amqtt" forces the fallback
        use_amqtt = embedded or forced == "amqtt"
        self.mosquitto = None if use_amqtt else shutil.which("mosquitto")
        self.persistent = self.mosquitto is not None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        if self.mosquitto:
            conf = self.workdir / "mosquitto.conf"
            # As root, Mosquitto drops to user `mosquitto`, which could not save its
            # sessions in our private directory; Nagle's algorithm on its side holds each
            # batch of PUBACKs ~40 ms (a bridge catching up after an outage feels it).
            user = "user root\n" if os.geteuid() == 0 else ""
            conf.write_text(
                f"listener {self.port} 127.0.0.1\n"
                "allow_anonymous true\n"
                "persistence true\n"
                f"persistence_location {self.workdir}/\n"
                "max_queued_messages 100000\n"
                "set_tcp_nodelay true\n"
                f"{user}"
                "log_dest none\n"
            )
            cmd = [self.mosquitto, "-c", str(conf)]
        else:
            cmd = [sys.executable, "-m", "table_sim.amqtt_broker", str(self.port)]
        # its own session: a Ctrl-C at the terminal (SIGINT to the whole foreground group)
        # must not stop the broker before its owner has drained through it
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        wait_listening(self.port, self.proc)

    def stop(self) -> None:
        """SIGTERM (Mosquitto then saves its sessions), SIGKILL if it lingers."""
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()
