"""Retention: PDFs go after PDF_RETENTION_DAYS (the job stays, expired, and its link is a
410), job rows after JOB_RETENTION_DAYS; an object shared by cache hits goes with the last
job that points at it; two runs at once expire each job once."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from jobs import retention, services
from jobs.callbacks import _delivery_for
from jobs.links import pdf_path
from jobs.models import JobStatus, PdfJob, WebhookDelivery
from jobs.worker.execution import job_execute
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def _rendered(user, text: str = "kept") -> PdfJob:
    """A job rendered for real by the worker's body, its PDF in report storage."""
    job, _ = services.job_create(owner=user, html_template=f"<p>{text}</p>", data={})
    done = job_execute(job_id=job.job_id)
    assert isinstance(done, PdfJob)
    assert done.status == JobStatus.COMPLETED
    return done


def _age(job: PdfJob, days: float) -> None:
    PdfJob.objects.filter(pk=job.pk).update(completed_at=timezone.now() - timedelta(days=days))


def test_an_old_pdf_is_deleted_and_its_job_reports_expired(api, user, report_storage: Path):
    old, recent = _rendered(user, "old"), _rendered(user, "recent")
    _age(old, 7.5)
    _age(recent, 6.5)
    assert (report_storage / old.pdf_file).exists()

    assert retention.pdfs_expire() == 1

    assert not (report_storage / old.pdf_file).exists()
    assert (report_storage / recent.pdf_file).exists()
    state = api.get(f"/api/v1/jobs/{old.job_id}").json()
    assert (state["status"], state["expired"], state["pdf_url"]) == ("completed", True, None)
    assert api.get(f"/api/v1/jobs/{recent.job_id}").json()["expired"] is False
    gone = api.get(pdf_path(old.job_id))
    assert gone.status_code == 410
    assert gone.json()["code"] == "expired"
    assert "PDF_RETENTION_DAYS" in gone.json()["error"]
    assert "Submit the job again" in gone.json()["error"]
    assert api.get(pdf_path(recent.job_id)).status_code == 200
    assert retention.pdfs_expire() == 0  # nothing left to do


def test_the_job_page_says_the_pdf_was_deleted(client, user):
    job = _rendered(user)
    _age(job, 30)
    retention.pdfs_expire()
    client.force_login(user)
    page = client.get(f"/jobs/{job.job_id}/")
    assert b"The PDF was deleted on" in page.content
    assert b"Download PDF" not in page.content
    download = client.get(f"/jobs/{job.job_id}/download", follow=True)
    assert b"PDF_RETENTION_DAYS" in download.content


def test_a_shared_object_goes_with_the_last_job_that_points_at_it(user, report_storage: Path):
    source = _rendered(user)
    hit, _ = services.job_create(owner=user, html_template="<p>kept</p>", data={}, cache=True)
    assert hit.cached_from == source.job_id
    assert hit.pdf_file == source.pdf_file
    stored = report_storage / source.pdf_file
    _age(source, 8)

    assert retention.pdfs_expire() == 1
    assert stored.exists()  # the cache hit still points at it
    source.refresh_from_db()
    assert source.expired_at is not None

    _age(hit, 8)
    assert retention.pdfs_expire() == 1
    assert not stored.exists()


def test_retention_days_zero_keeps_pdfs(user, settings, report_storage: Path):
    settings.PDF_RETENTION_DAYS = 0
    job = _rendered(user)
    _age(job, 400)
    assert retention.pdfs_expire() == 0
    assert (report_storage / job.pdf_file).exists()


@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_expire_each_job_once(user, report_storage: Path, sent_tasks):
    jobs = [_rendered(user, f"n{n}") for n in range(12)]
    PdfJob.objects.update(completed_at=timezone.now() - timedelta(days=9))
    counts: list[int] = []
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def run() -> None:
        try:
            start.wait()
            counts.append(retention.pdfs_expire(batch=3))  # small batches: they interleave
        except BaseException as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sum(counts) == len(jobs)  # each job claimed by exactly one run
    assert PdfJob.objects.filter(expired_at__isnull=True).count() == 0
    assert not any((report_storage / job.pdf_file).exists() for job in jobs)


def test_old_finished_jobs_are_pruned_with_their_deliveries(user, settings, report_storage):
    settings.JOB_RETENTION_DAYS = 30
    old = _rendered(user, "old")
    old.callback_url = "https://example.com/hook"
    _delivery_for(old)
    _age(old, 31)
    old_failed = PdfJobFactory(owner=user, status=JobStatus.FAILED)
    _age(old_failed, 40)
    recent = PdfJobFactory(owner=user, status=JobStatus.FAILED)
    _age(recent, 29)
    stuck = PdfJobFactory(owner=user, status=JobStatus.QUEUED)  # never pruned in flight
    PdfJob.objects.filter(pk=stuck.pk).update(created_at=timezone.now() - timedelta(days=90))

    assert retention.retention_run() == {"pdfs_expired": 1, "jobs_pruned": 2}

    assert set(PdfJob.objects.values_list("pk", flat=True)) == {recent.pk, stuck.pk}
    assert not WebhookDelivery.objects.exists()
    assert not (report_storage / old.pdf_file).exists()  # the PDF did not outlive its row
