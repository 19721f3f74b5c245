"""Celery signal handlers for operations: stamp messages for queue-age metrics, tidy up a
pool child's live gauges when it exits, and serve a worker host's metrics."""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from celery.signals import before_task_publish, worker_process_shutdown, worker_ready
from django.conf import settings
from prometheus_client import CollectorRegistry, multiprocess, start_http_server

from jobs.metrics_scrape import SENT_AT_HEADER, multiprocess_dir

logger = logging.getLogger(__name__)


@before_task_publish.connect
def stamp_sent_at(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault(SENT_AT_HEADER, time.time())


@worker_process_shutdown.connect
def forget_live_gauges(**_: Any) -> None:
    directory = multiprocess_dir()
    if directory is not None:
        multiprocess.mark_process_dead(os.getpid(), str(directory))


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
