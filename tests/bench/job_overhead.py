"""`python -m tests.bench.job_overhead`: where a worker's time goes for one-page jobs, run
in this process through the worker's own code (claim, progress, heartbeat, render, store,
complete, events) on the configured database and Redis. Prints each part's share, then
the SQL statements and Redis commands of one such job (tests.bench.round_trips)."""

from __future__ import annotations

import cProfile
import os
import pstats
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

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


@dataclass
class BenchInvoice:
    owner: Any
    template: Any
    version: Any
    key: Any
    html: str
    css: str
    data: dict[str, Any]


def bench_invoice(username: str) -> BenchInvoice:
    """The owner `username`, their stored invoice template and its version, an API key of
    theirs (whose jobs mail nobody) and the invoice's sources and data: jobs as the pipeline
    bench submits them."""
    from django.contrib.auth import get_user_model

    from accounts.services import api_key_create
    from reports.models import ReportTemplate
    from reports.samples import sample_files
    from reports.services import template_create, template_record_version

    owner, _ = get_user_model().objects.get_or_create(username=username)
    html, css, data = sample_files("invoice")
    template = ReportTemplate.objects.filter(owner=owner, slug="bench-invoice").first()
    if template is None:
        template = template_create(
            owner=owner, name="Invoice", slug="bench-invoice", html=html, css=css
        )
    version = template_record_version(template=template)
    key, _ = api_key_create(user=owner, name="bench")
    return BenchInvoice(owner, template, version, key, html, css, data)


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    from django.core.management import call_command

    from jobs.models import PdfJob
    from jobs.worker import execution
    from rendering.options import parse_options
    from rendering.report import TemplateSource, report_render
    from reports.limits import limits_from_settings
    from tests.bench.round_trips import round_trips_counted
    from workspaces.services import workspace_personal

    call_command("migrate", verbosity=0)
    # Jobs as the pipeline bench submits them: a stored template's version, the owner's
    # workspace (its stream gets every event), an API key (whose jobs mail nobody).
    invoice = bench_invoice("bench-overhead")
    owner, template, version, key = invoice.owner, invoice.template, invoice.version, invoice.key
    html, css, data = invoice.html, invoice.css, invoice.data

    def jobs_create(count: int) -> list[PdfJob]:
        return [
            PdfJob.objects.create(
                owner=owner,
                workspace=workspace_personal(user=owner),
                template=template,
                template_version=version,
                api_key=key,
                data=data,
            )
            for _ in range(count)
        ]

    jobs = jobs_create(5)
    for job in jobs[:4]:  # warm: imports, connections, fonts
        execution.job_execute(job_id=job.job_id)
    with round_trips_counted() as counted:  # unprofiled, the job's default settings
        execution.job_execute(job_id=jobs[4].job_id)
    profiler = cProfile.Profile()
    walls = []
    for _ in range(N):
        # Each made just before it runs: one queued for PDF_SLOW_JOB_SECONDS would be
        # logged as slow, which a job taken at once is not.
        job = jobs_create(1)[0]
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
    # Unprofiled, CPU of this process (its publisher and heartbeat threads included): a
    # job, and within it the render's own CPU (this thread's, inside report_prepare and
    # report_layout, timed by wrapping the two names the worker calls); the rest of the
    # job is the worker's own code. report_render alone on the same data, interleaved so
    # that the machine's other load falls on both alike. Medians.
    limits, options = limits_from_settings(), parse_options({})
    source = TemplateSource(engine="handlebars", html=html, css=css)
    in_render: list[float] = []

    def timed(function: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                in_render.append(time.thread_time() - started)

        return run

    execution.report_prepare = timed(execution.report_prepare)  # type: ignore[attr-defined]
    execution.report_layout = timed(execution.report_layout)  # type: ignore[attr-defined]
    job_cpu, own_cpu, render_cpu, in_job_cpu = [], [], [], []
    for _ in range(N):
        job = jobs_create(1)[0]
        in_render.clear()
        started = time.process_time()
        execution.job_execute(job_id=job.job_id)
        job_cpu.append(time.process_time() - started)
        own_cpu.append(job_cpu[-1] - sum(in_render))
        in_job_cpu.append(sum(in_render))
        started = time.process_time()
        report_render(source=source, data=data, options=options, limits=limits)
        render_cpu.append(time.process_time() - started)
    job_ms, render_ms = statistics.median(job_cpu) * 1000, statistics.median(render_cpu) * 1000
    print(
        f"unprofiled CPU, median of {N}: a job {job_ms:.1f} ms, report_render alone "
        f"{render_ms:.1f} ms, the same render in the job {statistics.median(in_job_cpu) * 1000:.1f}"
        f" ms; the worker's own code in a job (the job less its report_prepare and "
        f"report_layout) {statistics.median(own_cpu) * 1000:.2f} ms"
    )
    verbs = Counter(sql.split(None, 1)[0] for sql in counted.sql)
    print(
        f"one job: {len(counted.sql)} SQL statements ({dict(verbs)}), "
        f"{counted.redis_total} Redis commands ({dict(counted.redis)}; in their scripts: "
        f"{dict(counted.in_scripts)})"
    )
    if os.environ.get("BENCH_SHOW_SQL"):
        print("\n".join(counted.sql))
    PdfJob.objects.filter(owner=owner).delete()
    key.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
