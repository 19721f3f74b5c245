"""Flower, the optional Procfile process, sees the live stack's tasks through the broker,
turning the workers' task events on itself (they are off by default)."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.conftest import wait_for_status
from tests.processes import free_port, start, stop, tail

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def _wait_for_flower(base: str, proc, log) -> None:
    deadline = time.monotonic() + 40
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"flower exited:\n{tail(log)}")
        try:
            if httpx.get(f"{base}/healthcheck", timeout=1).text == "OK":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"flower did not start:\n{tail(log)}")


def test_flower_turns_worker_events_on_and_shows_a_render_task(http, stack_env, tmp_path):
    port, log = free_port(), tmp_path / "flower.log"
    env = {**stack_env, "FLOWER_UNAUTHENTICATED_API": "true"}
    flower = start(
        ["-m", "celery", "-A", "config", "flower", "--address=127.0.0.1", f"--port={port}"],
        env=env,
        log=log,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for_flower(base, flower, log)
        # Task events are off by default (CELERY_TASK_EVENTS): Flower turns the workers'
        # on by itself (its enable_events, every 5 s), so a job submitted before that goes
        # unseen and the next one shows.
        deadline = time.monotonic() + 45
        seen: dict = {}
        while time.monotonic() < deadline:
            body = http.post(
                "/api/v1/generate-pdf-async", json={"html_template": "<p>f</p>", "data": {}}
            ).json()
            assert wait_for_status(http, body["status_url"], until={"completed"})
            time.sleep(0.5)  # the succeeded event reaches Flower just after the row
            tasks = httpx.get(f"{base}/api/tasks", timeout=5).json()
            seen = {
                task_id: task
                for task_id, task in tasks.items()
                if body["job_id"] in task_id and task.get("name") == "jobs.render_pdf"
            }
            if any(task.get("state") == "SUCCESS" for task in seen.values()):
                break
            time.sleep(1)
        else:
            raise AssertionError(f"flower never saw a task succeed: {seen}\n{tail(log)}")
        task = next(iter(seen.values()))
        assert task["received"], "no task-received event from the worker"
        # The publisher's task-sent event stays off unless CELERY_TASK_EVENTS=true.
        assert not task.get("sent")
        assert task["worker"].startswith("e2e-")
        workers = httpx.get(f"{base}/api/workers?refresh=1", timeout=15).json()
        assert any(name.startswith("e2e-") for name in workers), workers
    finally:
        stop(flower)
