"""The due task's pass: due ticks claimed, a run whose start message was lost sent again,
a run whose job finished without its deliveries queued settled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from jobs.models import JobStatus, PdfJob
from schedules import services
from schedules.models import RunOutcome, Schedule, ScheduleRun
from schedules.running import schedule_run_start
from schedules.sweep import schedules_due_run
from tests.factories import ReportTemplateFactory, UserFactory
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db


def test_the_pass_claims_resends_and_settles(sent_tasks, django_capture_on_commit_callbacks):
    owner = UserFactory(username="sweeper")
    ReportTemplateFactory(owner=owner, slug="swept")
    make = lambda cron: services.schedule_create(  # noqa: E731
        workspace=workspace_personal(user=owner),
        created_by=owner,
        fields={"template": "swept", "cron": cron, "data": {"title": "t"}},
    )
    due, lost, finished = make("*/5 * * * *"), make("0 1 1 1 *"), make("0 2 1 1 *")
    Schedule.objects.filter(pk=due.pk).update(next_run_at=timezone.now() - timedelta(minutes=3))
    stuck = services.schedule_run_now(schedule=lost)
    ScheduleRun.objects.filter(pk=stuck.pk).update(started_at=timezone.now() - timedelta(hours=1))
    rendering = services.schedule_run_now(schedule=finished)
    schedule_run_start(run_id=rendering.run_id)
    rendering.refresh_from_db()
    PdfJob.objects.filter(pk=rendering.job_id).update(status=JobStatus.COMPLETED)

    with django_capture_on_commit_callbacks(execute=True):
        counts = schedules_due_run()
    assert counts == {"claimed": 1, "restarted": 1, "settled": 1}
    claimed = ScheduleRun.objects.get(schedule=due)
    started = sent_tasks.ids("schedule_run_start_enqueue", "run_id")
    assert sorted(map(str, started)) == sorted([str(claimed.run_id), str(stuck.run_id)])
    assert sent_tasks.ids("schedule_deliver_enqueue", "run_id") == [rendering.run_id]
    assert ScheduleRun.objects.get(pk=rendering.pk).outcome == RunOutcome.RENDERING
