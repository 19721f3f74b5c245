"""`python -m tests.bench.child_faults`: one-page invoice jobs through a real Celery worker (one
prefork child, tests.bench.child_account loaded), sent one at a time so that nothing else
shares the cores with it: a render's CPU, system CPU and minor page faults in the child, the
same counters as `make bench`'s (b). BENCH_WORKER_ENV adds `NAME=value` pairs (separated by
spaces) to the worker's environment, to compare settings. BENCH_JOBS (default 30)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

JOBS = int(os.environ.get("BENCH_JOBS", "30"))


def main() -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    django.setup()
    from celery import Celery

    from jobs.dispatch import job_enqueue
    from jobs.models import JobStatus, PdfJob
    from tests.bench import child_account
    from tests.bench.job_overhead import bench_invoice
    from tests.processes import start, stop, wait_for_worker, worker_args
    from workspaces.services import workspace_personal

    invoice = bench_invoice("bench-faults")
    owner, template, version, key = invoice.owner, invoice.template, invoice.version, invoice.key
    data = invoice.data
    directory = Path(tempfile.mkdtemp(prefix="child-faults-"))
    extra = dict(pair.split("=", 1) for pair in os.environ.get("BENCH_WORKER_ENV", "").split())
    env = {**os.environ, "BENCH_CHILD_ACCOUNT_DIR": str(directory), **extra}
    name = f"faults-{os.getpid()}"
    worker = start(
        [
            *worker_args(name=name, concurrency=1, queues="pdf"),
            "--include=tests.bench.child_account",
        ],
        env=env,
        log=directory / "worker.log",
    )
    try:
        wait_for_worker(
            Celery(broker=os.environ["REDIS_URL"]), name, worker, directory / "worker.log"
        )

        def run(count: int) -> None:
            for _ in range(count):
                job = PdfJob.objects.create(
                    owner=owner,
                    workspace=workspace_personal(user=owner),
                    template=template,
                    template_version=version,
                    api_key=key,
                    data=data,
                )
                job_enqueue(job_id=job.job_id)
                while (
                    PdfJob.objects.filter(job_id=job.job_id, status=JobStatus.COMPLETED).count()
                    == 0
                ):
                    time.sleep(0.01)

        run(5)  # warm
        time.sleep(0.3)
        before = child_account.read(directory)
        tracer = None
        if os.environ.get("BENCH_STRACE"):  # the child's system calls, to a file
            import subprocess

            child = next(directory.glob("child-*.json")).stem.split("-")[1]
            tracer = subprocess.Popen(
                ["strace", "-f", "-tt", "-p", child, "-o", os.environ["BENCH_STRACE"]]
            )
            time.sleep(1)
        run(JOBS)
        if tracer is not None:
            tracer.terminate()
            tracer.wait()
        time.sleep(0.3)
        after = child_account.read(directory)
        tasks = after["tasks"] - before["tasks"]
        per = {k: (after[k] - before[k]) / tasks for k in ("render_cpu", *child_account.COUNTERS)}
        print(
            json.dumps(
                {"env": extra, "tasks": tasks}
                | {k: round(v * 1000, 2) if "cpu" in k else round(v, 1) for k, v in per.items()}
            )
        )
    finally:
        stop(worker)
        PdfJob.objects.filter(owner=owner).delete()
        key.delete()
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
