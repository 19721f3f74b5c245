"""The job page: only the owner sees it; retry, cancel and download go through services."""

from __future__ import annotations

from unittest import mock

import pytest
from django.test import Client

from jobs.models import JobStatus
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_owner_sees_the_job_with_its_state(browser, user):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED, error="Missing helper: shout")
    response = browser.get(f"/jobs/{job.job_id}/")
    assert response.status_code == 200
    assert response.context["state"]["status"] == "failed"
    assert "Missing helper: shout" in response.content.decode()


def test_another_users_job_page_is_404(browser):
    stranger_job = PdfJobFactory()
    assert browser.get(f"/jobs/{stranger_job.job_id}/").status_code == 404
    assert browser.post(f"/jobs/{stranger_job.job_id}/retry").status_code == 404
    assert browser.post(f"/jobs/{stranger_job.job_id}/cancel").status_code == 404
    assert browser.get(f"/jobs/{stranger_job.job_id}/download").status_code == 404


def test_retry_requeues_a_failed_job_and_enqueues_it(
    browser, user, django_capture_on_commit_callbacks
):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED, error="boom")
    with (
        mock.patch("jobs.dispatch.job_enqueue") as enqueue,
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = browser.post(f"/jobs/{job.job_id}/retry")
    assert response.status_code == 302
    assert response["Location"] == f"/jobs/{job.job_id}/"
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.error == ""
    enqueue.assert_called_once_with(job_id=job.job_id)


def test_retry_of_a_job_that_did_not_fail_changes_nothing(browser, user):
    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED)
    response = browser.post(f"/jobs/{job.job_id}/retry", follow=True)
    job.refresh_from_db()
    assert job.status == JobStatus.COMPLETED
    assert "Only a failed job can be retried" in response.content.decode()


def test_cancel_stops_a_queued_job(browser, user):
    job = PdfJobFactory(owner=user)
    browser.post(f"/jobs/{job.job_id}/cancel")
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_retry_form_needs_the_csrf_token(user):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(f"/jobs/{job.job_id}/retry").status_code == 403
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_download_redirects_to_a_signed_link_once_completed(browser, user):
    queued = PdfJobFactory(owner=user)
    assert browser.get(f"/jobs/{queued.job_id}/download").status_code == 404
    done = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, pdf_file="x.pdf")
    response = browser.get(f"/jobs/{done.job_id}/download")
    assert response.status_code == 302
    assert response["Location"].startswith(f"/api/v1/jobs/{done.job_id}/pdf?token=")


def test_a_template_error_offers_advice_not_retry(browser, user):
    job = PdfJobFactory(
        owner=user, status=JobStatus.FAILED, error="Missing helper", error_code="template_error"
    )
    page = browser.get(f"/jobs/{job.job_id}/").content.decode()
    assert "fix the template or the data where the message says" in page
    assert "data-retry hidden" in page
    response = browser.post(f"/jobs/{job.job_id}/retry", follow=True)
    assert "would fail the same way (template_error)" in response.content.decode()
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED


def test_a_lost_worker_offers_retry(browser, user):
    job = PdfJobFactory(
        owner=user, status=JobStatus.FAILED, error="lost", error_code="worker_lost", attempts=2
    )
    page = browser.get(f"/jobs/{job.job_id}/").content.decode()
    assert "data-retry>" in page
    assert '<dd data-field="attempts">2</dd>' in page
