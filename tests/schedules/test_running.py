"""A run carried out: stored or fetched data, an ordinary job submitted with it, and every
way the data can fail (slow, too large, not JSON, private, against the schema) kept as the
run's failure, not raised."""

from __future__ import annotations

import json

import pytest

from jobs.models import PdfJob
from reports.services import template_create
from schedules import services
from schedules.hooks import schedule_job_finished
from schedules.models import RunOutcome, ScheduleRun
from schedules.running import schedule_run_start
from tests.factories import UserFactory
from tests.schedules.data_server import DataServer
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner():
    user = UserFactory(username="runner")
    template_create(
        owner=user,
        workspace=workspace_personal(user=user),
        name="Daily",
        slug="daily",
        html="<h1>{{title}}</h1>",
        schema={"type": "object", "required": ["title"]},
    )
    return user


@pytest.fixture(autouse=True)
def quiet_broker(sent_tasks):
    return sent_tasks


@pytest.fixture
def server():
    servers: list[DataServer] = []

    def make(body: bytes, **kwargs: object) -> DataServer:
        servers.append(DataServer(body, **kwargs))  # type: ignore[arg-type]
        return servers[-1]

    yield make
    for one in servers:
        one.close()


def _run(owner, **fields) -> ScheduleRun:
    body = {"template": "daily", "cron": "0 8 * * *", **fields}
    schedule = services.schedule_create(
        workspace=workspace_personal(user=owner), created_by=owner, fields=body
    )
    run = services.schedule_run_now(schedule=schedule)
    schedule_run_start(run_id=run.run_id)
    run.refresh_from_db()
    return run


def test_stored_data_becomes_an_ordinary_job_of_the_workspace(owner):
    run = _run(owner, data={"title": "Stored"})
    assert run.outcome == RunOutcome.RENDERING
    job = PdfJob.objects.get(pk=run.job_id)
    assert (job.data, job.template.slug, job.owner) == ({"title": "Stored"}, "daily", owner)
    assert job.workspace == workspace_personal(user=owner)
    assert job.batch_id == run.run_id  # GET jobs?batch_id=<run_id>
    # A second message for the same run finds it submitted: still one job.
    schedule_run_start(run_id=run.run_id)
    assert PdfJob.objects.count() == 1


def test_a_data_url_is_fetched_at_run_time(owner, server):
    data = server(json.dumps({"title": "Fetched"}).encode())
    run = _run(owner, data_url=data.url)
    assert run.outcome == RunOutcome.RENDERING
    assert PdfJob.objects.get(pk=run.job_id).data == {"title": "Fetched"}
    assert data.hits == 1


@pytest.mark.parametrize(
    ("body", "kwargs", "message"),
    [
        (b'{"title": "late"}', {"delay": 2.5}, "no complete answer within 1 s"),
        (b'{"title": "' + b"x" * 5000 + b'"}', {}, "larger than 2048 bytes"),
        (b"<html>not json</html>", {}, "not JSON"),
        (b"[1, 2]", {}, "not a JSON object"),
        (b"{}", {"status": 503}, "HTTP 503"),
        (b'{"other": 1}', {}, "title"),  # fails the template's schema, named
    ],
)
def test_a_failed_fetch_is_a_recorded_failed_run(owner, server, settings, body, kwargs, message):
    settings.SCHEDULE_DATA_TIMEOUT_SECONDS = 1
    settings.SCHEDULE_DATA_MAX_BYTES = 2048
    data = server(body, **kwargs)
    run = _run(owner, data_url=data.url)
    assert run.outcome == RunOutcome.FAILED
    assert message in run.error
    assert run.finished_at is not None
    assert run.job_id is None
    assert not PdfJob.objects.exists()


def test_a_data_url_that_turned_private_is_refused_at_fetch_time(owner, server, settings):
    data = server(b'{"title": "x"}')
    run = _run(owner, data_url=data.url.replace("127.0.0.1", "localhost"), paused=True)
    assert run.outcome == RunOutcome.RENDERING  # private networks allowed: fetched
    settings.CALLBACK_ALLOW_PRIVATE_NETWORKS = False
    settings.CALLBACK_REQUIRE_HTTPS = False
    again = services.schedule_run_now(schedule=run.schedule)
    schedule_run_start(run_id=again.run_id)
    again.refresh_from_db()
    assert again.outcome == RunOutcome.FAILED
    assert "not a public address" in again.error
    assert data.hits == 1


def test_the_jobs_final_transition_queues_the_runs_deliveries(owner, quiet_broker):
    run = _run(owner, data={"title": "Done"})
    job = PdfJob.objects.get(pk=run.job_id)
    other = PdfJob.objects.create(owner=owner, engine="handlebars", html_template="x")
    schedule_job_finished(job=other)
    assert quiet_broker.ids("schedule_deliver_enqueue", "run_id") == []
    schedule_job_finished(job=job)
    assert quiet_broker.ids("schedule_deliver_enqueue", "run_id") == [run.run_id]


def test_a_schedules_job_sends_no_report_is_ready_mail_of_its_own(
    owner, quiet_broker, django_capture_on_commit_callbacks
):
    """Each tick's outcome is the schedule's delivery: the owner is not also mailed "Your
    report is ready" for every tick's job (a job of its own still is)."""
    from django.core.files.base import ContentFile
    from django.core.files.storage import storages

    from jobs import transitions

    owner.email = "runner@example.com"
    owner.save()
    run = _run(owner, data={"title": "Tick"})
    alone = PdfJob.objects.create(owner=owner, engine="handlebars", html_template="x")
    with django_capture_on_commit_callbacks(execute=True):
        for job in (PdfJob.objects.get(pk=run.job_id), alone):
            transitions.job_claim(job_id=job.job_id, worker="test:1")
            key = storages["reports"].save(f"{job.job_id}.pdf", ContentFile(b"%PDF-1.7"))
            transitions.job_complete(
                job_id=job.job_id, pdf_file=key, page_count=1, size_bytes=8, warnings=[]
            )
    assert quiet_broker.ids("notify_enqueue") == [alone.job_id]
    assert quiet_broker.ids("schedule_deliver_enqueue", "run_id") == [run.run_id]
