"""`make chaos`: 500 jobs while a random worker child is SIGKILLed every few seconds.

Prints jobs lost (not finished by the deadline; must be 0), jobs duplicated (more than one
completion event or stored object; must be 0), jobs failed, and p50/p95 completion time.
Runs on its own Redis and database (SQLite under var/soak unless SOAK_DATABASE_URL is set).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parents[2]
JOBS = int(os.environ.get("SOAK_JOBS", "500"))
KILL_EVERY = float(os.environ.get("SOAK_KILL_EVERY_SECONDS", "3"))
DEADLINE = float(os.environ.get("SOAK_DEADLINE_SECONDS", "900"))


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def main() -> int:
    var = BASE_DIR / "var" / "soak"
    shutil.rmtree(var, ignore_errors=True)
    var.mkdir(parents=True)
    os.environ.pop("REDIS_URL", None)
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings.test",
        DATABASE_URL=os.environ.get("SOAK_DATABASE_URL", f"sqlite:///{var / 'db.sqlite3'}"),
        MEDIA_ROOT=str(var / "media"),
        VAR_DIR=str(var),
        PDF_FAULT_INJECTION="0",
        PDF_HEARTBEAT_SECONDS="1",
        PDF_HEARTBEAT_STALE_SECONDS="3",
        PDF_MAX_ATTEMPTS="8",
        RECONCILE_QUEUED_AFTER_SECONDS="5",
        RECONCILE_PROCESSING_MARGIN_SECONDS="2",
        RECONCILE_INTERVAL_SECONDS="2",
        PDF_SOFT_TIME_LIMIT="20",
        PDF_HARD_TIME_LIMIT="25",
        REMAP_SIGTERM="SIGQUIT",
        PYTHONUNBUFFERED="1",
    )
    from config import embedded_redis

    embedded_redis.start(var / "redis")  # sets REDIS_URL for this process and the children
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=BASE_DIR, check=True
    )

    import django

    django.setup()
    from celery import Celery
    from django.contrib.auth import get_user_model

    from jobs.dispatch import task_id_for
    from jobs.models import JobStatus, PdfJob
    from tests.chaos.conftest import EventRecorder
    from tests.processes import kill_group, start, worker_args

    app = Celery("soak", broker=os.environ["REDIS_URL"], set_as_current=False)
    app.conf.task_default_queue = "pdf"
    logs = var / "logs"
    logs.mkdir()
    workers = [
        start(
            worker_args(name=f"soak{i}", concurrency=2),
            env=dict(os.environ),
            log=logs / f"worker{i}.log",
        )
        for i in range(2)
    ]
    beat = start(
        ["-m", "celery", "-A", "config", "beat", f"--schedule={var / 'beat'}"],
        env=dict(os.environ),
        log=logs / "beat.log",
    )
    time.sleep(6)
    owner, _ = get_user_model().objects.get_or_create(username="soak")
    template = (
        "<h1>Soak report {{n}}</h1><table>{{#each rows}}<tr><td>{{this}}</td>"
        "<td>{{multiply this 3}}</td></tr>{{/each}}</table>"
    )
    jobs = [
        PdfJob.objects.create(
            owner=owner,
            engine="handlebars",
            html_template=template,
            data={"n": n, "rows": list(range(40))},
            options={"filename": f"soak-{n}.pdf"},
        )
        for n in range(JOBS)
    ]
    kills = 0
    with EventRecorder(os.environ["REDIS_URL"], jobs) as recorder:
        for job in jobs:
            app.send_task(
                "jobs.render_pdf", args=[str(job.job_id)], task_id=task_id_for(job.job_id)
            )
        started = time.monotonic()
        next_kill = started + KILL_EVERY
        while time.monotonic() - started < DEADLINE:
            left = PdfJob.objects.exclude(
                status__in=[JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED]
            ).count()
            if left == 0:
                break
            if time.monotonic() >= next_kill:
                children = [c for w in workers for c in _children(w.pid)]
                if children:
                    os.kill(random.choice(children), signal.SIGKILL)  # noqa: S311
                    kills += 1
                next_kill += KILL_EVERY
            time.sleep(0.2)
        elapsed = time.monotonic() - started
    for proc in [*workers, beat]:
        kill_group(proc)

    finished = {j.job_id: j for j in PdfJob.objects.filter(pk__in=[j.pk for j in jobs])}
    completed = [j for j in finished.values() if j.status == JobStatus.COMPLETED]
    failed = [j for j in finished.values() if j.status == JobStatus.FAILED]
    lost = JOBS - len(completed) - len(failed)
    stored = sorted(p.name for p in (var / "media" / "reports").glob("*.pdf"))
    duplicated = sum(1 for j in jobs if recorder.completions(j) > 1) + (
        len(stored) - len(set(stored))
    )
    missing_objects = sum(1 for j in completed if f"{j.job_id}.pdf" not in stored)
    durations = sorted((j.completed_at - j.created_at).total_seconds() for j in completed)
    p50 = statistics.median(durations) if durations else float("nan")
    p95 = durations[int(0.95 * (len(durations) - 1))] if durations else float("nan")
    retried = sum(1 for j in completed if j.attempts > 1)
    print(f"jobs: {JOBS}  worker children SIGKILLed: {kills}  wall time: {elapsed:.1f} s")
    print(f"completed: {len(completed)} ({retried} retried after a kill)  failed: {len(failed)}")
    print(f"jobs lost: {lost}")
    print(f"jobs duplicated: {duplicated}")
    print(f"completed jobs without their PDF: {missing_objects}")
    print(f"completion time p50: {p50:.2f} s  p95: {p95:.2f} s")
    for job in failed[:5]:
        print(f"  failed {job.job_id}: {job.error_code} {job.error[:120]}")
    return 0 if lost == 0 and duplicated == 0 and missing_objects == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
