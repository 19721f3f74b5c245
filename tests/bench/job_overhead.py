"""`python -m tests.bench.job_overhead`: where a worker's time goes for one-page jobs, run
in this process through the worker's own code (claim, progress, heartbeat, render, store,
complete, events) on the configured database and Redis. Prints each part's share."""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import sys
import time

N = int(os.environ.get("BENCH_JOBS", "60"))
# Functions whose cumulative time is one part of a job (first match wins, outermost).
PARTS = {
    "template and charts (report_prepare)": ("rendering/report.py", "report_prepare"),
    "layout (report_layout)": ("rendering/report.py", "report_layout"),
    "  of which the Handlebars isolate start": ("handlebars.py", "_new_isolate"),
    "claim (job_start)": ("worker/execution.py", "job_start"),
    "progress transitions (job_progress)": ("transitions.py", "job_progress"),
    "completion (job_complete)": ("transitions.py", "job_complete"),
    "event publishing (job_event_publish)": ("events.py", "job_event_publish"),
    "storage save": ("storage/base.py", "save"),
    "heartbeat thread start/stop": ("heartbeat.py", "__enter__"),
    "heartbeat join": ("heartbeat.py", "__exit__"),
}


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from jobs.models import PdfJob
    from jobs.worker import execution
    from reports.samples import sample_files

    call_command("migrate", verbosity=0)
    owner, _ = get_user_model().objects.get_or_create(username="bench-overhead")
    html, _, data = sample_files("invoice")
    jobs = [
        PdfJob.objects.create(owner=owner, html_template=html, engine="handlebars", data=data)
        for _ in range(N + 5)
    ]
    for job in jobs[:5]:  # warm: imports, connections, fonts
        execution.job_execute(job_id=job.job_id)
    profiler = cProfile.Profile()
    walls = []
    for job in jobs[5:]:
        started = time.perf_counter()
        profiler.enable()
        execution.job_execute(job_id=job.job_id)
        profiler.disable()
        walls.append(time.perf_counter() - started)
    stats = pstats.Stats(profiler)
    total = sum(walls)
    print(
        f"{N} one-page jobs, median job {statistics.median(walls) * 1000:.1f} ms (unprofiled "
        "parts scale with cProfile's overhead; read the shares)"
    )
    for label, (filename, function) in PARTS.items():
        cum = sum(
            row[3]
            for (path, _, name), row in stats.stats.items()  # type: ignore[attr-defined]
            if path.endswith(filename) and name == function
        )
        print(f"  {label:45} {cum / N * 1000:7.1f} ms/job  {cum / stats.total_tt:5.1%}")  # type: ignore[attr-defined]
    print(f"  {'total (profiled)':45} {stats.total_tt / N * 1000:7.1f} ms/job")  # type: ignore[attr-defined]
    _ = total
    PdfJob.objects.filter(owner=owner).delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
