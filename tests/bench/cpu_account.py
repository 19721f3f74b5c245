"""Where the cores' time went over a window: CPU seconds (user + system) of each process the
bench started or talks to, sampled with psutil so processes that come and go are counted."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlparse

import psutil

# A group's processes now; sampled again every SAMPLE_SECONDS (a process that exits between
# two samples loses its CPU since the last one, which is why the samples are frequent).
Finder = Callable[[], list[psutil.Process]]
SAMPLE_SECONDS = 0.25


def _cpu(proc: psutil.Process) -> float | None:
    try:
        times = proc.cpu_times()
    except psutil.Error:
        return None
    return times.user + times.system


_scanned: tuple[float, list[tuple[psutil.Process, str]]] = (-1.0, [])


def _postgres_processes() -> list[tuple[psutil.Process, str]]:
    """PostgreSQL's processes with their titles, one scan a sample for both finders. The name
    first, the title only for those: two scans reading every process's command line cost
    the bench process ~15 ms of CPU a sample, CPU the service being measured lost on a
    two-core machine (now ~5)."""
    global _scanned
    if time.monotonic() - _scanned[0] < SAMPLE_SECONDS / 2:
        return _scanned[1]
    found = []
    for proc in psutil.process_iter(["name"]):
        if proc.info["name"] != "postgres":
            continue
        try:
            found.append((proc, " ".join(proc.cmdline())))
        except psutil.Error:  # gone meanwhile
            continue
    _scanned = (time.monotonic(), found)
    return found


def postgres_backends(database: str) -> Finder:
    """The server's backends connected to `database` (its name is in their title)."""

    def find() -> list[psutil.Process]:
        return [proc for proc, title in _postgres_processes() if f" {database} " in title + " "]

    return find


def postgres_server() -> Finder:
    """The postmaster and its helper processes (checkpointer, WAL writer...): shared by
    every database on the server, so other sessions' work shows here too."""

    def find() -> list[psutil.Process]:
        found = []
        for proc, title in _postgres_processes():
            backend = "(" in title or "[local]" in title or "autovacuum worker" in title
            if not backend:
                found.append(proc)
        return found

    return find


def listening_on(url: str) -> Finder:
    """The process listening on `url`'s port (redis-server)."""
    port = urlparse(url).port or 6379
    pids = {
        conn.pid
        for conn in psutil.net_connections("tcp")
        if conn.laddr and conn.laddr.port == port and conn.status == "LISTEN" and conn.pid
    }
    processes = [psutil.Process(pid) for pid in pids]
    return lambda: processes


def fixed(*processes: psutil.Process) -> Finder:
    return lambda: list(processes)


@dataclass
class CpuAccount:
    """Call start(), run the work, then stop(): core-seconds per group over the window."""

    groups: dict[str, Finder]
    first: dict[str, dict[int, float]] = field(default_factory=dict)
    last: dict[str, dict[int, float]] = field(default_factory=dict)
    machine_busy: float = 0.0
    window: float = 0.0
    _started: float = 0.0
    _machine: psutil._common.scputimes | None = None  # type: ignore[name-defined]
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def _sample(self, *, baseline: bool) -> None:
        for name, find in self.groups.items():
            for proc in find():
                value = _cpu(proc)
                if value is None:
                    continue
                # A process first seen after the start began inside the window: all of its
                # CPU counts (its start-up too; the groups' processes are started before).
                self.first.setdefault(name, {}).setdefault(proc.pid, value if baseline else 0.0)
                self.last.setdefault(name, {})[proc.pid] = value

    def start(self) -> None:
        self._machine = psutil.cpu_times()
        self._started = time.perf_counter()
        self._sample(baseline=True)

        def run() -> None:
            while not self._stop.wait(SAMPLE_SECONDS):
                self._sample(baseline=False)

        self._thread = threading.Thread(target=run, name="cpu-account", daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, float]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._sample(baseline=False)
        self.window = time.perf_counter() - self._started
        now, before = psutil.cpu_times(), self._machine
        assert before is not None
        idle = (now.idle + getattr(now, "iowait", 0)) - (before.idle + getattr(before, "iowait", 0))
        self.machine_busy = sum(now) - sum(before) - idle
        return self.totals()

    def totals(self) -> dict[str, float]:
        return {
            name: sum(self.last[name][pid] - self.first[name][pid] for pid in self.last[name])
            for name in self.groups
            if name in self.last
        }

    def report(self, *, cores: int, jobs: int, add: Callable[[str, str], None]) -> None:
        capacity = cores * self.window
        totals = self.totals()
        ours = sum(totals.values())
        add(
            f"CPU over the window ({self.window:.2f} s; {cores} cores = {capacity:.2f} core-s)",
            "core-s   share   ms CPU/job",
        )
        # How many processes each group had over the window (a pool that reconnected per
        # job would show as many PostgreSQL backends as jobs).
        seen = {name: len(self.last.get(name, {})) for name in totals}
        rows = [
            (f"{name} ({seen[name]} processes)" if seen[name] > 1 else name, seconds)
            for name, seconds in totals.items()
        ]
        rows.append(("all of the above", ours))
        rows.append(("machine busy, every process (other sessions too)", self.machine_busy))
        rows.append(("  of which not the above (other sessions)", self.machine_busy - ours))
        for name, seconds in rows:
            add(
                f"  {name}",
                f"{seconds:6.2f}  {seconds / capacity:6.1%}  {seconds / jobs * 1000:8.1f}",
            )
