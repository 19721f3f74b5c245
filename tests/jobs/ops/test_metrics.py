"""/metrics: counters from every process, state read at scrape, no query per job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config.celery_app import app as celery_app
from core.metrics_dir import multiprocess_dir
from jobs import transitions
from jobs.models import DeadLetter, JobStatus
from jobs.worker.execution import job_handle_transient_error
from tests.factories import PdfJobFactory, ReportTemplateFactory
from tests.prometheus_text import Samples, parse, value

pytestmark = [pytest.mark.process, pytest.mark.django_db]


def scrape() -> Samples:
    response = Client().get("/metrics")
    assert response.status_code == 200
    return parse(response.content.decode())


def test_metrics_run_in_multiprocess_mode():
    directory = multiprocess_dir()
    assert directory is not None
    assert directory.is_dir()


def test_transitions_count_completions_failures_and_generation_time(
    django_capture_on_commit_callbacks,
):
    template = ReportTemplateFactory(slug="quarterly", owner=None)  # a built-in sample
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        done = PdfJobFactory(template=template, html_template="")
        transitions.job_claim(job_id=done.job_id, worker="test:1")
        transitions.job_complete(
            job_id=done.job_id, pdf_file="x.pdf", page_count=1, size_bytes=10, warnings=[]
        )
        bad = PdfJobFactory()
        transitions.job_claim(job_id=bad.job_id, worker="test:1")
        transitions.job_fail(job_id=bad.job_id, error="nope", code="template_syntax")
    after = scrape()

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    labels = {"renderer": "xhtml2pdf", "template": "quarterly"}
    assert delta("pdf_generation_seconds_count", **labels) == 1
    assert delta("pdf_generation_seconds_bucket", le="+Inf", **labels) == 1
    assert delta("pdf_jobs_completed_total", renderer="xhtml2pdf") == 1
    assert delta("pdf_jobs_failed_total", error_code="template_syntax") == 1
    assert delta("pdf_jobs_failed_total", error_code="timeout") == 0


def test_retries_and_dead_letters_are_counted_by_error_code(settings):
    settings.PDF_MAX_RETRIES = 1
    job = PdfJobFactory()
    before = scrape()
    transitions.job_claim(job_id=job.job_id, worker="test:1")
    assert job_handle_transient_error(job_id=job.job_id, error=OSError("disk")) is not None
    transitions.job_claim(job_id=job.job_id, worker="test:1")
    assert job_handle_transient_error(job_id=job.job_id, error=OSError("disk")) is None
    after = scrape()
    # django_db wraps the test in a transaction, so on_commit counters have not run; the
    # dead letter is counted where it is written.
    assert (
        value(after, "pdf_jobs_dead_lettered_total", error_code="retries_exhausted")
        - value(before, "pdf_jobs_dead_lettered_total", error_code="retries_exhausted")
        == 1
    )
    assert value(after, "pdf_dead_letters_open", permanent="false") == 1


def test_retry_transition_is_counted(django_capture_on_commit_callbacks):
    job = PdfJobFactory()
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        transitions.job_claim(job_id=job.job_id, worker="test:1")
        transitions.job_reschedule(job_id=job.job_id, error="boom", code="transient")
    after = scrape()
    assert (
        value(after, "pdf_jobs_retried_total", error_code="transient")
        - value(before, "pdf_jobs_retried_total", error_code="transient")
        == 1
    )


def test_jobs_in_flight_and_stuck_jobs_are_read_at_scrape():
    PdfJobFactory(status=JobStatus.QUEUED)
    PdfJobFactory(status=JobStatus.QUEUED)
    PdfJobFactory(status=JobStatus.PROCESSING, heartbeat_at=None)
    failed = PdfJobFactory(status=JobStatus.FAILED, error_code="timeout")
    DeadLetter.objects.create(job=failed, error="x", permanent=True)
    samples = scrape()
    assert value(samples, "pdf_jobs_in_flight", state="queued") == 2
    assert value(samples, "pdf_jobs_in_flight", state="processing") == 1
    assert value(samples, "pdf_jobs_oldest_queued_age_seconds") >= 0
    assert value(samples, "pdf_dead_letters_open", permanent="true") == 1


def test_a_scrape_costs_the_same_queries_with_many_jobs():
    PdfJobFactory(status=JobStatus.QUEUED)
    with CaptureQueriesContext(connection) as few:
        scrape()
    PdfJobFactory.create_batch(40, status=JobStatus.QUEUED)
    PdfJobFactory.create_batch(20, status=JobStatus.PROCESSING)
    with CaptureQueriesContext(connection) as many:
        scrape()
    assert len(many) == len(few) <= 2


def test_queue_depth_and_oldest_message_age_come_from_the_broker():
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    client.delete("maintenance")
    try:
        celery_app.send_task("jobs.reconcile")  # routed to the maintenance queue
        celery_app.send_task("jobs.reconcile")
        time.sleep(1.2)
        samples = scrape()
    finally:
        client.delete("maintenance")
    assert value(samples, "pdf_broker_up") == 1
    assert value(samples, "pdf_queue_depth", queue="maintenance") == 2
    assert 1.2 <= value(samples, "pdf_queue_oldest_age_seconds", queue="maintenance") < 30
    assert value(samples, "pdf_queue_depth", queue="pdf") >= 0


def test_broker_down_is_reported_not_a_500(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:9/0"
    samples = scrape()
    assert value(samples, "pdf_broker_up") == 0
    assert value(samples, "pdf_jobs_in_flight", state="queued") == 0


def test_live_gauges_of_a_killed_process_stop_counting():
    """A web process SIGKILLed with streams open must not leave them counted forever."""
    code = (
        "import os, signal\n"
        "from prometheus_client import Gauge\n"
        "g = Gauge('pdf_live_streams', 'x', ['transport'], multiprocess_mode='livesum')\n"
        "g.labels(transport='sse').inc(7)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], env=os.environ.copy())
    assert child.wait(timeout=30) == -signal.SIGKILL
    directory = multiprocess_dir()
    assert directory is not None
    leftover = directory / f"gauge_livesum_{child.pid}.db"
    assert leftover.exists()
    samples = scrape()
    assert value(samples, "pdf_live_streams", transport="sse") < 7
    assert not leftover.exists()


def test_metrics_token_is_enforced(settings):
    settings.METRICS_TOKEN = "s3cret"
    assert Client().get("/metrics").status_code == 401
    ok = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret")
    assert ok.status_code == 200


def test_tenants_templates_share_one_metric_label(django_capture_on_commit_callbacks):
    """Slugs of tenants' templates are theirs to invent: twenty of them add no series."""
    templates = [ReportTemplateFactory(slug=f"mine-{n}") for n in range(20)]
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        for template in templates:
            job = PdfJobFactory(template=template, owner=template.owner, html_template="")
            transitions.job_claim(job_id=job.job_id, worker="test:1")
            transitions.job_complete(
                job_id=job.job_id, pdf_file="x.pdf", page_count=1, size_bytes=10, warnings=[]
            )
    after = scrape()
    labels = {"renderer": "xhtml2pdf", "template": "tenant"}
    counted = value(after, "pdf_generation_seconds_count", **labels) - value(
        before, "pdf_generation_seconds_count", **labels
    )
    assert counted == 20
    assert 'template="mine-' not in Client().get("/metrics").content.decode()


def test_the_renderer_label_is_what_made_the_pdf(django_capture_on_commit_callbacks):
    before = scrape()
    with django_capture_on_commit_callbacks(execute=True):
        for renderer, engine in (("weasyprint", "handlebars"), ("xhtml2pdf", "docx")):
            job = PdfJobFactory(renderer=renderer, engine=engine)
            transitions.job_claim(job_id=job.job_id, worker="test:1")
            transitions.job_complete(
                job_id=job.job_id, pdf_file="x.pdf", page_count=1, size_bytes=10, warnings=[]
            )
    after = scrape()
    for renderer in ("weasyprint", "libreoffice"):
        done = value(after, "pdf_jobs_completed_total", renderer=renderer)
        assert done - value(before, "pdf_jobs_completed_total", renderer=renderer) == 1
