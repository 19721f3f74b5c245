"""Is a job's current attempt still alive? An attempt is `host:pid:scope-instance`.

The instance is drawn once per worker start (pool children inherit it), so worker presence
can say that the worker which ran an attempt is gone. The scope names the kernel and pid
namespace the pid lives in: two hosts sharing a hostname (cloned VMs, containers sharing
a UTS namespace) never read each other's pids as their own.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
import uuid
from datetime import datetime
from pathlib import Path

_instance: str | None = None


@functools.cache
def _pid_scope() -> str:
    """The same for every process whose pids this process can see: the boot (random per
    boot, so per machine) and the pid namespace. Read once a process (a file, a stat and a
    hash were 0.2 ms of every job's claim): neither changes for a running process, and a
    forked child shares both with its parent."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        namespace = str(os.stat("/proc/self/ns/pid").st_ino)
    except OSError:  # not Linux: the hostname is all there is
        boot, namespace = socket.gethostname(), ""
    return hashlib.sha256(f"{boot}/{namespace}".encode()).hexdigest()[:8]


def worker_instance() -> str:
    """This worker start's id; drawn in the main process before the pool forks."""
    global _instance
    if _instance is None:
        _instance = uuid.uuid4().hex[:12]
    return _instance


def worker_instance_renew() -> str:
    """A new id for a new worker start (in the main process, before the pool forks)."""
    global _instance
    _instance = None
    return worker_instance()


def attempt_identity() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{_pid_scope()}-{worker_instance()}"


def _parts(worker: str) -> tuple[str, str, str]:
    """(pid, scope, instance); empty strings for what an old-style `host:pid` lacks."""
    head, _, tail = worker.rpartition(":")
    if "-" in tail and head:
        scope, _, instance = tail.partition("-")
        return head.rpartition(":")[2], scope, instance
    return tail, "", ""


def _pid_dead_here(worker: str) -> bool:
    pid, scope, _ = _parts(worker)
    if scope != _pid_scope() or not pid.isdigit():
        return False  # another machine or pid namespace: only its heartbeat can tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def attempt_instance(worker: str) -> str:
    return _parts(worker)[2]


def attempt_is_dead(
    *,
    worker: str,
    heartbeat_at: datetime | None,
    stale_before: datetime,
    live_instances: frozenset[str] | None = None,
    silent_before: datetime | None = None,
) -> bool:
    """Dead if its process is gone from this host, or it has not beaten since stale_before,
    or (with worker presence read: `live_instances`) its worker is no longer present and it
    has not beaten since silent_before. Presence alone is not enough: a worker whose Redis
    blinked is missing from it for a moment while its attempts still beat."""
    if worker and _pid_dead_here(worker):
        return True
    if heartbeat_at is None or heartbeat_at < stale_before:
        return True
    instance = attempt_instance(worker)
    return (
        live_instances is not None
        and silent_before is not None
        and bool(instance)
        and instance not in live_instances
        and heartbeat_at < silent_before
    )
