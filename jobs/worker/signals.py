"""Celery signal handlers for operations: log context and pooled connections per task,
stamp messages for queue-age metrics, tidy up a pool child's live gauges when it exits,
keep the worker's presence stamped, serve a worker host's metrics, and warm caches before
the pool forks."""

from __future__ import annotations

import gc
import logging
import os
import socket
import time
from typing import Any

from celery.signals import (
    beat_init,
    before_task_publish,
    celeryd_init,
    task_postrun,
    task_prerun,
    worker_init,
    worker_process_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from django.conf import settings
from django.db import close_old_connections
from prometheus_client import CollectorRegistry, multiprocess, start_http_server

from core.metrics_dir import multiprocess_dir
from jobs.dispatch import CALLBACK_TASK, RENDER_TASK, SENT_AT_HEADER
from jobs.log_context import job_id_log_bind, log_context_end, log_context_start
from jobs.worker.health import ChildWatch, MainBeat, role_of
from jobs.worker.liveness import worker_instance, worker_instance_renew
from jobs.worker.presence import PresenceBeat
from rendering.glyphs import bundled_code_points
from rendering.preload import libraries_import

logger = logging.getLogger(__name__)


_JOB_TASKS = {RENDER_TASK, CALLBACK_TASK}  # both take the job id as their argument


@task_prerun.connect
def log_context_for_task(task_id: str = "", task: Any = None, args: Any = None, **_: Any) -> None:
    name = getattr(task, "name", "")
    log_context_start(task=name, task_id=task_id)
    if name in _JOB_TASKS and args:
        job_id_log_bind(args[0])


@task_postrun.connect
def log_context_after_task(**_: Any) -> None:
    log_context_end()


@task_prerun.connect
@task_postrun.connect
def connections_back_to_the_pool(task: Any = None, **_: Any) -> None:
    """Around each task, as Django around each request: return the connection to the pool
    (or close it without one, or when broken). Celery's own per-task close is off
    (CELERY_DB_REUSE_MAX): in a prefork child it closed the whole pool every task. Eager
    tasks run inside their caller's transaction and are left alone."""
    if not getattr(getattr(task, "request", None), "is_eager", False):
        close_old_connections()


@before_task_publish.connect
def stamp_sent_at(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault(SENT_AT_HEADER, time.time())


def _forks_children(worker: Any) -> bool:
    """Whether the worker runs its tasks in forked children: a thread pool (the callbacks
    and mail workers) renders nothing, so it is spared the render libraries' imports and
    the fonts' maps (about 1 s of its start)."""
    pool = getattr(worker, "pool_cls", "prefork")
    name = pool if isinstance(pool, str) else getattr(pool, "__module__", "")
    return "thread" not in name


@worker_init.connect
def warm_before_fork(sender: Any = None, **_: Any) -> None:
    """Read the bundled fonts' character maps in the main process, before the pool forks:
    every child (and every child that replaces a recycled one) inherits them instead of
    spending its first job on them (~0.25 s of CPU, most of a first one-page job's extra).
    Pure Python, no threads: nothing that a fork could copy half-held. The worker start's
    instance is drawn here too, so every child's attempts carry it. The libraries a job
    renders and signs with are imported here too (rendering.preload): the modules that use
    them import them lazily, so the web and beat start without them.

    Then everything loaded so far is frozen out of the garbage collector: children share
    those pages instead of copying them when a collection touches them, and the main
    process's last collection at exit no longer walks them (it took 4 s of Ctrl-C)."""
    worker_instance_renew()
    if _forks_children(sender):
        libraries_import()
        bundled_code_points()
    gc.freeze()


# A pool child's youngest generation, in objects: a one-page render allocates ~20,000 that the
# collector tracks, most freed by their reference counts soon after. At CPython's 700 a
# render ran 4 young collections and every 10th render one of the middle generation, each
# walking what had not been freed yet: 1.5-1.9 ms of a render's CPU; at 10,000 it runs one
# every 2-3 renders, 0.4-0.5 ms (tests/bench/render_in_worker.py, 2026-12-07). Larger gains
# nothing (50,000: one 30-40 ms collection per 40 renders). The older generations are as
# CPython sets them; what the worker loaded before the fork stays frozen.
CHILD_YOUNG_GENERATION = 10_000


@worker_process_init.connect
def fewer_young_collections(**_: Any) -> None:
    """Only in a forked pool child, which does nothing but run tasks: the web and the
    thread pools keep CPython's thresholds."""
    gc.set_threshold(CHILD_YOUNG_GENERATION, *gc.get_threshold()[1:])


@worker_process_shutdown.connect
def forget_live_gauges(**_: Any) -> None:
    directory = multiprocess_dir()
    if directory is not None:
        multiprocess.mark_process_dead(os.getpid(), str(directory))


_presence: PresenceBeat | None = None


@worker_ready.connect
def presence_start(sender: Any = None, **_: Any) -> None:
    global _presence
    consumer = sender
    hostname = getattr(consumer, "hostname", "") or "unknown"
    queues = sorted(q.name for q in consumer.task_consumer.queues) if consumer else []
    started_at = time.time()

    def info() -> dict[str, Any]:
        # Pool children's pids, so a processing job's `host:pid` names its worker.
        try:
            processes = list(consumer.pool.info.get("processes", []))
        except Exception:
            processes = []
        return {
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "processes": processes,
            "queues": queues,
            "started_at": started_at,
        }

    _presence = PresenceBeat(hostname=hostname, info=info, instance=worker_instance())
    _presence.start()


@worker_shutdown.connect
def presence_stop(**_: Any) -> None:
    if _presence is not None:
        _presence.stop()


_health_role = "worker"  # set before the pool forks, so every child inherits it
_health: MainBeat | None = None


@celeryd_init.connect
def health_role(sender: Any = None, **_: Any) -> None:
    global _health_role
    _health_role = role_of(str(sender or ""))


@worker_ready.connect
def health_start(sender: Any = None, **_: Any) -> None:
    """The main process's checks and its watch over the pool children (jobs.worker.health)."""
    global _health
    consumer = sender

    def children() -> list[int]:
        try:
            return [int(pid) for pid in consumer.pool.info.get("processes", [])]
        except Exception:
            return []  # a thread pool (callbacks) has no children to watch

    _health = MainBeat(role=_health_role, children=children)
    _health.start()


@worker_process_init.connect
def renderer_watch_start(**_: Any) -> None:
    ChildWatch(role=_health_role).start()


@worker_shutdown.connect
def health_stop(**_: Any) -> None:
    if _health is not None:
        _health.stop()


@worker_shutdown.connect
def skip_the_last_collection(**_: Any) -> None:
    """The process is about to exit: frozen, its objects are not walked by the interpreter's
    final garbage collection, which took seconds of every stop (and of `make run`'s Ctrl-C)."""
    gc.freeze()


@beat_init.connect
def freeze_beat(**_: Any) -> None:
    """Beat has no shutdown signal: what it loaded to start (Django and every app) is frozen
    once it starts instead. Its final collection walked all of it, 0.4 s of CPU, the largest
    part of `make run`'s Ctrl-C (measured with perf, 2026-12-07)."""
    gc.freeze()


@worker_ready.connect
def serve_worker_metrics(**_: Any) -> None:
    """A host that runs only workers has no web process to scrape: with WORKER_METRICS_PORT
    set, the worker's main process serves the counters of every process on the host."""
    port = settings.WORKER_METRICS_PORT
    directory = multiprocess_dir()
    if not port:
        return
    if directory is None:
        logger.warning("WORKER_METRICS_PORT is set but PROMETHEUS_MULTIPROC_DIR is not")
        return
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    start_http_server(port, addr=settings.WORKER_METRICS_ADDR, registry=registry)
    logger.info("worker metrics on %s:%s", settings.WORKER_METRICS_ADDR, port)
