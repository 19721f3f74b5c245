"""What /metrics serves: every process's counters (multiprocess mode) plus the state of the
service read at scrape time from Redis and two aggregate queries, never a query per job."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from core.metrics_dir import multiprocess_dir
from jobs.models import DeadLetter, JobStatus, PdfJob
from jobs.ops.queues import broker_stats

_LIVE_GAUGE_FILE = re.compile(r"^gauge_live\w+_(\d+)\.db$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def dead_processes_mark(directory: Path) -> list[int]:
    """Drop the live gauges of processes that died without saying so (SIGKILL, OOM), so
    their open streams stop counting. Their counters stay: what they counted happened."""
    dead = set()
    for path in directory.glob("gauge_live*.db"):
        match = _LIVE_GAUGE_FILE.match(path.name)
        if match and not _pid_alive(int(match.group(1))):
            dead.add(int(match.group(1)))
    for pid in dead:
        multiprocess.mark_process_dead(pid, str(directory))
    return sorted(dead)


class ServiceStateCollector(Collector):
    """Queue depth and oldest message age per queue, live workers, jobs in flight, open
    dead letters."""

    def collect(self) -> Iterator[Metric]:
        yield from self._queues()
        yield from self._jobs()

    def _queues(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("pdf_broker_up", "1 when the broker answered this scrape.")
        depth = GaugeMetricFamily(
            "pdf_queue_depth", "Messages waiting in a broker queue.", labels=["queue"]
        )
        age = GaugeMetricFamily(
            "pdf_queue_oldest_age_seconds",
            "Age of the oldest message waiting in a queue (0 when empty).",
            labels=["queue"],
        )
        workers = GaugeMetricFamily(
            "pdf_workers_alive", "Celery workers whose presence stamp is fresh."
        )
        stats = broker_stats()
        if stats is None:
            up.add_metric([], 0)
            yield up
            return
        for queue, numbers in stats.queues.items():
            depth.add_metric([queue], numbers.depth)
            age.add_metric([queue], numbers.oldest_age)
        up.add_metric([], 1)
        workers.add_metric([], stats.workers_alive)
        yield from (up, depth, age, workers)

    def _jobs(self) -> Iterator[Metric]:
        now = timezone.now()
        stale = now - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS)
        queued, processing = Q(status=JobStatus.QUEUED), Q(status=JobStatus.PROCESSING)
        jobs = PdfJob.objects.filter(queued | processing).aggregate(
            queued=Count("id", filter=queued),
            processing=Count("id", filter=processing),
            stuck=Count("id", filter=processing & Q(heartbeat_at__lt=stale)),
            oldest_queued=Min("updated_at", filter=queued),
        )
        in_flight = GaugeMetricFamily(
            "pdf_jobs_in_flight", "Jobs not yet finished, by state.", labels=["state"]
        )
        in_flight.add_metric(["queued"], jobs["queued"])
        in_flight.add_metric(["processing"], jobs["processing"])
        yield in_flight
        yield GaugeMetricFamily(
            "pdf_jobs_stuck",
            "Processing jobs whose heartbeat is older than PDF_HEARTBEAT_STALE_SECONDS.",
            value=jobs["stuck"],
        )
        oldest = jobs["oldest_queued"]
        yield GaugeMetricFamily(
            "pdf_jobs_oldest_queued_age_seconds",
            "Time since the longest-waiting queued job entered the queue (0 when none).",
            value=(now - oldest).total_seconds() if oldest else 0.0,
        )
        letters = DeadLetter.objects.filter(job__status=JobStatus.FAILED).aggregate(
            transient=Count("id", filter=Q(permanent=False)),
            permanent=Count("id", filter=Q(permanent=True)),
        )
        open_letters = GaugeMetricFamily(
            "pdf_dead_letters_open",
            "Dead letters whose job is still failed, by whether beat re-drives them.",
            labels=["permanent"],
        )
        open_letters.add_metric(["false"], letters["transient"])
        open_letters.add_metric(["true"], letters["permanent"])
        yield open_letters


def process_registry() -> CollectorRegistry:
    """Every process's instruments: the files of all processes on this host in
    multiprocess mode, else this process's own."""
    directory = multiprocess_dir()
    if directory is None:
        return REGISTRY
    dead_processes_mark(directory)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(directory))
    return registry


def metrics_exposition() -> bytes:
    state = CollectorRegistry()
    state.register(ServiceStateCollector())
    return generate_latest(process_registry()) + generate_latest(state)
