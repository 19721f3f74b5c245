"""A budget of CPU time, the limit of work a tenant's input may make: a schema check (the
validating thread's CPU) and a template render (its forked child's). On a busy host such
work waits for a core, and a wall-clock limit then failed ordinary input for the machine's
load. A CPU clock costs a system call or a /proc read, so the wall clock is read until the
wall time reaches what is left of the budget, and the CPU clock only then."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

# Work that spends no CPU (a child deadlocked on a lock held at its fork) is still stopped
# once this many times its budget has passed in wall time.
WALL_CAP_FACTOR = 10
# The exit status of a child process that ended itself at its budget (the V8 child).
EXIT_TIME_LIMIT = 72
_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """Process `pid`'s CPU time so far (user and system), from /proc/<pid>/stat; 0.0 once
    it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS  # utime, stime (stat's 14th, 15th)


class CpuBudget:
    """`seconds` of the CPU time `clock` reads, from now. With `wall_cap`, spent too once
    that many seconds of wall time have passed (work that spends no CPU: a deadlock)."""

    __slots__ = ("_clock", "_cpu_started", "_seconds", "_wall_cap", "_wall_ends")

    def __init__(
        self, seconds: float, clock: Callable[[], float], *, wall_cap: float | None = None
    ) -> None:
        now = time.monotonic()
        self._clock = clock
        self._seconds = seconds
        self._cpu_started = clock()
        self._wall_ends = now + seconds
        self._wall_cap = math.inf if wall_cap is None else now + wall_cap

    def left(self) -> float:
        """Wall seconds before the budget can next be spent (more than 0), or 0.0 once it
        is spent."""
        now = time.monotonic()
        if now < self._wall_ends:
            return self._wall_ends - now
        cpu_left = self._seconds - (self._clock() - self._cpu_started)
        if cpu_left <= 0 or now >= self._wall_cap:
            return 0.0
        self._wall_ends = min(now + cpu_left, self._wall_cap)
        return self._wall_ends - now
