from __future__ import annotations

import contextlib
import os
import time

# --- CPU, the database, the children --------------------------------------------------


TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(stat: str) -> float:
    """User + system seconds from a /proc/<pid>/stat or /proc/<pid>/task/<tid>/stat line."""
    fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state is fields[0]
    return (int(fields[11]) + int(fields[12])) / TICK


def read(path: str) -> str:
    with open(path) as f:
        return f.read()


def rss_bytes(pid: int) -> int:
    with contextlib.suppress(OSError, ValueError):
        for line in read(f"/proc/{pid}/status").splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class CpuWatch:
    """Cumulative CPU seconds of each process group, and of the whole machine (/proc)."""

    def __init__(self, service: int, load: list[int], broker_pid: int | None) -> None:
        self.fixed = {"service": [service], "load": load, "probe": [os.getpid()]}
        self.broker_pid = broker_pid
        self._last: dict[str, float] = {}  # a process that ended keeps its last figure
        self._seen: dict[str, set[int]] = {"mosquitto": set(), "postgres": set()}

    def _pids(self) -> dict[str, list[int]]:
        """The fixed groups, and every Mosquitto and PostgreSQL process seen so far (one
        that ended keeps counting its last figure, so a group's sum never goes back)."""
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                name = read(f"/proc/{entry}/comm").strip()
            except OSError:
                continue
            pid = int(entry)
            if name == "mosquitto" and self.broker_pid in (None, pid):
                self._seen["mosquitto"].add(pid)
            elif name.startswith("postgres"):
                self._seen["postgres"].add(pid)
        return {**self.fixed, **{k: sorted(v) for k, v in self._seen.items()}}

    def _seconds(self, path: str) -> float:
        with contextlib.suppress(OSError, ValueError, IndexError):
            self._last[path] = cpu_seconds(read(path))
        return self._last.get(path, 0.0)

    def sample(self, stored: StoredCount | None = None) -> dict[str, float]:
        out = {
            group: sum(self._seconds(f"/proc/{pid}/stat") for pid in pids)
            for group, pids in self._pids().items()
        }
        service = self.fixed["service"][0]  # its event loop: the main thread
        out["service_loop"] = self._seconds(f"/proc/{service}/task/{service}/stat")
        out["stored"] = stored.events if stored else 0
        out["transactions"] = stored.transactions if stored else 0
        # cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is in user)
        ticks = [int(v) for v in read("/proc/stat").splitlines()[0].split()[1:9]]
        user, nice, system, _idle, _iowait, irq, softirq, steal = ticks
        out["machine"] = (user + nice + system + irq + softirq + steal) / TICK
        out["t"] = time.monotonic()
        return out


class StoredCount:
    """Events the service has stored so far, and (PostgreSQL) in how many transactions:
    the distinct `xmin` of their log rows. Counts only rows new since the last call (the
    service is one writer, committing in id order)."""

    def __init__(self, db_url: str) -> None:
        from sqlalchemy import text

        from table_service.store.store import make_engine

        self.engine = make_engine(db_url)
        self.postgres = self.engine.url.get_backend_name() == "postgresql"
        xacts = "count(DISTINCT xmin::text)" if self.postgres else "0"
        self.query = text(
            f"SELECT count(*), coalesce(max(id), 0), {xacts} FROM log"
            " WHERE id > :after AND kind = 'event'"
        )
        self.after = 0
        self.events = 0
        self.transactions = 0

    def __call__(self) -> int:
        with self.engine.connect() as connection:
            n, top, xacts = connection.execute(self.query, {"after": self.after}).one()
        if n:
            self.events += int(n)
            self.transactions += int(xacts)
            self.after = int(top)
        return self.events
