"""The operators' console: pages render, actions go through the state machine."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from jobs.models import DeadLetter, JobStatus, PdfJob
from tests.factories import PdfJobFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def operator() -> Client:
    client = Client()
    client.force_login(UserFactory(username="ops", is_staff=True, is_superuser=True))
    return client


def test_job_pages_show_state_error_and_download(operator):
    failed = PdfJobFactory(
        status=JobStatus.FAILED, error="Template error: Missing helper", error_code="template_error"
    )
    done = PdfJobFactory(status=JobStatus.COMPLETED, pdf_file="x.pdf")
    listing = operator.get("/admin/jobs/pdfjob/?status__exact=failed").content.decode()
    assert str(failed.job_id) in listing
    assert str(done.job_id) not in listing
    assert "FAILED" in listing
    page = operator.get(f"/admin/jobs/pdfjob/{failed.pk}/change/").content.decode()
    assert "Missing helper" in page
    done_page = operator.get(f"/admin/jobs/pdfjob/{done.pk}/change/").content.decode()
    assert f"/api/v1/jobs/{done.job_id}/pdf?token=" in done_page


def test_an_expired_jobs_page_says_retention_deleted_its_pdf(operator):
    source = PdfJobFactory(status=JobStatus.COMPLETED, pdf_file="x.pdf")
    expired = PdfJobFactory(
        status=JobStatus.COMPLETED,
        pdf_file="x.pdf",
        expired_at=timezone.now(),
        cached_from=source.job_id,
    )
    page = operator.get(f"/admin/jobs/pdfjob/{expired.pk}/change/").content.decode()
    assert "deleted by retention" in page
    assert f"/api/v1/jobs/{expired.job_id}/pdf?token=" not in page
    assert str(source.job_id) in page  # cached_from


def test_redrive_action_requeues_only_failed_jobs(
    operator, sent_tasks, django_capture_on_commit_callbacks
):
    failed = PdfJobFactory(status=JobStatus.FAILED)
    completed = PdfJobFactory(status=JobStatus.COMPLETED)
    with django_capture_on_commit_callbacks(execute=True):
        response = operator.post(
            "/admin/jobs/pdfjob/",
            {
                "action": "redrive_jobs",
                "_selected_action": [failed.pk, completed.pk],
            },
            follow=True,
        )
    assert "Re-driven 1 job(s). 1 skipped: not failed." in response.content.decode()
    assert PdfJob.objects.get(pk=failed.pk).status == JobStatus.QUEUED
    assert PdfJob.objects.get(pk=completed.pk).status == JobStatus.COMPLETED
    assert sent_tasks.ids("job_enqueue") == [failed.job_id]


def test_dead_letter_redrive_and_discard(operator, sent_tasks, django_capture_on_commit_callbacks):
    letter = DeadLetter.objects.create(job=PdfJobFactory(status=JobStatus.FAILED), error="boom")
    assert "boom" in operator.get("/admin/jobs/deadletter/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        operator.post(
            "/admin/jobs/deadletter/", {"action": "redrive", "_selected_action": [letter.pk]}
        )
    letter.refresh_from_db()
    assert (letter.retry_count, letter.job.status) == (1, JobStatus.QUEUED)
    operator.post("/admin/jobs/deadletter/", {"action": "discard", "_selected_action": [letter.pk]})
    assert not DeadLetter.objects.exists()


def test_cancel_action(operator):
    job = PdfJobFactory(status=JobStatus.QUEUED)
    operator.post("/admin/jobs/pdfjob/", {"action": "cancel_jobs", "_selected_action": [job.pk]})
    assert PdfJob.objects.get(pk=job.pk).status == JobStatus.CANCELLED


def test_took_is_the_last_attempts_time_not_the_time_since_creation():
    from datetime import timedelta

    from django.contrib.admin.sites import site

    now = timezone.now()
    job = PdfJobFactory(
        status=JobStatus.COMPLETED,
        created_at=now - timedelta(hours=2),  # failed, then retried two hours later
        started_at=now - timedelta(seconds=3),
        completed_at=now,
    )
    assert site._registry[PdfJob].duration(job) == "3.0 s"
