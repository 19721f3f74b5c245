"""Schedule services: validation naming the field, next_run_at, pause and resume, a missed
tick run once, and two claimers of one tick making one run."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.services import api_key_create
from rendering.errors import ApplicationError
from reports.services import template_create
from schedules import services
from schedules.models import RunTrigger, Schedule, ScheduleRun
from tests.factories import ReportTemplateFactory, UserFactory, members_with_emails
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(sent_tasks):
    return sent_tasks


@pytest.fixture
def owner():
    return UserFactory(username="sched-owner")


@pytest.fixture
def template(owner):
    return ReportTemplateFactory(owner=owner, slug="monthly", html="<h1>{{title}}</h1>")


def _create(owner, **fields):
    body = {"template": "monthly", "data": {"title": "T"}, "cron": "0 9 1 * *", **fields}
    return services.schedule_create(
        workspace=workspace_personal(user=owner), created_by=owner, fields=body
    )


def _error(owner, **fields) -> ApplicationError:
    with pytest.raises(ApplicationError) as caught:
        _create(owner, **fields)
    return caught.value


def test_create_computes_the_first_tick_in_the_zone(owner, template):
    schedule = _create(owner, cron="0 9 * * *", timezone="Asia/Tokyo")
    local = schedule.next_run_at.astimezone(timezone.get_fixed_timezone(9 * 60))
    assert (local.hour, local.minute) == (9, 0)
    assert timezone.now() < schedule.next_run_at <= timezone.now() + timedelta(days=1)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"cron": "every monday"}, "cron"),
        ({"timezone": "Europe/Atlantis"}, "timezone"),
        ({"data": None, "data_url": "http://example.com/data.json"}, "data_url"),
        ({"data": None, "data_url": "https://10.0.0.8/data.json"}, "data_url"),
        ({"data": None, "data_url": "https://localhost/data.json"}, "data_url"),
        ({"data": None, "data_url": "https://[::ffff:127.0.0.1]/x"}, "data_url"),
        ({"data_url": "https://example.com/x"}, "data"),  # both given
        ({"deliveries": {"type": "email"}}, "deliveries"),
        ({"deliveries": [{"type": "fax"}]}, "deliveries[0].type"),
        ({"deliveries": [{"type": "email", "to": ["nobody"]}]}, "deliveries[0].to[0]"),
        ({"deliveries": [{"type": "email", "to": []}]}, "deliveries[0].to"),
        ({"deliveries": [{"type": "s3", "bucket": "No_Such"}]}, "deliveries[0].bucket"),
        (
            {"deliveries": [{"type": "webhook", "url": "https://192.168.1.4/h"}]},
            "deliveries[0].url",
        ),
        # Signed with the creating key's secret: a session-made schedule has none.
        (
            {"deliveries": [{"type": "webhook", "url": "https://example.com/h"}]},
            "deliveries[0].url",
        ),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(owner, template, settings, fields, field):
    settings.CALLBACK_ALLOW_PRIVATE_NETWORKS = False  # production's outbound rules
    settings.CALLBACK_REQUIRE_HTTPS = True
    error = _error(owner, **fields)
    assert error.http_status == 400
    assert error.details["field"] == field  # type: ignore[attr-defined]
    assert error.message.startswith(field)
    assert not Schedule.objects.exists()


def test_stored_data_is_checked_against_the_template_schema(owner):
    template_create(
        owner=owner,
        workspace=workspace_personal(user=owner),
        name="Strict",
        slug="strict",
        html="<p>{{title}}</p>",
        schema={"type": "object", "required": ["title"]},
    )
    error = _error(owner, template="strict", data={"other": 1})
    assert error.code == "invalid_data"
    assert "title" in error.message


def test_an_unknown_template_is_a_400(owner, template):
    error = _error(owner, template="nope")
    assert (error.http_status, error.code) == (400, "unknown_template")


def test_a_key_made_schedule_may_deliver_by_webhook(owner, template):
    key, _ = api_key_create(user=owner, name="k", role="owner")
    workspace = workspace_personal(user=owner)
    workspace.schedule_s3_destinations = "reports-bucket/monthly"  # the operator's list
    workspace.save()
    members_with_emails(workspace, "a@example.com")
    schedule = services.schedule_create(
        workspace=workspace_personal(user=owner),
        created_by=owner,
        api_key=key,
        fields={
            "template": "monthly",
            "cron": "0 9 1 * *",
            "deliveries": [
                {"type": "webhook", "url": "https://example.com/hook"},
                {"type": "email", "to": "a@example.com"},
                {"type": "s3", "bucket": "reports-bucket", "prefix": "/monthly/"},
            ],
        },
    )
    assert schedule.deliveries == [
        {"type": "webhook", "url": "https://example.com/hook"},
        {"type": "email", "to": ["a@example.com"]},
        {"type": "s3", "bucket": "reports-bucket", "prefix": "monthly/"},
    ]


def test_pause_clears_the_tick_and_resume_counts_from_now(owner, template, started):
    schedule = _create(owner, cron="*/5 * * * *")
    services.schedule_update(schedule=schedule, fields={"paused": True})
    assert schedule.next_run_at is None
    assert services.schedules_claim_due(now=timezone.now() + timedelta(days=3)) == []
    services.schedule_update(schedule=schedule, fields={"paused": False})
    assert timezone.now() < schedule.next_run_at <= timezone.now() + timedelta(minutes=5)


def test_editing_the_cron_moves_the_next_tick(owner, template):
    schedule = _create(owner, cron="0 9 1 1 *")
    services.schedule_update(schedule=schedule, fields={"cron": "*/10 * * * *"})
    schedule.refresh_from_db()
    assert schedule.next_run_at <= timezone.now() + timedelta(minutes=10)
    with pytest.raises(ApplicationError):
        services.schedule_update(schedule=schedule, fields={"cron": "nope"})


def test_a_missed_tick_runs_once_then_the_next_future_tick(
    owner, template, started, django_capture_on_commit_callbacks
):
    schedule = _create(owner, cron="0 * * * *")  # hourly
    down_since = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    Schedule.objects.filter(pk=schedule.pk).update(next_run_at=down_since)
    back = down_since + timedelta(hours=7, minutes=20)  # beat was down for seven ticks
    with django_capture_on_commit_callbacks(execute=True):
        runs = services.schedules_claim_due(now=back)
    assert len(runs) == 1
    assert (runs[0].trigger, runs[0].scheduled_for) == (RunTrigger.TICK, down_since)
    schedule.refresh_from_db()
    assert schedule.next_run_at == datetime(2026, 1, 5, 17, 0, tzinfo=UTC)
    assert services.schedules_claim_due(now=back + timedelta(seconds=30)) == []
    assert started.ids("schedule_run_start_enqueue", "run_id") == [runs[0].run_id]


def test_run_now_leaves_the_next_tick_alone_and_works_when_paused(
    owner, template, started, django_capture_on_commit_callbacks
):
    schedule = _create(owner, paused=True)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.schedule_run_now(schedule=schedule)
    assert run.trigger == RunTrigger.MANUAL
    assert started.ids("schedule_run_start_enqueue", "run_id") == [run.run_id]
    schedule.refresh_from_db()
    assert schedule.next_run_at is None


@pytest.mark.django_db(transaction=True)
def test_two_claimers_of_one_tick_make_one_run(owner, template, started):
    schedule = _create(owner, cron="*/5 * * * *")
    due = timezone.now() - timedelta(minutes=1)
    Schedule.objects.filter(pk=schedule.pk).update(next_run_at=due)
    loaded = [Schedule.objects.get(pk=schedule.pk) for _ in range(2)]  # both read it due
    barrier = threading.Barrier(2)
    got: list[object] = []

    def claim(copy: Schedule) -> None:
        try:
            barrier.wait()
            got.append(services.schedule_tick_claim(schedule=copy, now=timezone.now()))
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(copy,)) for copy in loaded]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(run is None for run in got) == [False, True]
    assert ScheduleRun.objects.filter(schedule=schedule).count() == 1
