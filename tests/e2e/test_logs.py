"""Logs on the live stack: JSON lines, the job's context on every line it causes in web and
worker, and no token or API key anywhere (uvicorn's access log included)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import wait_for_status
from tests.livestack import wait_for_web
from tests.processes import free_port, start, stop, web_args

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def _lines_about(log: Path, job_id: str) -> list[dict[str, Any]]:
    """Every line that names the job, parsed: each one must be a JSON object."""
    found = []
    for line in log.read_text(errors="replace").splitlines():
        if job_id in line:
            parsed = json.loads(line)  # a line that is not JSON fails the test here
            assert isinstance(parsed, dict)
            found.append(parsed)
    return found


def test_worker_and_web_lines_carry_the_job_context(http, live_stack, integrator):
    user, key = integrator
    body = http.post(
        "/api/v1/generate-pdf-async", json={"html_template": "<p>{{x}}</p>", "data": {"x": 1}}
    ).json()
    job = wait_for_status(http, body["status_url"], until={"completed", "failed"})
    assert job["status"] == "completed", job
    job_id = body["job_id"]

    # The task logs its success just after the job's row says completed.
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        worker_lines = _lines_about(live_stack.logs / "worker.log", job_id)
        if any(" succeeded in " in line["event"] for line in worker_lines):
            break
        time.sleep(0.2)
    assert all(line["job_id"] == job_id for line in worker_lines)
    events = [line["event"] for line in worker_lines]
    assert any(e.startswith("Task jobs.render_pdf[") and e.endswith("received") for e in events)
    done = next(line for line in worker_lines if " succeeded in " in line["event"])
    # Lines from inside the task also say whose job, which attempt and where it was.
    assert done["tenant"] == str(user.pk)
    assert done["attempt"] == 1
    assert done["stage"] == "storing"
    assert {"timestamp", "level", "logger"} <= done.keys()

    web_lines = _lines_about(live_stack.logs / "web.log", job_id)
    accepted = next(line for line in web_lines if line["event"].startswith("job accepted"))
    assert accepted["tenant"] == str(user.pk)
    assert accepted["path"] == "/api/v1/generate-pdf-async"
    assert accepted["request_id"]

    for log in (live_stack.logs / "worker.log", live_stack.logs / "web.log"):
        assert key not in log.read_text(errors="replace")


def test_access_log_has_no_download_token_or_api_key(http, live_stack, stack_env, tmp_path):
    body = http.post(
        "/api/v1/generate-pdf-async", json={"html_template": "<p>t</p>", "data": {}}
    ).json()
    job = wait_for_status(http, body["status_url"], until={"completed", "failed"})
    token = httpx.URL(job["pdf_url"]).params["token"]
    key = http.headers["X-API-Key"]

    # A second web process on the same database, with uvicorn's access log on.
    port, log = free_port(), tmp_path / "access.log"
    args = [*web_args(port)]
    args[args.index("--log-level") + 1] = "info"
    web = start(args, env=stack_env, log=log)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for_web(f"{base}/livez", web, log)
        path = httpx.URL(job["pdf_url"]).raw_path.decode()
        assert httpx.get(f"{base}{path}", timeout=30).status_code == 200
        assert httpx.get(f"{base}/api/v1/jobs/{body['job_id']}?api_key={key}").status_code
    finally:
        stop(web)
    text = log.read_text(errors="replace")
    assert token not in text
    assert key not in text
    access = [
        json.loads(line)
        for line in text.splitlines()
        if line.startswith("{") and json.loads(line)["logger"] == "uvicorn.access"
    ]
    download = next(line for line in access if "/pdf" in line["path"])
    assert download["path"].endswith("?token=[redacted]")
    assert download["method"] == "GET"
    assert download["status"] == 200
