"""Job services: validation at submit, the worker's run, and failure decisions."""

from __future__ import annotations

import pytest

from jobs import dead_letters, dispatch, services
from jobs.models import DeadLetter, JobStatus, PdfJob
from rendering.errors import ApplicationError, RenderError, TemplateSyntaxError
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = pytest.mark.django_db


def test_create_queues_and_enqueues_only_after_commit(
    user, django_capture_on_commit_callbacks, sent_tasks
):
    with django_capture_on_commit_callbacks(execute=True):
        job, created = services.job_create(owner=user, html_template="<p>{{x}}</p>", data={"x": 1})
        assert sent_tasks.ids("job_enqueue") == []
    assert sent_tasks.ids("job_enqueue") == [job.job_id]
    assert created is True
    assert job.status == JobStatus.QUEUED
    assert job.engine == "handlebars"
    assert "filename" not in job.options  # the download is named by the job
    # Stamped with the insert: no UPDATE after the publish, and the reconciler's clock runs.
    assert job.enqueued_at is not None


def test_rolled_back_submit_enqueues_nothing(user, django_capture_on_commit_callbacks, sent_tasks):
    from django.db import transaction

    with django_capture_on_commit_callbacks(execute=True):
        try:
            with transaction.atomic():
                services.job_create(owner=user, html_template="<p>x</p>", data={})
                raise RuntimeError("caller failed after submitting")
        except RuntimeError:
            pass
    assert sent_tasks.ids("job_enqueue") == []
    assert not PdfJob.objects.exists()


def test_create_from_a_stored_template_uses_its_engine(user):
    template = ReportTemplateFactory(owner=user, engine="jinja2", html="<p>{{ x }}</p>")
    job, _ = services.job_create(owner=user, template_slug=template.slug, data={"x": 1})
    assert (job.template, job.engine, job.html_template) == (template, "jinja2", "")


def test_another_users_template_is_unknown(user):
    other = ReportTemplateFactory()
    with pytest.raises(ApplicationError, match="No template with slug"):
        services.job_create(owner=user, template_slug=other.slug, data={})


def test_syntax_error_is_refused_at_submit(user):
    with pytest.raises(TemplateSyntaxError, match="line 2"):
        services.job_create(owner=user, html_template="<p>\n{{#each x}}</p>", data={})


def test_dead_letter_redrive_requeues_and_counts(
    user, django_capture_on_commit_callbacks, sent_tasks
):
    job = PdfJobFactory(owner=user, status=JobStatus.FAILED)
    letter = DeadLetter.objects.create(job=job, error="x")
    with django_capture_on_commit_callbacks(execute=True):
        assert dead_letters.dead_letter_redrive(dead_letter=letter).status == JobStatus.QUEUED
    letter.refresh_from_db()
    assert letter.retry_count == 1
    assert letter.last_retry_at is not None
    assert sent_tasks.ids("job_enqueue") == [job.job_id]


def test_same_idempotency_key_and_body_returns_the_same_job(user):
    first, created = services.job_create(
        owner=user, html_template="<p>a</p>", data={"n": 1}, idempotency_key="order-42"
    )
    again, created_again = services.job_create(
        owner=user, html_template="<p>a</p>", data={"n": 1}, idempotency_key="order-42"
    )
    assert (created, created_again) == (True, False)
    assert again.pk == first.pk
    assert PdfJob.objects.count() == 1


def test_same_idempotency_key_with_another_body_is_refused(user):
    services.job_create(owner=user, html_template="<p>a</p>", data={"n": 1}, idempotency_key="k")
    with pytest.raises(ApplicationError, match="already used with a different request") as caught:
        services.job_create(
            owner=user, html_template="<p>a</p>", data={"n": 2}, idempotency_key="k"
        )
    assert caught.value.http_status == 422


