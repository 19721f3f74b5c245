"""The result cache and retention on the live stack: a cached submit completes at once
with no render and its signed webhook says where the PDF came from; the worker's
retention task (run by beat on the maintenance queue) then deletes the stored object once
both jobs are past PDF_RETENTION_DAYS, and the links answer 410."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from config.celery_app import app as celery_app
from jobs.dispatch import RETENTION_TASK
from jobs.models import PdfJob
from tests.e2e.conftest import wait_for_status
from tests.http_receiver import Receiver

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

BODY = {"html_template": "<h1>{{title}}</h1>", "data": {"title": "Cached"}}


def _wait(check, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def test_a_cached_submit_completes_at_once_and_retention_deletes_the_shared_pdf(http, stack_env):
    first = http.post("/api/v1/generate-pdf-async", json=BODY).json()
    rendered = wait_for_status(http, first["status_url"], until={"completed", "failed"})
    assert rendered["status"] == "completed"
    stored = (
        Path(stack_env["MEDIA_ROOT"])
        / "reports"
        / PdfJob.objects.get(job_id=first["job_id"]).pdf_file
    )
    assert stored.exists()

    hook = Receiver()
    try:
        started = time.monotonic()
        second = http.post(
            "/api/v1/generate-pdf-async",
            json={**BODY, "cache": True, "callback_url": hook.url},
        )
        took = time.monotonic() - started
        _wait(lambda: bool(hook.received))
    finally:
        hook.server.shutdown()
    assert second.status_code == 202
    state = second.json()
    assert state["status"] == "completed"  # in the submit's own answer: no worker involved
    print(f"cached submit answered in {took * 1000:.0f} ms")
    assert hook.received[0][1]["data"]["cached_from"] == first["job_id"]
    assert hook.received[0][1]["type"] == "job.completed"
    hit = http.get(state["status_url"]).json()
    assert hit["cached_from"] == first["job_id"]
    assert hit["attempts"] == 0
    same = [http.get(job["pdf_url"]).content for job in (rendered, hit)]
    assert same[0] == same[1]
    assert same[0].startswith(b"%PDF")

    # Both past PDF_RETENTION_DAYS (7): the worker's retention task expires both and
    # deletes the one object they shared.
    old = timezone.now() - timedelta(days=8)
    PdfJob.objects.filter(job_id__in=[first["job_id"], state["job_id"]]).update(completed_at=old)
    result = celery_app.send_task(RETENTION_TASK).get(timeout=60)
    assert result["pdfs_expired"] == 2
    assert not stored.exists()
    expired = http.get(state["status_url"]).json()
    assert (expired["expired"], expired["pdf_url"]) == (True, None)
    gone = http.get(hit["pdf_url"])
    assert gone.status_code == 410
    assert "PDF_RETENTION_DAYS" in gone.json()["error"]
