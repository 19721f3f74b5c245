"""Job services: validation at submit, the worker's run, and failure decisions."""

from __future__ import annotations

import pytest
from django.core.files.storage import storages

from jobs import services
from jobs.exceptions import ApplicationError
from jobs.models import DeadLetter, JobStatus, PdfJob
from reports.errors import RenderError, TemplateSyntaxError
from tests.conftest import pdf_text
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = pytest.mark.django_db


def test_create_queues_and_enqueues_only_after_commit(
    user, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(services, "job_enqueue", lambda *, job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        job = services.job_create(owner=user, html_template="<p>{{x}}</p>", data={"x": 1})
        assert sent == []
    assert sent == [job.job_id]
    assert job.status == JobStatus.QUEUED
    assert job.engine == "handlebars"
    assert job.options["filename"] == "report.pdf"


def test_rolled_back_submit_enqueues_nothing(user, django_capture_on_commit_callbacks, monkeypatch):
    from django.db import transaction

    sent = []
    monkeypatch.setattr(services, "job_enqueue", lambda *, job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                services.job_create(owner=user, html_template="<p>x</p>", data={})
                raise RuntimeError("caller failed after submitting")
        except RuntimeError:
            pass
    assert sent == []
    assert not PdfJob.objects.exists()


def test_create_from_a_stored_template_uses_its_engine(user):
    template = ReportTemplateFactory(owner=user, engine="jinja2", html="<p>{{ x }}</p>")
    job = services.job_create(owner=user, template_slug=template.slug, data={"x": 1})
    assert (job.template, job.engine, job.html_template) == (template, "jinja2", "")


def test_another_users_template_is_unknown(user):
    other = ReportTemplateFactory()
    with pytest.raises(ApplicationError, match="No template with slug"):
        services.job_create(owner=user, template_slug=other.slug, data={})


def test_syntax_error_is_refused_at_submit(user):
    with pytest.raises(TemplateSyntaxError, match="line 2"):
        services.job_create(owner=user, html_template="<p>\n{{#each x}}</p>", data={})


def test_run_renders_stores_and_completes(user):
    job = PdfJobFactory(owner=user, html_template="<h1>Total {{total}}</h1>", data={"total": 42})
    done = services.job_run(job_id=job.job_id, worker="w1")
    assert done.status == JobStatus.COMPLETED
    assert done.page_count == 1
    stored = storages["reports"].open(done.pdf_file).read()
    assert done.size_bytes == len(stored)
    assert "Total 42" in pdf_text(stored)[1]


def test_rerun_overwrites_the_same_storage_key(user, report_storage):
    job = PdfJobFactory(owner=user)
    services.job_run(job_id=job.job_id)
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED)
    services.job_run(job_id=job.job_id)
    assert [p.name for p in report_storage.iterdir()] == [f"{job.job_id}.pdf"]


def test_run_of_a_job_that_is_not_queued_does_nothing(user):
    job = PdfJobFactory(owner=user, status=JobStatus.CANCELLED)
    assert services.job_run(job_id=job.job_id) is None
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_template_error_fails_the_job_with_a_readable_message(user):
    job = PdfJobFactory(owner=user, html_template="<p>{{#if a}}</p>{{/each}}")
    failed = services.job_run(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "template_syntax"
    assert "if doesn't match each" in failed.error


def test_transient_error_schedules_a_retry_then_dead_letters(user, settings):
    settings.PDF_MAX_RETRIES = 1
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    countdown = services.job_handle_transient_error(
        job_id=job.job_id, error=OSError("disk full"), retries=0
    )
    job.refresh_from_db()
    assert countdown is not None
    assert 0 < countdown <= settings.PDF_RETRY_BACKOFF_MAX_SECONDS
    assert job.status == JobStatus.QUEUED
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.PROCESSING, attempts=2)
    assert (
        services.job_handle_transient_error(
            job_id=job.job_id, error=OSError("disk full"), retries=1, traceback="tb"
        )
        is None
    )
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED
    assert job.error_code == "retries_exhausted"
    letter = DeadLetter.objects.get(job=job)
    assert (letter.error, letter.attempts, letter.traceback) == ("OSError: disk full", 2, "tb")


def test_backoff_grows_and_is_capped(settings):
    settings.PDF_RETRY_BACKOFF_SECONDS = 2
    settings.PDF_RETRY_BACKOFF_MAX_SECONDS = 20
    assert 1 <= services.retry_countdown(retries=0) <= 2
    assert 8 <= services.retry_countdown(retries=3) <= 16
    assert 10 <= services.retry_countdown(retries=10) <= 20


def test_dead_letter_redrive_requeues_and_counts(
    user, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(services, "job_enqueue", lambda *, job_id: sent.append(job_id))
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED)
    letter = DeadLetter.objects.create(job=job, error="x")
    with django_capture_on_commit_callbacks(execute=True):
        assert services.dead_letter_redrive(dead_letter=letter).status == JobStatus.QUEUED
    letter.refresh_from_db()
    assert letter.retry_count == 1
    assert letter.last_retry_at is not None
    assert sent == [job.job_id]


# Stored templates: the job records the version it renders, data is checked at submit.

PRICE_SCHEMA = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "items": {"type": "object", "properties": {"price": {"type": "number"}}},
        }
    },
}


