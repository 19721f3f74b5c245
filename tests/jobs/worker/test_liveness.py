"""Attempt identities: unique per worker start, judged by pid only in their own pid
namespace, and dead once their worker has left presence and their heartbeat is silent."""

from __future__ import annotations

import os
import socket
from datetime import timedelta

from django.utils import timezone

from jobs.worker import liveness
from jobs.worker.liveness import attempt_identity, attempt_instance, attempt_is_dead


def _fresh() -> dict:
    now = timezone.now()
    return {"heartbeat_at": now, "stale_before": now - timedelta(seconds=30)}


def test_identity_names_host_pid_and_this_worker_start():
    host, pid, _scope_instance = attempt_identity().split(":")
    assert (host, pid) == (socket.gethostname(), str(os.getpid()))
    assert attempt_instance(attempt_identity()) == liveness.worker_instance()
    before = liveness.worker_instance()
    assert liveness.worker_instance_renew() != before  # a new start, a new instance
    assert attempt_identity().endswith(liveness.worker_instance())


def test_the_pid_scope_is_read_once_a_process_and_stays_the_same(monkeypatch):
    reads: list[str] = []
    read_text = liveness.Path.read_text

    def counted(path, *args, **kwargs):
        reads.append(str(path))
        return read_text(path, *args, **kwargs)

    liveness._pid_scope.cache_clear()
    monkeypatch.setattr(liveness.Path, "read_text", counted)
    identities = {attempt_identity() for _ in range(3)}
    assert len(identities) == 1
    assert reads == ["/proc/sys/kernel/random/boot_id"]  # the first claim's only


def test_a_gone_pid_of_this_pid_namespace_is_dead():
    gone = attempt_identity().replace(f":{os.getpid()}:", ":999999999:")
    assert attempt_is_dead(worker=gone, **_fresh())
    assert not attempt_is_dead(worker=attempt_identity(), **_fresh())


def test_the_same_hostname_on_another_machine_is_not_judged_by_pid():
    # A cloned VM: same hostname, a pid that does not exist here, another boot/namespace.
    clone = f"{socket.gethostname()}:999999999:0badf00d-{'a' * 12}"
    assert not attempt_is_dead(worker=clone, **_fresh())
    # Nor is an identity of the old `host:pid` form, which cannot say where it ran.
    assert not attempt_is_dead(worker=f"{socket.gethostname()}:999999999", **_fresh())


def test_a_worker_gone_from_presence_is_dead_once_its_heartbeat_is_silent():
    now = timezone.now()
    other = f"other-host:42:0badf00d-{'b' * 12}"
    beat_40s_ago = {
        "heartbeat_at": now - timedelta(seconds=40),
        "stale_before": now - timedelta(seconds=180),  # the hard-limit rule: not yet
        "silent_before": now - timedelta(seconds=30),
    }
    assert not attempt_is_dead(worker=other, **beat_40s_ago)  # presence unknown
    assert not attempt_is_dead(worker=other, live_instances=frozenset({"b" * 12}), **beat_40s_ago)
    assert attempt_is_dead(worker=other, live_instances=frozenset({"c" * 12}), **beat_40s_ago)
    # Gone from presence (Redis restarted empty) but still beating: alive.
    beating = {**beat_40s_ago, "heartbeat_at": now}
    assert not attempt_is_dead(worker=other, live_instances=frozenset(), **beating)