def test_idempotency_keys_are_per_caller(user):
    from tests.factories import UserFactory

    services.job_create(owner=user, html_template="<p>a</p>", data={}, idempotency_key="k")
    _, created = services.job_create(
        owner=UserFactory(), html_template="<p>a</p>", data={}, idempotency_key="k"
    )
    assert created is True


def test_enqueue_with_the_broker_down_keeps_the_job_queued_and_returns_fast(
    user, settings, monkeypatch
):
    import time

    from celery import Celery

    down = Celery("down", broker="redis://127.0.0.1:9/0", set_as_current=False)
    down.conf.update(
        broker_connection_timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT,
        task_publish_retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY,
    )
    monkeypatch.setattr(dispatch, "app", down)
    job = PdfJobFactory(owner=user)
    started = time.monotonic()
    assert dispatch.job_enqueue(job_id=job.job_id) is False
    assert time.monotonic() - started < 3
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.enqueued_at is None


def test_task_ids_carry_the_job_id(user):
    job = PdfJobFactory(owner=user)
    assert dispatch.job_id_from_task_id(dispatch.task_id_for(job.job_id)) == str(job.job_id)
    assert dispatch.job_id_from_task_id("some-other-task") is None


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


def test_job_records_the_version_it_was_submitted_against(user):
    from reports.services import template_update

    template = _stored(user)
    job, _ = services.job_create(owner=user, template_slug="prices", data={"items": []})
    template_update(template=template, by=user, html="<p>EDITED</p>")
    later, _ = services.job_create(owner=user, template_slug="prices", data={})
    assert (job.template_version.number, later.template_version.number) == (1, 2)


def test_a_submit_by_slug_reads_its_template_and_latest_version_in_one_query(user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from reports.services import template_create, template_update

    template = template_create(owner=user, name="Mine", slug="mine", html="<p>v1 {{x}}</p>")
    template_update(template=template, by=user, html="<p>v2 {{x}}</p>")
    with CaptureQueriesContext(connection) as queries:
        job, _ = services.job_create(owner=user, template_slug="mine", data={"x": 1})
    assert job.template_version.number == 2
    reads = [q["sql"] for q in queries.captured_queries if '"reports_' in q["sql"]]
    assert len(reads) == 1, reads


def test_my_template_without_versions_still_shadows_a_built_in_with_versions(user):
    from reports.services import template_create

    template_create(owner=None, name="Built-in", slug="shared", html="<p>built-in</p>")
    mine = ReportTemplateFactory(owner=user, slug="shared", html="<p>mine {{x}}</p>")
    assert not mine.versions.exists()  # a row saved before versioning
    job, _ = services.job_create(owner=user, template_slug="shared", data={"x": 1})
    assert job.template == mine
    assert job.template_version.html == "<p>mine {{x}}</p>"  # its first version, made now


def test_submit_records_the_version_of_every_template_it_includes(user):
    from reports.services import template_create

    small = template_create(owner=user, name="S", slug="small", html="<small>s</small>")
    terms = template_create(owner=user, name="T", slug="terms", html="{{> small}}<p>terms</p>")
    template_create(owner=user, name="I", slug="inv", html="<h1>{{n}}</h1>{{> terms}}")
    job, _ = services.job_create(owner=user, template_slug="inv", data={"n": 1})
    assert job.partial_versions == {
        "small": small.published_version_id,
        "terms": terms.published_version_id,
    }
    inline, _ = services.job_create(owner=user, html_template="{{> small}}", data={})
    assert inline.partial_versions == {"small": small.published_version_id}


def test_submit_including_another_workspaces_template_is_a_400_naming_the_slug(api):
    from reports.services import template_create
    from tests.factories import UserFactory

    template_create(owner=UserFactory(), name="T", slug="terms", html="<p>theirs</p>")
    answer = api.post(
        "/api/v1/generate-pdf-async",
        {"html_template": "<p>{{> terms}}</p>", "data": {}},
        format="json",
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "template_syntax"
    assert "no template 'terms' to include" in answer.json()["error"]
    assert not PdfJob.objects.exists()
