"""The move of Schedule and ScheduleRun from jobs to schedules (schedules/0001, jobs/0029)
on rows the old layout wrote: nothing in the database changes, the rows read back through
the schedules app, and the content types follow the models."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import PdfJobFactory, ReportTemplateFactory

BEFORE = [("jobs", "0028_runs_moved_to_runs_app"), ("schedules", None)]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    # ("schedules", None) unapplies the app; the state is that of the others' targets.
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def _leaves():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


@pytest.mark.heavy  # every migration backwards and forwards: seconds of CPU
@pytest.mark.django_db(transaction=True)
def test_schedules_written_by_the_old_layout_read_back_through_the_schedules_app():
    job = PdfJobFactory()
    template = ReportTemplateFactory(owner=job.owner)
    tables = set(connection.introspection.table_names())
    try:
        old = _migrate(BEFORE)
        OldSchedule = old.get_model("jobs", "Schedule")
        OldRun = old.get_model("jobs", "ScheduleRun")
        ContentType = old.get_model("contenttypes", "ContentType")
        schedule = OldSchedule.objects.create(
            workspace_id=job.workspace_id,
            template_id=template.pk,
            created_by_id=job.owner_id,
            name="Monthly",
            cron="0 6 1 * *",
            next_run_at=datetime(2027, 1, 1, 6, tzinfo=UTC),
        )
        OldRun.objects.create(
            schedule=schedule,
            job_id=job.pk,
            trigger="tick",
            scheduled_for=datetime(2026, 12, 1, 6, tzinfo=UTC),
            outcome="delivered",
        )
        type_id = ContentType.objects.get(app_label="jobs", model="schedule").pk

        new = _migrate(_leaves())
        assert set(connection.introspection.table_names()) == tables  # state only
        Schedule = new.get_model("schedules", "Schedule")
        moved = Schedule.objects.get(schedule_id=schedule.schedule_id)
        assert (moved.name, moved.cron) == ("Monthly", "0 6 1 * *")
        assert list(moved.runs.values_list("job_id", "outcome")) == [(job.pk, "delivered")]
        ContentType = new.get_model("contenttypes", "ContentType")
        assert ContentType.objects.get(app_label="schedules", model="schedule").pk == type_id
        assert not ContentType.objects.filter(app_label="jobs", model="schedule").exists()
    finally:
        _migrate(_leaves())
