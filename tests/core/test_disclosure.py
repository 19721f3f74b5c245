"""Tenants see plain errors with a reference; exception text and server paths go to the log."""

from __future__ import annotations

import logging
import re

import pytest
from django.conf import settings

from core.disclosure import public_text
from jobs.models import DeadLetter, JobStatus
from jobs.worker import execution
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db
ASSETS = str(settings.BASE_DIR / "reports" / "assets")


def test_server_paths_are_replaced_and_tenant_paths_kept():
    text = f"'/etc/passwd' is outside the directories this document may read ({ASSETS})"
    assert public_text(text) == (
        "'/etc/passwd' is outside the directories this document may read (<server path>)"
    )
    assert public_text(f"open {settings.BASE_DIR}/fonts/x.png failed") == (
        "open <server path> failed"
    )


def test_a_transient_error_shows_a_reference_and_logs_the_full_text(user, settings, caplog):
    settings.PDF_MAX_RETRIES = 0
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    secret = OSError(f"[Errno 28] No space left on device: '{settings.MEDIA_ROOT}/x.pdf'")
    with caplog.at_level(logging.ERROR, logger="jobs.errors"):
        execution.job_handle_transient_error(job_id=job.job_id, error=secret, traceback="tb")
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert "No space left" not in job.error
    assert str(settings.MEDIA_ROOT) not in job.error
    reference = re.search(r"\(ref ([0-9a-f]{12})\)", job.error).group(1)
    assert f"ref={reference}" in caplog.text
    assert "No space left on device" in caplog.text
    # The admin's dead letter keeps the full text for operators.
    assert "No space left on device" in DeadLetter.objects.get(job=job).error


def test_a_retried_attempt_shows_no_exception_text(user):
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    execution.job_handle_transient_error(job_id=job.job_id, error=OSError("redis://10.0.0.7"))
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert "10.0.0.7" not in job.error
    assert "(ref " in job.error


def test_refused_resource_warnings_name_no_server_path(user):
    job = PdfJobFactory(
        owner=user, engine="raw", html_template='<img src="/etc/passwd"><img src="fonts/x.png">'
    )
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert any("/etc/passwd" in warning for warning in done.warnings)
    assert not any(str(settings.BASE_DIR) in warning for warning in done.warnings)
    assert any("<server path>" in warning for warning in done.warnings)
