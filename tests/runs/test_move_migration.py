"""The move of Run and RunRecord from jobs to runs (runs/0001, jobs/0028) on rows the old
layout wrote: nothing in the database changes, the rows read back through the runs app,
and the content types (with the admin's permissions on them) follow the models."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.factories import PdfJobFactory

BEFORE = [("jobs", "0027_schedule_run_delivery_claim"), ("runs", None)]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    # ("runs", None) unapplies the app; the state is that of the others' targets.
    return executor.loader.project_state([t for t in targets if t[1] is not None]).apps


def _leaves():
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def _tables() -> set[str]:
    return set(connection.introspection.table_names())


@pytest.mark.heavy  # every migration backwards and forwards: seconds of CPU
@pytest.mark.django_db(transaction=True)
def test_runs_written_by_the_old_layout_read_back_through_the_runs_app():
    job = PdfJobFactory()
    tables = _tables()
    try:
        old = _migrate(BEFORE)
        assert old.get_model("jobs", "Run")._meta.db_table == "jobs_run"
        OldRun = old.get_model("jobs", "Run")
        OldRecord = old.get_model("jobs", "RunRecord")
        ContentType = old.get_model("contenttypes", "ContentType")
        run = OldRun.objects.create(
            workspace_id=job.workspace_id, owner_id=job.owner_id, total=2, completed=1
        )
        OldRecord.objects.create(run=run, index=0, data={"n": 1}, job_id=job.pk)
        OldRecord.objects.create(run=run, index=1, data={"n": 2}, error="refused")
        run_type = ContentType.objects.get(app_label="jobs", model="run").pk

        new = _migrate(_leaves())
        assert _tables() == tables  # state only: no table made, renamed or dropped
        Run = new.get_model("runs", "Run")
        moved = Run.objects.get(run_id=run.run_id)
        assert (moved.total, moved.completed) == (2, 1)
        records = list(moved.records.order_by("index").values_list("index", "job_id", "error"))
        assert records == [(0, job.pk, ""), (1, None, "refused")]
        ContentType = new.get_model("contenttypes", "ContentType")
        assert ContentType.objects.get(app_label="runs", model="run").pk == run_type
        assert not ContentType.objects.filter(app_label="jobs", model="run").exists()
    finally:
        _migrate(_leaves())


@pytest.mark.django_db
def test_the_current_models_use_the_old_tables():
    from runs.models import Run, RunRecord

    assert (Run._meta.db_table, RunRecord._meta.db_table) == ("jobs_run", "jobs_runrecord")
    assert {"jobs_run", "jobs_runrecord"} <= _tables()
