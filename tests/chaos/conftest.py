"""Chaos harness: a private Redis the tests may stop and wipe, real Celery workers, beat and
web processes on the test database, and a recorder of the events each job publishes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from celery import Celery
from channels_redis.core import RedisChannelLayer

from config import embedded_redis
from jobs.dispatch import task_id_for
from jobs.live.events import job_group
from jobs.live.receiving import Receiver
from jobs.models import PdfJob
from tests.processes import (
    ALL_QUEUES,
    broker_url_for_tests,
    database_url_for_tests,
    free_port,
    kill_group,
    start,
    tail,
    wait_for_worker,
    web_args,
    worker_args,
)

TERMINAL = {"completed", "failed", "cancelled"}

# Small limits so every failure mode shows within seconds.
CHAOS_SETTINGS = {
    "PDF_FAULT_INJECTION": "1",
    "PDF_SOFT_TIME_LIMIT": "5",
    "PDF_HARD_TIME_LIMIT": "7",
    "PDF_HEARTBEAT_SECONDS": "1",
    "PDF_HEARTBEAT_STALE_SECONDS": "3",
    "PDF_MAX_ATTEMPTS": "3",
    "PDF_MAX_RETRIES": "3",
    "PDF_RETRY_BACKOFF_SECONDS": "1",
    "PDF_RETRY_BACKOFF_MAX_SECONDS": "2",
    "RECONCILE_QUEUED_AFTER_SECONDS": "2",
    "RECONCILE_PROCESSING_MARGIN_SECONDS": "1",
    "RECONCILE_INTERVAL_SECONDS": "1",
    "WORKER_SOFT_SHUTDOWN_SECONDS": "1",
    # As in the Procfile: SIGTERM starts the soft shutdown instead of waiting forever.
    "REMAP_SIGTERM": "SIGQUIT",
}

# The longest the ordinary retries of a transient error last in the chaos harness: each
# retry's countdown is at most the doubled backoff, capped (jobs.worker.execution).
ORDINARY_RETRIES_SECONDS = sum(
    min(
        int(CHAOS_SETTINGS["PDF_RETRY_BACKOFF_MAX_SECONDS"]),
        int(CHAOS_SETTINGS["PDF_RETRY_BACKOFF_SECONDS"]) * 2**n,
    )
    for n in range(int(CHAOS_SETTINGS["PDF_MAX_RETRIES"]))
)
# A store outage twice that long (tests/e2e/test_s3.py, tests/multihost): a job that spent
# its ordinary retries on it would fail, so every job completing shows that the outage
# retries (a budget of their own) waited it out.
OUTAGE_SECONDS = 2 * ORDINARY_RETRIES_SECONDS


class PrivateRedis:
    """A Redis server of the test's own, on a fixed port, that can be stopped and restarted
    empty without touching anybody else's."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                embedded_redis._redis_server_binary(),
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        embedded_redis._wait_until_ready(self.port)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def restart_empty(self) -> None:
        self.stop()
        self.start()


@dataclass
class Chaos:
    redis: PrivateRedis
    env: dict[str, str]
    logs: Path
    media: Path
    app: Celery
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    # -- processes
    def worker(
        self, name: str, *, concurrency: int = 1, queues: str = ALL_QUEUES, **env: str
    ) -> subprocess.Popen[bytes]:
        log = self.logs / f"{name}.log"
        proc = start(
            worker_args(name=name, concurrency=concurrency, queues=queues),
            env={**self.env, **env},
            log=log,
        )
        self.procs.append(proc)
        wait_for_worker(self.app, name, proc, log)
        return proc

    def beat(self) -> subprocess.Popen[bytes]:
        schedule = self.logs / f"beat-{len(self.procs)}.schedule"
        proc = start(
            ["-m", "celery", "-A", "config", "beat", "--loglevel=info", f"--schedule={schedule}"],
            env=self.env,
            log=self.logs / "beat.log",
        )
        self.procs.append(proc)
        return proc

    def web(self) -> str:
        port = free_port()
        proc = start(web_args(port), env=self.env, log=self.logs / "web.log")
        self.procs.append(proc)
        return f"http://127.0.0.1:{port}"

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                kill_group(proc)
        self.procs.clear()

    # -- jobs
    def send(self, job: PdfJob, task_id: str | None = None) -> str:
        task_id = task_id or task_id_for(job.job_id)
        self.app.send_task("jobs.render_pdf", args=[str(job.job_id)], task_id=task_id)
        return task_id

    def stored_objects(self) -> list[str]:
        folder = self.media / "reports"
        return sorted(p.name for p in folder.glob("*.pdf")) if folder.exists() else []

    def logs_tail(self) -> str:
        return "\n".join(f"== {p.name}\n{tail(p, 30)}" for p in sorted(self.logs.glob("*.log")))


def wait_for(predicate: Any, *, timeout: float, what: str, chaos: Chaos | None = None) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    logs = chaos.logs_tail() if chaos else ""
    raise AssertionError(f"timed out after {timeout}s waiting for {what}\n{logs}")


