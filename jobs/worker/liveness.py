"""Is a job's current attempt still alive? Identity of attempts is `host:pid`."""

from __future__ import annotations

import os
import socket
from datetime import datetime


def attempt_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _pid_dead_here(worker: str) -> bool:
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False  # another machine: only its heartbeat can tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def attempt_is_dead(*, worker: str, heartbeat_at: datetime | None, stale_before: datetime) -> bool:
    """Dead if its process is gone from this host, or it has not beaten since stale_before."""
    if worker and _pid_dead_here(worker):
        return True
    return heartbeat_at is None or heartbeat_at < stale_before
