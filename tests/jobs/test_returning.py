"""UPDATE ... RETURNING: the changed row back in one statement, or None."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import F
from django.test.utils import CaptureQueriesContext

from jobs.models import JobStatus, PdfJob
from jobs.returning import update_returning
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_returns_the_row_as_updated_in_one_statement():
    job = PdfJobFactory(status=JobStatus.PROCESSING, progress=10)
    rows = PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.PROCESSING)
    with CaptureQueriesContext(connection) as queries:
        updated = update_returning(rows, progress=F("progress") + 5, stage="laying_out")
    assert len(queries) == 1
    assert updated is not None
    assert (updated.pk, updated.progress, updated.stage) == (job.pk, 15, "laying_out")
    assert updated.data == job.data  # JSON comes back decoded, like any loaded row
    job.refresh_from_db()
    assert (job.progress, job.stage) == (15, "laying_out")


def test_no_matching_row_changes_nothing_and_returns_none():
    job = PdfJobFactory(status=JobStatus.QUEUED, stage="queued")
    rows = PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.PROCESSING)
    assert update_returning(rows, stage="laying_out") is None
    job.refresh_from_db()
    assert job.stage == "queued"


def test_a_backend_without_returning_gets_an_update_then_a_select(monkeypatch):
    job = PdfJobFactory(status=JobStatus.PROCESSING)
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    rows = PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.PROCESSING)
    updated = update_returning(rows, status=JobStatus.COMPLETED)
    assert updated is not None
    assert (updated.pk, updated.status) == (job.pk, JobStatus.COMPLETED)
    assert update_returning(rows, stage="x") is None  # no longer processing