def wait_terminal(chaos: Chaos, *jobs: PdfJob, timeout: float = 60) -> list[PdfJob]:
    def done() -> bool:
        for job in jobs:
            job.refresh_from_db()
        return all(job.status in TERMINAL for job in jobs)

    wait_for(done, timeout=timeout, what="jobs to finish", chaos=chaos)
    return list(jobs)


def wait_processing(chaos: Chaos, job: PdfJob, *, timeout: float = 30) -> PdfJob:
    def processing() -> bool:
        job.refresh_from_db()
        return job.status == "processing" and job.stage == "started" and bool(job.worker)

    wait_for(processing, timeout=timeout, what=f"job {job.job_id} to start", chaos=chaos)
    return job


def kill_attempt(job: PdfJob, sig: int = signal.SIGKILL) -> int:
    """Kill the pool child running the job's current attempt."""
    pid = int(job.worker.split(":")[1])  # host:pid:scope-instance
    os.kill(pid, sig)
    return pid


class EventRecorder:
    """Subscribes to jobs' channel-layer groups on the private Redis and keeps every event."""

    def __init__(self, redis_url: str, jobs: list[PdfJob]) -> None:
        self.redis_url = redis_url
        self.job_ids = [job.job_id for job in jobs]
        self.groups = [job_group(job_id) for job_id in self.job_ids]
        self.events: list[dict[str, Any]] = []
        self._ready = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._run()), daemon=True)

    async def _run(self) -> None:
        layer = RedisChannelLayer(hosts=[self.redis_url])
        channel = await layer.new_channel()
        for group in self.groups:
            await layer.group_add(group, channel)
        self._ready.set()
        receiver = Receiver(layer, channel)
        rejoin = False
        while not self._stop.is_set():
            try:
                if rejoin:
                    # A server restarted empty has forgotten the groups: without joining
                    # them again, every later event went unrecorded (and unchecked for
                    # duplicates), and the exit waited out its 30 s for final events.
                    for group in self.groups:
                        await layer.group_add(group, channel)
                    rejoin = False
                message = await receiver.next(0.3)
            except Exception:
                await asyncio.sleep(0.2)  # the server is being restarted
                rejoin = True
                continue
            if message is not None:
                self.events.append(message["event"])
        await receiver.close()
        await layer.flush()

    def __enter__(self) -> EventRecorder:
        self._thread.start()
        self._ready.wait(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        # A job's final event is published after the commit that the test saw: wait until
        # every job that is final in the database has its event here (on a loaded machine
        # that took longer than a fixed pause, and a completion went uncounted), then a
        # moment more for any duplicate to land.
        deadline = time.monotonic() + 30
        while exc[0] is None and time.monotonic() < deadline and self._final_events_missing():
            time.sleep(0.1)
        time.sleep(0.5)
        self._stop.set()
        self._thread.join(timeout=10)

    def _final_events_missing(self) -> bool:
        final = dict(
            PdfJob.objects.filter(job_id__in=self.job_ids, status__in=TERMINAL).values_list(
                "job_id", "status"
            )
        )
        seen = {(e.get("job_id"), e.get("status")) for e in list(self.events)}
        return any((str(job_id), status) not in seen for job_id, status in final.items())

    def completions(self, job: PdfJob) -> int:
        return sum(
            1 for e in self.events if e["job_id"] == str(job.job_id) and e["status"] == "completed"
        )

    def claims(self, job: PdfJob) -> int:
        return sum(
            1 for e in self.events if e["job_id"] == str(job.job_id) and e["stage"] == "started"
        )


@pytest.fixture
def chaos(transactional_db, tmp_path: Path) -> Iterator[Chaos]:
    workdir = tmp_path / "redis"
    workdir.mkdir()
    redis = PrivateRedis(workdir)
    redis.start()
    media = tmp_path / "media"
    logs = tmp_path / "logs"
    logs.mkdir()
    env = {
        **os.environ,
        **CHAOS_SETTINGS,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        "REDIS_URL": redis.url,
        "CELERY_BROKER_URL": broker_url_for_tests(redis.url),
        "MEDIA_ROOT": str(media),
        "PYTHONUNBUFFERED": "1",
    }
    app = Celery("chaos", broker=env["CELERY_BROKER_URL"], set_as_current=False)
    # Celery prefers a CELERY_BROKER_URL in the environment to broker= and broker_url;
    # the read and write URLs it does not.
    app.conf.update(
        broker_read_url=env["CELERY_BROKER_URL"],
        broker_write_url=env["CELERY_BROKER_URL"],
        task_default_queue="pdf",
        broker_connection_retry_on_startup=True,
    )
    harness = Chaos(redis=redis, env=env, logs=logs, media=media, app=app)
    if not env["CELERY_BROKER_URL"].startswith("redis"):
        app.control.purge()  # a shared broker: an earlier test's leftovers must not run here
    try:
        yield harness
    finally:
        harness.stop_all()
        app.close()
        redis.stop()
