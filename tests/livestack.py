"""A real stack started once per test session: an ASGI web server (uvicorn) and a Celery
worker, separate processes on the test database and the same Redis as the tests. Used by
the end-to-end tests (tests/e2e) and the browser tests (tests/browser)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from django.conf import settings

from config.celery_app import app as celery_app

BASE_DIR = Path(__file__).resolve().parents[1]


@dataclass
class Stack:
    base_url: str
    logs: Path

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def ws_url(self, path: str) -> str:
        return self.base_url.replace("http://", "ws://") + path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _database_url() -> str:
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def _tail(path: Path, lines: int = 40) -> str:
    return (
        "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""
    )


def _wait_for_web(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"web server exited:\n{_tail(log)}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"web server did not start:\n{_tail(log)}")


def _wait_for_worker(proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited:\n{_tail(log)}")
        if celery_app.control.ping(timeout=0.5):
            return
    raise RuntimeError(f"worker did not start:\n{_tail(log)}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="session")
def stack_env(django_db_setup, tmp_path_factory) -> dict[str, str]:
    media = tmp_path_factory.mktemp("e2e-media")
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": settings.REDIS_URL,
        "MEDIA_ROOT": str(media),
        "PYTHONUNBUFFERED": "1",
    }


@pytest.fixture(scope="session")
def live_stack(stack_env, tmp_path_factory) -> Iterator[Stack]:
    """Start uvicorn and one Celery worker for the whole session."""
    logs = tmp_path_factory.mktemp("e2e-logs")
    port = _free_port()
    web_log, worker_log = logs / "web.log", logs / "worker.log"
    celery_app.control.purge()  # leftovers of an earlier run must not reach this worker
    web = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=BASE_DIR,
        env=stack_env,
        stdout=web_log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--loglevel=info",
            "--concurrency=2",
            "--queues=pdf",
            "--without-gossip",
            "--without-mingle",
            f"--hostname=e2e-{port}@%h",
        ],
        cwd=BASE_DIR,
        env=stack_env,
        stdout=worker_log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        _wait_for_web(f"http://127.0.0.1:{port}/api/v1/schema/", web, web_log)
        _wait_for_worker(worker, worker_log)
        yield Stack(base_url=f"http://127.0.0.1:{port}", logs=logs)
    finally:
        _stop(worker)
        _stop(web)
