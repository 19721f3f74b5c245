"""A real stack for end-to-end tests: an ASGI web server and a Celery worker, both separate
processes on the test database and the same Redis as the tests."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings

from config.celery_app import app as celery_app
from jobs.api_keys import api_key_create
from tests.factories import UserFactory
from tests.processes import (
    database_url_for_tests,
    free_port,
    start,
    stop,
    tail,
    wait_for_worker,
    worker_args,
)


@dataclass
class Stack:
    base_url: str
    logs: Path

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def ws_url(self, path: str) -> str:
        return self.base_url.replace("http://", "ws://") + path


def _wait_for_web(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"web server exited:\n{tail(log)}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"web server did not start:\n{tail(log)}")


def web_args(port: int) -> list[str]:
    return [
        "-m",
        "uvicorn",
        "config.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]


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
        _wait_for_web(f"http://127.0.0.1:{port}/api/v1/schema/", web, web_log)
        wait_for_worker(celery_app, name, worker, worker_log)
        yield Stack(base_url=f"http://127.0.0.1:{port}", logs=logs)
    finally:
        stop(worker)
        stop(web)


@pytest.fixture
def integrator(transactional_db) -> tuple[Any, str]:
    user = UserFactory(username="integrator")
    return user, api_key_create(user=user, name="e2e")[1]


@pytest.fixture
def http(live_stack, integrator) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=live_stack.base_url, headers={"X-API-Key": integrator[1]}, timeout=30
    ) as client:
        yield client


def wait_for_status(
    client: httpx.Client, status_url: str, *, until: set[str], timeout: float = 60
) -> dict[str, Any]:
    """Poll the status URL the way the seed's client does, until a terminal status."""
    deadline = time.monotonic() + timeout
    seen: dict[str, Any] = {}
    while time.monotonic() < deadline:
        seen = client.get(status_url).json()
        if seen["status"] in until:
            return seen
        time.sleep(0.2)
    raise AssertionError(f"job did not reach {until} in {timeout}s; last: {json.dumps(seen)}")


def read_sse(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """Parse a Server-Sent Events stream into its data payloads (comments are skipped)."""
    data: list[str] = []
    event_id = None
    for line in lines:
        if line == "":
            if data:
                payload = json.loads("\n".join(data))
                payload["_id"] = event_id
                yield payload
            data, event_id = [], None
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line.startswith("id:"):
            event_id = line[3:].strip()
