"""Running a job: claim or take over, render, store, complete; what each failure means."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest
from django.core.files.storage import storages
from django.utils import timezone

from jobs import services, transitions
from jobs.models import DeadLetter, JobStatus, PdfJob
from jobs.worker import execution
from jobs.worker.execution import Defer
from jobs.worker.liveness import attempt_identity
from rendering.office import office_source
from tests.conftest import pdf_text
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_execute_renders_stores_and_completes(user):
    job = PdfJobFactory(owner=user, html_template="<h1>Total {{total}}</h1>", data={"total": 42})
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.page_count == 1
    assert done.worker == attempt_identity()
    stored = storages["reports"].open(done.pdf_file).read()
    assert done.size_bytes == len(stored)
    assert "Total 42" in pdf_text(stored)[1]


def test_rerun_overwrites_the_same_storage_key(user, report_storage):
    job = PdfJobFactory(owner=user)
    execution.job_execute(job_id=job.job_id)
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED)
    execution.job_execute(job_id=job.job_id)
    assert [p.name for p in report_storage.iterdir()] == [f"{job.job_id}.pdf"]


def test_execute_of_a_finished_job_does_nothing(user):
    job = PdfJobFactory(owner=user, status=JobStatus.CANCELLED)
    assert execution.job_execute(job_id=job.job_id) is None
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED


def test_template_error_fails_at_once_without_a_dead_letter(user):
    job = PdfJobFactory(owner=user, html_template="<p>{{#if a}}</p>{{/each}}")
    failed = execution.job_execute(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "template_syntax"
    assert "if doesn't match each" in failed.error
    assert failed.attempts == 1
    assert not DeadLetter.objects.exists()


def test_redelivery_while_the_attempt_is_alive_is_deferred(user):
    job = PdfJobFactory(owner=user)
    transitions.job_claim(job_id=job.job_id, worker=attempt_identity())  # this process: alive
    outcome = execution.job_start(job_id=job.job_id, worker="elsewhere:1")
    assert isinstance(outcome, Defer)
    job.refresh_from_db()
    assert (job.attempts, job.worker) == (1, attempt_identity())


def test_redelivery_after_the_worker_died_takes_over(user):
    job = PdfJobFactory(owner=user)
    dead = attempt_identity().replace(f":{os.getpid()}:", ":999999999:")  # no such pid here
    transitions.job_claim(job_id=job.job_id, worker=dead)
    taken = execution.job_start(job_id=job.job_id, worker="new:1")
    assert taken.status == JobStatus.PROCESSING
    assert (taken.attempts, taken.worker) == (2, "new:1")
    # a second redelivery of the dead attempt's message cannot take over again
    assert isinstance(execution.job_start(job_id=job.job_id, worker="third:1"), Defer)


def test_stale_heartbeat_on_another_host_is_taken_over(user, settings):
    job = PdfJobFactory(owner=user)
    transitions.job_claim(job_id=job.job_id, worker="other-host:42")
    stale = timezone.now() - timedelta(seconds=settings.PDF_HEARTBEAT_STALE_SECONDS + 1)
    PdfJob.objects.filter(pk=job.pk).update(heartbeat_at=stale)
    assert execution.job_start(job_id=job.job_id, worker="me:1").worker == "me:1"


def test_a_job_that_keeps_killing_its_worker_becomes_poison(user, settings):
    settings.PDF_MAX_ATTEMPTS = 2
    job = PdfJobFactory(
        owner=user,
        status=JobStatus.PROCESSING,
        attempts=2,
        worker="gone:1",
        heartbeat_at=timezone.now() - timedelta(hours=1),
    )
    assert execution.job_start(job_id=job.job_id, worker="me:1") is None
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "worker_lost")
    assert "poison" in job.error
    letter = DeadLetter.objects.get(job=job)
    assert letter.permanent is True


def test_cancelled_while_rendering_discards_the_result(user, report_storage):
    job = PdfJobFactory(owner=user)
    original = execution.report_layout  # the layout step of the render

    def render_then_cancel(*args, **kwargs):
        rendered = original(*args, **kwargs)
        transitions.job_mark_cancelled(job_id=job.job_id)
        return rendered

    execution.report_layout = render_then_cancel
    try:
        assert execution.job_execute(job_id=job.job_id) is None
    finally:
        execution.report_layout = original
    job.refresh_from_db()
    assert job.status == JobStatus.CANCELLED
    assert list(report_storage.iterdir()) == []


def test_transient_error_retries_with_backoff_then_dead_letters(user, settings):
    settings.PDF_MAX_RETRIES = 1
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    countdown = execution.job_handle_transient_error(job_id=job.job_id, error=OSError("disk full"))
    job.refresh_from_db()
    assert 0 < countdown <= settings.PDF_RETRY_BACKOFF_MAX_SECONDS
    assert (job.status, job.error_code) == (JobStatus.QUEUED, "transient")
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.PROCESSING, attempts=2)
    assert (
        execution.job_handle_transient_error(
            job_id=job.job_id, error=OSError("disk full"), traceback="tb"
        )
        is None
    )
    job.refresh_from_db()
    assert (job.status, job.error_code) == (JobStatus.FAILED, "retries_exhausted")
    letter = DeadLetter.objects.get(job=job)
    assert (letter.error, letter.attempts, letter.traceback, letter.permanent) == (
        "OSError: disk full",
        2,
        "tb",
        False,
    )


def test_failing_again_after_a_redrive_updates_the_same_dead_letter(user, settings):
    settings.PDF_MAX_RETRIES = 0
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    execution.job_handle_transient_error(job_id=job.job_id, error=OSError("one"))
    DeadLetter.objects.filter(job=job).update(retry_count=1)
    transitions.job_requeue_failed(job_id=job.job_id)
    transitions.job_claim(job_id=job.job_id, worker="w:1")
    execution.job_handle_transient_error(job_id=job.job_id, error=OSError("two"))
    letter = DeadLetter.objects.get(job=job)
    assert (letter.error, letter.retry_count) == ("OSError: two", 1)


def test_timeout_is_permanent_and_says_so(user):
    job = PdfJobFactory(owner=user, status=JobStatus.PROCESSING, attempts=1)
    failed = execution.job_fail_timeout(job_id=job.job_id, limit="hard")
    assert (failed.status, failed.error_code) == (JobStatus.FAILED, "timeout")
    assert failed.error.startswith("timeout:")
    assert DeadLetter.objects.get(job=job).permanent is True


def test_backoff_grows_and_is_capped(settings):
    settings.PDF_RETRY_BACKOFF_SECONDS = 2
    settings.PDF_RETRY_BACKOFF_MAX_SECONDS = 20
    assert 1 <= execution.retry_countdown(attempt=1) <= 2
    assert 8 <= execution.retry_countdown(attempt=4) <= 16
    assert 10 <= execution.retry_countdown(attempt=11) <= 20


# Stored template versions, refused resources and limits, as the worker sees them.


def test_the_recorded_version_renders_after_an_edit_and_on_redrive(user):
    from reports.services import template_create, template_update

    template = template_create(
        owner=user, name="P", slug="prices", html="<p>{{#each items}}P{{price}} {{/each}}</p>"
    )
    job, _ = services.job_create(owner=user, template_slug="prices", data={"items": [{"price": 7}]})
    assert job.template_version.number == 1
    template_update(template=template, by=user, html="<p>EDITED</p>")
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    text = pdf_text(storages["reports"].open(done.pdf_file).read())[1]
    assert "P7" in text
    assert "EDITED" not in text
    # A re-drive renders the recorded version again, not the edited template.
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.FAILED)
    services.job_redrive(job_id=job.job_id)
    again = execution.job_execute(job_id=job.job_id)
    assert "P7" in pdf_text(storages["reports"].open(again.pdf_file).read())[1]


def test_a_refused_resource_is_dropped_and_recorded_on_the_completed_job(user):
    job = PdfJobFactory(
        owner=user, html_template='<p>Still here</p><img src="/etc/passwd">', data={}
    )
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert any("/etc/passwd" in warning for warning in done.warnings)
    assert "Still here" in pdf_text(storages["reports"].open(done.pdf_file).read())[1]


def test_a_limit_fails_the_job_permanently_with_its_message(user, settings):
    settings.PDF_MAX_PAGES = 3
    job = PdfJobFactory(owner=user, html_template="<p>x</p><pdf:nextpage />" * 10, data={})
    failed = execution.job_execute(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "limit_exceeded"
    assert failed.error == "The report has more than 3 pages; the limit is 3."
    assert failed.attempts == 1


def test_a_job_faster_than_the_progress_interval_writes_only_claim_and_completion(user, settings):
    settings.PDF_PROGRESS_INTERVAL_MS = 60_000
    job = PdfJobFactory(owner=user, html_template="<h1>Total {{total}}</h1>", data={"total": 1})
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.event_seq == job.event_seq + 2  # claim and completion, no progress between


def test_progress_writes_every_stage_when_the_interval_is_zero(user, settings):
    settings.PDF_PROGRESS_INTERVAL_MS = 0
    job = PdfJobFactory(owner=user, html_template="<h1>Total {{total}}</h1>", data={"total": 1})
    done = execution.job_execute(job_id=job.job_id)
    # claim, rendering_template, rendering_charts, laying_out, finishing, storing, complete
    assert done.event_seq == job.event_seq + 7


def test_a_job_shorter_than_the_first_progress_delay_writes_only_claim_and_completion(
    user, settings
):
    # Coalescing by the first delay alone: the interval would let every stage through.
    settings.PDF_PROGRESS_INTERVAL_MS = 1
    settings.PDF_PROGRESS_FIRST_MS = 60_000
    job = PdfJobFactory(owner=user, html_template="<h1>Total {{total}}</h1>", data={"total": 1})
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.event_seq == job.event_seq + 2


def test_a_job_running_past_the_first_progress_delay_reports_its_later_stages(user, settings):
    settings.PDF_FAULT_INJECTION = True
    settings.PDF_PROGRESS_INTERVAL_MS = 1
    settings.PDF_PROGRESS_FIRST_MS = 200
    job = PdfJobFactory(
        owner=user,
        html_template="<h1>Total {{total}}</h1>",
        data={"total": 1, "__fault__": {"sleep": 0.3}},  # held before the render starts
    )
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    # claim, the stages after the delay (those within a millisecond of the one before
    # coalesced), completion
    assert done.event_seq >= job.event_seq + 3


def test_the_progress_throttle_waits_the_first_delay_then_the_interval():
    from jobs.worker.progress import ProgressThrottle

    throttle = ProgressThrottle(interval_ms=50, first_ms=400)
    assert not throttle.due()
    time.sleep(0.1)
    assert not throttle.due()  # past the interval, not past the first delay
    time.sleep(0.35)
    assert throttle.due()
    assert not throttle.due()  # the interval restarts at each write
    time.sleep(0.06)
    assert throttle.due()
    assert ProgressThrottle(interval_ms=0, first_ms=60_000).due()  # 0: nothing coalesced


def test_a_job_slower_than_pdf_slow_job_seconds_is_logged_with_its_timings(user, settings, caplog):
    settings.PDF_SLOW_JOB_SECONDS = 60
    slow = PdfJobFactory(owner=user)
    PdfJob.objects.filter(pk=slow.pk).update(created_at=timezone.now() - timedelta(seconds=95))
    quick = PdfJobFactory(owner=user)
    with caplog.at_level("WARNING", logger="jobs.worker.completion"):
        execution.job_execute(job_id=slow.job_id)
        execution.job_execute(job_id=quick.job_id)
    slow_logs = [r for r in caplog.records if r.getMessage().startswith("slow job")]
    assert len(slow_logs) == 1
    message = slow_logs[0].getMessage()
    assert str(slow.job_id) in message
    assert "PDF_SLOW_JOB_SECONDS=60" in message
    assert " s queued, " in message
    assert " s rendering, 1 attempt(s), 1 page(s)" in message
    assert slow_logs[0].queued_seconds >= 94
    assert slow_logs[0].total_seconds >= 95


# The worker's own database round trips for a one-page job from a stored template, every
# stage written (interval 0): fairness check, claim, the version and its template, the
# five stages, completion, the owner-mail check. Each transition was BEGIN, UPDATE,
# SELECT, COMMIT and each event read the template again: 40 queries before issue 12 (b).
# The fairness check runs in the claim's statement, and on PostgreSQL the claim reads the
# template and the completion the owner's mail choices in theirs (jobs.returning): 9.
ONE_PAGE_JOB_QUERIES = {"postgresql": 9}
ONE_PAGE_JOB_QUERIES_ELSEWHERE = 11


@pytest.mark.django_db(transaction=True)
def test_a_one_page_job_takes_few_queries(settings, sent_tasks):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from reports.services import template_record_version
    from tests.factories import ReportTemplateFactory, UserFactory

    settings.PDF_PROGRESS_INTERVAL_MS = 0
    owner = UserFactory(email="owner@example.com")
    template = ReportTemplateFactory(owner=owner)
    version = template_record_version(template=template)
    job = PdfJobFactory(
        owner=owner, template=template, template_version=version, data=template.sample_data
    )
    with CaptureQueriesContext(connection) as queries:
        done = execution.job_execute(job_id=job.job_id)
    assert done is not None
    assert done.status == JobStatus.COMPLETED
    most = ONE_PAGE_JOB_QUERIES.get(connection.vendor, ONE_PAGE_JOB_QUERIES_ELSEWHERE)
    assert len(queries) <= most, "\n".join(q["sql"] for q in queries)
    # Autocommit, as on a worker: the events ran and read the template once, no more (on
    # PostgreSQL in the claim's own statement).
    template_reads = [q for q in queries if '"reports_reporttemplate"' in q["sql"]]
    assert len(template_reads) == 1


# What the worker sends for a one-page job as the pipeline bench submits them (a stored
# template's version, an API key, the default progress settings, nobody following), the
# version already read by an earlier job of this process: the fair-dispatch check, the
# claim, the template's name for the claim's event, the completion, the owner-mail check;
# and one EVAL an event (claim, completion). Before issue 38 part 2: 7 statements (a
# second fairness query, the version, a progress write) and 12 Redis commands. The
# fair-dispatch check runs in the claim's statement; on PostgreSQL that statement reads the
# template too and the completion's the owner's mail choices (jobs.returning): 2, one
# transaction each (autocommit), 4 elsewhere.
ONE_PAGE_JOB_STATEMENTS = {"postgresql": 2}
ONE_PAGE_JOB_STATEMENTS_ELSEWHERE = 4
ONE_PAGE_JOB_REDIS = {"EVAL": 2}


@pytest.mark.django_db(transaction=True)
def test_a_one_page_job_sends_few_statements_and_redis_commands():
    import redis
    from channels.layers import get_channel_layer
    from django.conf import settings
    from django.db import connection

    from accounts.services import api_key_create
    from jobs.live.events import workspace_group
    from reports.services import template_record_version
    from tests.bench.round_trips import round_trips_counted
    from tests.factories import ReportTemplateFactory, UserFactory

    owner = UserFactory()
    template = ReportTemplateFactory(owner=owner)
    version = template_record_version(template=template)
    key, _ = api_key_create(user=owner)
    first, second = (
        PdfJobFactory(
            owner=owner,
            template=template,
            template_version=version,
            api_key=key,
            data=template.sample_data,
        )
        for _ in range(2)
    )
    PdfJobFactory(owner=owner, status=JobStatus.PROCESSING, worker="w:other", attempts=1)
    # Nobody follows the workspace: a membership another test left in Redis for a
    # workspace of the same id (ids are reused after a rollback or a flush) sent the
    # events to it, a group send counted as this job's.
    layer = get_channel_layer()
    redis.Redis.from_url(settings.REDIS_URL).delete(
        layer._group_key(workspace_group(second.workspace_id))
    )
    assert execution.job_execute(job_id=first.job_id).status == JobStatus.COMPLETED
    with round_trips_counted() as counted:
        done = execution.job_execute(job_id=second.job_id)
    assert done.status == JobStatus.COMPLETED
    assert done.event_seq == second.event_seq + 2  # claim and completion: no progress
    most = ONE_PAGE_JOB_STATEMENTS.get(connection.vendor, ONE_PAGE_JOB_STATEMENTS_ELSEWHERE)
    assert len(counted.sql) <= most, "\n".join(counted.sql)
    assert not [sql for sql in counted.sql if '"reports_reporttemplateversion"' in sql]
    assert dict(counted.redis) == ONE_PAGE_JOB_REDIS


def test_a_job_of_a_version_rendered_before_renders_that_version(user):
    from reports.services import template_create, template_update

    template = template_create(owner=user, name="T", slug="t", html="<p>First {{n}}</p>")
    first = template.versions.get()
    jobs = [PdfJobFactory(owner=user, template=template, template_version=first, data={"n": 1})]
    template_update(template=template, by=user, html="<p>Second {{n}}</p>")
    second = template.versions.order_by("-number").first()
    for version, n in ((second, 2), (first, 3)):
        jobs.append(
            PdfJobFactory(owner=user, template=template, template_version=version, data={"n": n})
        )
    stored = storages["reports"]
    texts = [
        pdf_text(stored.open(execution.job_execute(job_id=job.job_id).pdf_file).read())[1]
        for job in jobs
    ]
    assert ["First 1" in texts[0], "Second 2" in texts[1], "First 3" in texts[2]] == [True] * 3


def test_a_job_renders_the_partial_versions_it_recorded_not_ones_published_later(api, user):
    from reports.services import template_create, template_update

    terms = template_create(owner=user, name="T", slug="terms", html="<p>Within 30 days.</p>")
    template_create(owner=user, name="I", slug="inv", html="<h1>Invoice {{n}}</h1>{{> terms}}")
    answer = api.post(
        "/api/v1/generate-pdf-async", {"template": "inv", "data": {"n": "A-7"}}, format="json"
    )
    assert answer.status_code == 202
    template_update(template=terms, by=user, html="<p>Within 60 days.</p>")  # after the submit
    done = execution.job_execute(job_id=answer.json()["job_id"])
    assert done.status == JobStatus.COMPLETED
    download = api.get(api.get(answer["Location"]).json()["pdf_url"])
    _, text = pdf_text(b"".join(download.streaming_content))
    assert "Invoice A-7" in text
    assert "Within 30 days." in text
    assert "60" not in text


def test_a_job_without_a_record_includes_the_partials_published_now(user):
    from reports.services import template_create

    template_create(owner=user, name="T", slug="terms", html="<p>Net 14</p>")
    job = PdfJobFactory(owner=user, html_template="<h1>Hi</h1>{{> terms}}", data={})
    assert job.partial_versions == {}
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    assert "Net 14" in pdf_text(storages["reports"].open(done.pdf_file).read())[1]


def test_a_partial_deleted_after_the_submit_fails_the_job_naming_it(user):
    from reports.services import template_create

    terms = template_create(owner=user, name="T", slug="terms", html="<p>Net 14</p>")
    job, _ = services.job_create(owner=user, html_template="{{> terms}}", data={})
    terms.delete()
    failed = execution.job_execute(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert "'terms' this job includes has been deleted" in failed.error


def test_an_office_job_on_a_worker_without_libreoffice_fails_naming_what_to_install(
    user, settings, tmp_path
):
    settings.OFFICE_PATH = str(tmp_path / "no-soffice")
    job = PdfJobFactory(
        owner=user, engine="office", html_template=office_source([("a.txt", b"hello")])
    )
    failed = execution.job_execute(job_id=job.job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.attempts == 1  # no retry: another attempt here would fail the same way
    assert "apt-get install libreoffice-writer-nogui" in failed.error
    assert "internal error" not in failed.error
