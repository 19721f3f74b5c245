"""Metrics and health endpoints."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from jobs.models import DeadLetter, JobStatus
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def _metric(text: str, line_start: str) -> float:
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{line_start} not in metrics:\n{text}")


def test_metrics_report_statuses_failure_ratio_durations_and_dead_letters():
    now = timezone.now()
    for seconds in (1, 3, 40):
        job = PdfJobFactory(status=JobStatus.COMPLETED)
        job.__class__.objects.filter(pk=job.pk).update(
            created_at=now - timedelta(seconds=seconds), completed_at=now
        )
    failed = PdfJobFactory(status=JobStatus.FAILED, error_code="timeout", completed_at=now)
    DeadLetter.objects.create(job=failed, error="x", permanent=True)
    PdfJobFactory(status=JobStatus.QUEUED)
    text = Client().get("/metrics").content.decode()
    assert _metric(text, 'pdf_jobs{status="completed"}') == 3
    assert _metric(text, 'pdf_jobs{status="queued"}') == 1
    assert _metric(text, "pdf_generation_failure_ratio_1h") == 0.25
    assert _metric(text, 'pdf_generation_failed_1h{error_type="timeout"}') == 1
    assert _metric(text, 'pdf_generation_duration_seconds_bucket{le="2"}') == 1
    assert _metric(text, 'pdf_generation_duration_seconds_bucket{le="30"}') == 2
    assert _metric(text, 'pdf_generation_duration_seconds_bucket{le="+Inf"}') == 3
    assert _metric(text, 'pdf_dead_letters{permanent="true"}') == 1
    assert _metric(text, "pdf_queue_depth") >= 0


def test_metrics_token_is_enforced(settings):
    settings.METRICS_TOKEN = "s3cret"
    assert Client().get("/metrics").status_code == 401
    ok = Client().get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret")
    assert ok.status_code == 200


def test_health_endpoints(settings):
    client = Client()
    assert client.get("/livez").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ok"}
    settings.REDIS_URL = "redis://127.0.0.1:9/0"
    down = client.get("/readyz")
    assert down.status_code == 503
    assert "redis" in down.json()["problems"]
