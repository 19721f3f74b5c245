"""Storage outages are a transient class of their own: retried for minutes, attempts not
spent, then handed to the ordinary retries."""

from __future__ import annotations

import time

import pytest
from boto3.exceptions import S3UploadFailedError
from botocore.exceptions import ClientError, EndpointConnectionError

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from jobs.worker.outages import outage_countdown, storage_unavailable
from tests.factories import PdfJobFactory


def _client_error(status: int, code: str) -> ClientError:
    return ClientError(
        {"Error": {"Code": code}, "ResponseMetadata": {"HTTPStatusCode": status}}, "PutObject"
    )


def _wrapped_upload_error() -> S3UploadFailedError:
    try:
        try:
            raise _client_error(503, "ServiceUnavailable")
        except ClientError as exc:
            raise S3UploadFailedError("Failed to upload") from exc
    except S3UploadFailedError as wrapped:
        return wrapped


def test_unreachable_or_failing_stores_are_outages_other_errors_are_not():
    assert storage_unavailable(EndpointConnectionError(endpoint_url="http://s3:9000"))
    assert storage_unavailable(ConnectionRefusedError())
    assert storage_unavailable(_wrapped_upload_error())
    assert storage_unavailable(_client_error(500, "InternalError"))
    assert not storage_unavailable(_client_error(403, "AccessDenied"))
    assert not storage_unavailable(_client_error(404, "NoSuchBucket"))
    assert not storage_unavailable(OSError("disk full"))
    assert not storage_unavailable(ValueError("bad"))


def test_the_outage_budget_runs_for_minutes_then_ends(settings):
    settings.PDF_STORAGE_OUTAGE_SECONDS = 600
    settings.PDF_STORAGE_RETRY_MAX_SECONDS = 30
    now = time.time()
    waits = [outage_countdown(since=now, retries=n) for n in range(12)]
    assert all(w is not None and 0 < w <= 30 for w in waits)
    assert sum(w for w in waits if w) > 120  # twelve tries span minutes, not ~15 s
    assert outage_countdown(since=now - 601, retries=3) is None


@pytest.mark.django_db
def test_an_outage_retries_without_spending_attempts_until_its_budget_ends(user, settings):
    settings.PDF_MAX_RETRIES = 1
    settings.PDF_MAX_ATTEMPTS = 2
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=2)  # none left
    down = EndpointConnectionError(endpoint_url="http://s3:9000")
    for _ in range(5):
        countdown = execution.job_handle_transient_error(
            job_id=job.job_id, error=down, outage_since=time.time() - 60
        )
        assert countdown is not None
        assert countdown > 0
        job.refresh_from_db()
        assert (job.status, job.error_code, job.attempts) == (
            JobStatus.QUEUED,
            "storage_unavailable",
            1,
        )
        PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.PROCESSING, attempts=2)
    # Past the budget the ordinary rules apply: no attempts left, so it is dead-lettered.
    late = time.time() - settings.PDF_STORAGE_OUTAGE_SECONDS - 1
    assert (
        execution.job_handle_transient_error(job_id=job.job_id, error=down, outage_since=late)
        is None
    )
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "retries_exhausted")
