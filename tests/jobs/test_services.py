"""Job services: validation at submit, the worker's run, and failure decisions."""

from __future__ import annotations

import pytest

from jobs import services
from jobs.exceptions import ApplicationError
from jobs.models import DeadLetter, JobStatus, PdfJob
from reports.errors import TemplateSyntaxError
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = pytest.mark.django_db


def test_create_queues_and_enqueues_only_after_commit(
    user, django_capture_on_commit_callbacks, monkeypatch
):
    sent = []
    monkeypatch.setattr(services, "job_enqueue", lambda *, job_id: sent.append(job_id))
    with django_capture_on_commit_callbacks(execute=True):
        job, created = services.job_create(owner=user, html_template="<p>{{x}}</p>", data={"x": 1})
        assert sent == []
    assert sent == [job.job_id]
    assert created is True
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
    assert caught.value.status_code == 422


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
    import sys
    import time

    from celery import Celery

    down = Celery("down", broker="redis://127.0.0.1:9/0", set_as_current=False)
    down.conf.update(
        broker_connection_timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT,
        task_publish_retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY,
    )
    monkeypatch.setattr(sys.modules["config.celery_app"], "app", down)
    job = PdfJobFactory(owner=user)
    started = time.monotonic()
    assert services.job_enqueue(job_id=job.job_id) is False
    assert time.monotonic() - started < 3
    job.refresh_from_db()
    assert job.status == JobStatus.QUEUED
    assert job.enqueued_at is None


def test_task_ids_carry_the_job_id(user):
    job = PdfJobFactory(owner=user)
    assert services.job_id_from_task_id(services.task_id_for(job.job_id)) == str(job.job_id)
    assert services.job_id_from_task_id("some-other-task") is None
