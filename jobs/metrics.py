"""Prometheus instruments that count what happens to jobs, where it happens.

Web processes, worker pool children and the worker's main process each write their own
files under PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode); /metrics adds
them up. Scrape-time state (queue depth, jobs in flight) is in jobs.ops.scrape.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Gauge, Histogram

from core.metrics_dir import metrics_dir_prepare
from jobs.models import JobStatus, PdfJob

# In multiprocess mode every metric made below opens a file in the directory at once.
metrics_dir_prepare(default=None)

# The seed alerts on an average above 30 s; buckets are dense around it.
GENERATION_BUCKETS = (0.5, 1, 2, 5, 10, 20, 30, 45, 60, 120, 300, 600)
STAGE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)

GENERATION_SECONDS = Histogram(
    "pdf_generation_seconds",
    "Submit-to-completion time of completed jobs (the seed's generation time).",
    ["renderer", "template"],
    buckets=GENERATION_BUCKETS,
)
RENDER_STAGE_SECONDS = Histogram(
    "pdf_render_stage_seconds",
    "Time a render attempt spent in each stage.",
    ["stage"],
    buckets=STAGE_BUCKETS,
)
JOBS_SUBMITTED = Counter("pdf_jobs_submitted", "Jobs accepted by a submit.", ["renderer"])
JOBS_COMPLETED = Counter("pdf_jobs_completed", "Jobs that completed.", ["renderer"])
JOBS_FAILED = Counter("pdf_jobs_failed", "Jobs that failed, by error code.", ["error_code"])
JOBS_RETRIED = Counter(
    "pdf_jobs_retried", "Attempts that ended in a scheduled retry, by error code.", ["error_code"]
)
JOBS_DEAD_LETTERED = Counter(
    "pdf_jobs_dead_lettered",
    "Jobs written to the dead-letter table, by error code.",
    ["error_code"],
)
JOBS_CANCELLED = Counter("pdf_jobs_cancelled", "Jobs cancelled before they finished.")
JOBS_CACHED = Counter(
    "pdf_jobs_cached", "Jobs completed from the result cache, with no render.", ["renderer"]
)
PDFS_DELETED = Counter("pdf_files_deleted", "Stored PDFs deleted by retention.")
WEBHOOK_DELIVERIES = Counter(
    "pdf_webhook_deliveries",
    "Completion callback delivery attempts, by outcome (delivered, retry, gave_up, deferred: "
    "the tenant's share of the callback threads was busy).",
    ["outcome"],
)
# livesum: a dead web process's open streams drop out of the sum (see jobs.ops.scrape).
LIVE_STREAMS = Gauge(
    "pdf_live_streams",
    "Open live-update streams, by transport.",
    ["transport"],
    multiprocess_mode="livesum",
)


def job_renderer(job: PdfJob) -> str:
    """What makes the job's PDF (a renderer, or LibreOffice): a handful of names, so a
    bounded label."""
    return job.shown_renderer


def job_template_label(job: PdfJob) -> str:
    """The built-in templates by slug (a fixed few); every tenant's own template shares
    `tenant` and inline ones `inline`, so no tenant can grow the number of series by
    saving templates (each slug would be a series in every process, forever)."""
    if job.template_id is not None and job.template is not None:
        return job.template.slug if job.template.owner_id is None else "tenant"
    return "inline"


def job_transition_observe(job: PdfJob) -> None:
    """Count a transition once it has committed (called by jobs.transitions)."""
    if job.status == JobStatus.COMPLETED and job.completed_at is not None:
        seconds = (job.completed_at - job.created_at).total_seconds()
        renderer = job_renderer(job)
        JOBS_COMPLETED.labels(renderer=renderer).inc()
        GENERATION_SECONDS.labels(renderer=renderer, template=job_template_label(job)).observe(
            seconds
        )
    elif job.status == JobStatus.FAILED:
        JOBS_FAILED.labels(error_code=job.error_code or "unknown").inc()
    elif job.status == JobStatus.QUEUED and job.stage == "retry_scheduled":
        JOBS_RETRIED.labels(error_code=job.error_code or "unknown").inc()
    elif job.status == JobStatus.CANCELLED:
        JOBS_CANCELLED.inc()


class StageTimer:
    """Times the stages a render reports: each stage lasts until the next one starts."""

    def __init__(self) -> None:
        self._stage: str | None = None
        self._since = 0.0

    def enter(self, stage: str) -> None:
        now = time.monotonic()
        if self._stage is not None and stage != self._stage:
            RENDER_STAGE_SECONDS.labels(stage=self._stage).observe(now - self._since)
        if stage != self._stage:
            self._stage, self._since = stage, now

    def finish(self) -> None:
        if self._stage is not None:
            RENDER_STAGE_SECONDS.labels(stage=self._stage).observe(time.monotonic() - self._since)
            self._stage = None


@contextmanager
def live_stream(transport: str) -> Iterator[None]:
    """Count an open SSE or WebSocket stream for as long as the block runs."""
    gauge = LIVE_STREAMS.labels(transport=transport)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()
