"""Every queue a task is routed to is served by a Procfile role and a `make run` process;
the owner's mail has a queue of its own, apart from the tenants' callbacks."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

from config import devstack
from jobs.ops.queues import celery_queues
from tests.processes import ALL_QUEUES

ROOT = Path(__file__).resolve().parents[2]


def _queues_of(command: str) -> set[str]:
    found = re.search(r"--queues[= ](\S+)", command)
    return set(found.group(1).split(",")) if found else set()


def test_job_mail_is_routed_to_its_own_queue_apart_from_callbacks():
    routes = settings.CELERY_TASK_ROUTES
    assert routes["jobs.notify_owner"]["queue"] == "mail"
    assert routes["jobs.deliver_callback"]["queue"] == "callbacks"


def test_every_routed_queue_has_a_procfile_role_and_a_devstack_process(tmp_path):
    routed = {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()}
    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line
    )
    served = set().union(*(_queues_of(command) for command in procfile.values()))
    assert routed <= served, routed - served
    assert _queues_of(procfile["mail"]) == {"mail"}
    assert "--pool=threads" in procfile["mail"]
    processes = devstack._processes(tmp_path)
    in_devstack = set().union(*(_queues_of(" ".join(cmd)) for cmd in processes.values()))
    assert routed <= in_devstack, routed - in_devstack
    assert "mail" in processes


def test_the_test_workers_take_from_every_configured_queue():
    """The live stack's and the chaos harness's workers take from ALL_QUEUES, and the live
    stack's settle purges them: a queue routed to and missing there would keep a test's
    message for a later one (tests/leftovers.py checks the configured queues)."""
    assert sorted(ALL_QUEUES.split(",")) == celery_queues()


def test_no_worker_waits_for_mingle_at_its_start(tmp_path):
    """Mingle waits a second at every worker start for other workers' revoked task ids;
    nothing revokes Celery tasks here (a cancel is the job's row), so no worker mingles."""
    procfile = dict(
        line.split(":", 1) for line in (ROOT / "Procfile").read_text().splitlines() if line
    )
    workers = [command for command in procfile.values() if " worker " in command]
    workers += [" ".join(cmd) for cmd in devstack._processes(tmp_path).values() if "worker" in cmd]
    assert len(workers) == 8
    assert all("--without-mingle" in command for command in workers), workers


def test_every_route_names_a_task_that_exists():
    """A route for a task name no task has routes nothing (the previews' route named
    `reports.render_preview` while the task is `jobs.render_preview`)."""
    from config.celery_app import app

    app.loader.import_default_modules()
    assert set(settings.CELERY_TASK_ROUTES) - set(app.tasks) == set()
