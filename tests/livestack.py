"""A real stack started once per test session: an ASGI web server (uvicorn) and a Celery
worker, separate processes on the test database and the same Redis as the tests. Used by
the end-to-end tests (tests/e2e) and the browser tests (tests/browser)."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from config.celery_app import app as celery_app
from tests.processes import (
    ALL_QUEUES,
    database_url_for_tests,
    free_port,
    log_start,
    read_from,
    start,
    stop,
    tail,
    wait_for_worker,
    web_args,
    worker_args,
)


@dataclass
class Stack:
    base_url: str
    logs: Path
    worker: str  # the Celery worker's node name, for remote control (held_queue)

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def ws_url(self, path: str) -> str:
        return self.base_url.replace("http://", "ws://") + path


@contextmanager
def held_queue(stack: Stack, queue: str = "pdf") -> Iterator[Callable[[], None]]:
    """The stack's worker takes nothing from `queue` until the returned release() is called
    (or the block ends): a test that must see a job still queued, whatever the machine's
    speed, holds it there instead of racing the worker."""
    reply = celery_app.control.cancel_consumer(queue, destination=[stack.worker], reply=True)
    assert reply, f"worker {stack.worker} did not answer cancel_consumer"
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            _resume_consuming(stack, queue)

    try:
        yield release
    finally:
        release()


def _consumes(stack: Stack, queue: str) -> bool:
    answer = celery_app.control.inspect(destination=[stack.worker], timeout=2).active_queues()
    return queue in {q["name"] for q in (answer or {}).get(stack.worker, [])}


def _resume_consuming(stack: Stack, queue: str, within: float = 20.0) -> None:
    """Asks the worker to take from `queue` again until it says it does. Control messages
    are fire-and-forget broadcasts: one the worker misses leaves the queue unconsumed and
    the test's job queued until the test times out, with nothing saying why (the likeliest
    cause of a client test whose job never started)."""
    ends = time.monotonic() + within
    while True:
        celery_app.control.add_consumer(queue, destination=[stack.worker], reply=True, timeout=2)
        if _consumes(stack, queue):
            return
        assert time.monotonic() < ends, f"worker {stack.worker} did not resume consuming {queue!r}"
        time.sleep(0.2)


def purge(queues: Iterable[str]) -> None:
    """Drop every message waiting in `queues` (by name: `control.purge()` knows only the
    queues this process has sent to)."""
    with celery_app.connection_for_write() as connection:
        for queue in queues:
            connection.default_channel.queue_purge(queue)


@contextmanager
def jobs_held(stack: Stack) -> Iterator[None]:
    """Jobs, callbacks and mail that the block's requests queue are never run: held while
    the block runs and purged at its end, before the worker takes from those queues again.
    For tests about the answers to requests (the contract fuzzing), whose jobs would
    otherwise render beside the tests after them. Previews, which a request waits for,
    still run."""
    queues = ("pdf", "callbacks", "mail")
    with ExitStack() as held:
        for queue in queues:
            held.enter_context(held_queue(stack, queue))
        yield
        purge(queues)


def settle(stack: Stack, timeout: float = 120) -> None:
    """Nothing a test sent is left on the stack's worker when this returns: the queues are
    purged, retries waiting for their time are revoked, and the worker holds no task.

    The test database is flushed after each test with one TRUNCATE of every table. A task
    still running holds row locks on some table and then wants another the TRUNCATE has
    already locked; Postgres breaks that deadlock by failing the flush (CI, 2026-12-06:
    after the contract fuzzing of generate-pdf-batch had queued jobs)."""
    # Every queue the worker takes from, by name: a mail or callback message left waiting
    # would otherwise be taken after this returns and run during the flush.
    purge(ALL_QUEUES.split(","))
    inspect = celery_app.control.inspect(destination=[stack.worker], timeout=5)
    deadline = time.monotonic() + timeout
    held: dict[str, list[dict[str, object]]] = {}
    while time.monotonic() < deadline:
        scheduled = [
            entry["request"]["id"] for entry in (inspect.scheduled() or {}).get(stack.worker, [])
        ]
        if scheduled:
            celery_app.control.revoke(scheduled, destination=[stack.worker])
        held = {
            "active": (inspect.active() or {}).get(stack.worker, []),
            "reserved": (inspect.reserved() or {}).get(stack.worker, []),
        }
        if not any(held.values()):
            return
        time.sleep(0.2)
    raise AssertionError(f"the stack's worker still holds tasks after {timeout}s: {held}")


def wait_for_web(
    url: str, proc: subprocess.Popen[bytes], log: Path, *, timeout: float = 30
) -> None:
    """Until `url` answers and the answer is `proc`'s: for a uvicorn start() made, its own
    "running on" line for that address is in its log too. Another process on the port
    (one that took it first) would otherwise pass for it."""
    origin = str(httpx.URL(url).copy_with(path="/", query=None)).rstrip("/")
    logged_from = log_start(proc)
    deadline = time.monotonic() + timeout
    # One client for every try: httpx.get() makes a client, and its SSL context, each
    # time (~20 ms of CPU a try, a plain HTTP poll ~2 ms). No connection is kept between
    # tries: each asks whoever listens on the port now.
    no_keepalive = httpx.Limits(max_keepalive_connections=0)
    with httpx.Client(timeout=1, limits=no_keepalive) as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"web server exited:\n{tail(log)}")
            try:
                answered = client.get(url).status_code < 500
            except httpx.HTTPError:
                answered = False
            if answered and (
                logged_from is None or f"running on {origin}" in read_from(log, logged_from)
            ):
                return
            time.sleep(0.2)
    raise RuntimeError(f"web server did not start:\n{tail(log)}")


@pytest.fixture(scope="session")
def stack_env(django_db_setup, tmp_path_factory) -> dict[str, str]:
    media = tmp_path_factory.mktemp("e2e-media")
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": database_url_for_tests(),
        "REDIS_URL": settings.REDIS_URL,
        "MEDIA_ROOT": str(media),
        "PYTHONUNBUFFERED": "1",
        "PDF_PREVIEW_IN_PROCESS": "false",  # previews go to the worker's previews queue
        # One worker serves the whole session's e2e tests: its pool children are not
        # recycled after 200 tasks, so a replaced child means one was lost (the probes).
        "CELERY_WORKER_MAX_TASKS_PER_CHILD": "100000",
        # The template and page-script CPU limit (5 s by default): the endless loops of the
        # hostile tests spin to it, ten renders of them; no other render here needs 0.3 s.
        "PDF_TEMPLATE_TIMEOUT_MS": "2000",
    }


@pytest.fixture(scope="session")
def live_stack(stack_env, tmp_path_factory) -> Iterator[Stack]:
    """Start uvicorn and one Celery worker for the whole session."""
    logs = tmp_path_factory.mktemp("e2e-logs")
    port = free_port()
    web_log, worker_log = logs / "web.log", logs / "worker.log"
    celery_app.control.purge()  # leftovers of an earlier run must not reach this worker
    web = start(web_args(port), env=stack_env, log=web_log)
    name = f"e2e-{port}"
    worker = start(worker_args(name=name, concurrency=2), env=stack_env, log=worker_log)
    try:
        wait_for_web(f"http://127.0.0.1:{port}/api/v1/schema", web, web_log)
        wait_for_worker(celery_app, name, worker, worker_log)
        node = f"{name}@{socket.gethostname()}"
        yield Stack(base_url=f"http://127.0.0.1:{port}", logs=logs, worker=node)
    finally:
        stop(worker)
        stop(web)