def _stored(user, **fields):
    from reports.services import template_create

    base = {"name": "Prices", "slug": "prices", "schema": PRICE_SCHEMA}
    base["html"] = "<p>{{#each items}}P{{price}} {{/each}}</p>"
    return template_create(owner=user, **(base | fields))


def test_job_records_the_version_and_a_redrive_renders_it_after_an_edit(user):
    from reports.services import template_update

    template = _stored(user)
    job = services.job_create(owner=user, template_slug="prices", data={"items": [{"price": 7}]})
    assert job.template_version.number == 1
    template_update(template=template, by=user, html="<p>EDITED</p>")
    done = services.job_run(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    text = pdf_text(storages["reports"].open(done.pdf_file).read())[1]
    assert "P7" in text
    assert "EDITED" not in text
    later = services.job_create(owner=user, template_slug="prices", data={})
    assert later.template_version.number == 2


def test_data_failing_the_schema_is_refused_before_anything_is_queued(user):
    _stored(user)
    items = [{"price": 1}, {"price": 2}, {"price": 3}, {"price": "12.50"}]
    with pytest.raises(RenderError) as caught:
        services.job_create(owner=user, template_slug="prices", data={"items": items})
    assert caught.value.message == "items[3].price: expected number"
    assert PdfJob.objects.count() == 0


def test_archived_template_takes_no_new_jobs(user):
    from reports.services import template_archive

    template_archive(template=_stored(user))
    with pytest.raises(ApplicationError, match="archived"):
        services.job_create(owner=user, template_slug="prices", data={})


def test_data_nested_past_the_limit_is_refused(user, settings):
    settings.PDF_MAX_NESTING_DEPTH = 50
    deep: dict = {}
    node = deep
    for _ in range(400):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(ApplicationError, match="deeper than 50 levels"):
        services.job_create(owner=user, html_template="<p>x</p>", data=deep)


def test_a_refused_resource_is_dropped_and_recorded_on_the_completed_job(user):
    job = PdfJobFactory(
        owner=user, html_template='<p>Still here</p><img src="/etc/passwd">', data={}
    )
    done = services.job_run(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert any("/etc/passwd" in warning for warning in done.warnings)
    assert "Still here" in pdf_text(storages["reports"].open(done.pdf_file).read())[1]


def test_a_limit_fails_the_job_permanently_with_its_message(user, settings):
    settings.PDF_MAX_PAGES = 3
    job = PdfJobFactory(owner=user, html_template="<p>x</p><pdf:nextpage />" * 10, data={})
    failed = services.job_run(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "limit_exceeded"
    assert failed.error == "The report has more than 3 pages; the limit is 3."
    assert failed.attempts == 1
