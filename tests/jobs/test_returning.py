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


def _owner_choices():
    from accounts.notifications import job_mail_choices

    return job_mail_choices()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's joined statement")
def test_related_rows_and_joined_values_come_in_the_same_statement():
    from jobs.returning import Joined
    from tests.factories import ReportTemplateFactory

    template = ReportTemplateFactory(sample_data={"n": [1, 2]})
    job = PdfJobFactory(owner=template.owner, template=template, status=JobStatus.QUEUED)
    rows = PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.QUEUED)
    choices = Joined(name="choices", on="owner", query=_owner_choices)
    with CaptureQueriesContext(connection) as queries:
        updated = update_returning(
            rows, related=("template",), joined=(choices,), status=JobStatus.PROCESSING
        )
        assert updated is not None
        fresh = type(template).objects.get(pk=template.pk)
        # Loaded as the ORM loads it (JSON decoded, times aware), and no query when used.
        assert {f.attname: getattr(updated.template, f.attname) for f in fresh._meta.fields} == {
            f.attname: getattr(fresh, f.attname) for f in fresh._meta.fields
        }
    assert len(queries) == 2  # the update, and the comparison's own read
    assert updated.status == JobStatus.PROCESSING
    assert updated.data == job.data
    assert updated.choices == (template.owner.email, None, None)  # no choices row: None
    assert not hasattr(updated, "_j0_0")
    assert not hasattr(updated, "_r0_0")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's joined statement")
def test_no_related_row_is_cached_as_none_and_no_joined_row_is_none():
    from jobs.returning import Joined

    job = PdfJobFactory(template=None, html_template="<p>x</p>", status=JobStatus.QUEUED)
    type(job.owner).objects.filter(pk=job.owner_id).update(is_active=False)
    rows = PdfJob.objects.filter(job_id=job.job_id)
    choices = Joined(name="choices", on="owner", query=_owner_choices)
    updated = update_returning(rows, related=("template",), joined=(choices,), stage="x")
    assert updated is not None
    with CaptureQueriesContext(connection) as queries:
        assert updated.template is None
    assert len(queries) == 0
    assert updated.choices is None  # an inactive person: no row
    assert update_returning(rows.filter(stage="y"), related=("template",), stage="z") is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's joined statement")
def test_the_statements_fixed_text_is_built_once_a_process():
    from jobs.returning import Joined
    from tests.factories import ReportTemplateFactory

    compiled: list[int] = []

    def counted_choices():
        compiled.append(1)
        return _owner_choices()

    template = ReportTemplateFactory()
    choices = Joined(name="choices", on="owner", query=counted_choices)
    jobs = [PdfJobFactory(owner=template.owner, template=template) for _ in range(3)]
    statements = []
    for job in jobs:
        rows = PdfJob.objects.filter(job_id=job.job_id)
        with CaptureQueriesContext(connection) as queries:
            updated = update_returning(rows, related=("template",), joined=(choices,), stage="x")
        statements.append(queries[0]["sql"].split(" SELECT ", 1)[1])
        assert updated is not None
        assert updated.template == template
        assert updated.choices == (template.owner.email, None, None)
    assert compiled == [1]  # the owner's mail choices compiled for the first statement only
    assert statements[1] == statements[0]  # the same text after the job's own values
