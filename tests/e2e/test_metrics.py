"""/metrics on the live stack adds up the web process and the worker's pool children."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from websockets.sync.client import connect

from jobs.models import JobStatus
from tests.e2e.conftest import wait_for_status
from tests.factories import PdfJobFactory
from tests.prometheus_text import Samples, parse, value

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]
TERMINAL = {"completed", "failed", "cancelled"}


def scrape(live_stack) -> Samples:
    response = httpx.get(live_stack.url("/metrics"), timeout=10)
    assert response.status_code == 200
    return parse(response.text)


def test_a_job_is_counted_by_the_web_process_and_timed_by_the_worker(http, live_stack):
    before = scrape(live_stack)
    body = http.post(
        "/api/v1/generate-pdf-async",
        json={"html_template": "<h1>{{n}}</h1>", "data": {"n": 1}},
    ).json()
    job = wait_for_status(http, body["status_url"], until=TERMINAL)
    assert job["status"] == "completed", job
    after = scrape(live_stack)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    # Counted in uvicorn (the submit) and in a Celery pool child (the transitions).
    assert delta("pdf_jobs_submitted_total", renderer="xhtml2pdf") == 1
    assert delta("pdf_jobs_completed_total", renderer="xhtml2pdf") == 1
    labels = {"renderer": "xhtml2pdf", "template": "inline"}
    assert delta("pdf_generation_seconds_count", **labels) == 1
    assert 0 < delta("pdf_generation_seconds_sum", **labels) < 60
    for stage in ("started", "rendering_template", "laying_out", "storing"):
        assert delta("pdf_render_stage_seconds_count", stage=stage) == 1, stage


def test_open_streams_are_counted_while_open(http, live_stack, integrator):
    # A processing job no worker holds: its streams stay open until it is cancelled.
    job = PdfJobFactory(owner=integrator[0], status=JobStatus.PROCESSING)
    body = {"job_id": str(job.job_id), "status_url": f"/api/v1/jobs/{job.job_id}"}
    base = scrape(live_stack)
    stop = threading.Event()

    def follow_sse() -> None:
        with httpx.stream(
            "GET",
            live_stack.url(f"/api/v1/jobs/{body['job_id']}/events"),
            headers={"X-API-Key": integrator[1]},
            timeout=30,
        ) as response:
            for _ in response.iter_lines():
                if stop.is_set():
                    return

    reader = threading.Thread(target=follow_sse, daemon=True)
    reader.start()
    with connect(
        live_stack.ws_url(f"/ws/jobs/{body['job_id']}/"),
        additional_headers={"X-API-Key": integrator[1]},
    ):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            during = scrape(live_stack)
            if value(during, "pdf_live_streams", transport="sse") > value(
                base, "pdf_live_streams", transport="sse"
            ) and value(during, "pdf_live_streams", transport="websocket") > value(
                base, "pdf_live_streams", transport="websocket"
            ):
                break
            time.sleep(0.2)
        else:
            raise AssertionError(f"streams not counted: {during}")
    stop.set()
    assert http.post(f"/api/v1/jobs/{job.job_id}/cancel").status_code == 200
    reader.join(timeout=20)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        after = scrape(live_stack)
        if value(after, "pdf_live_streams", transport="websocket") == value(
            base, "pdf_live_streams", transport="websocket"
        ) and value(after, "pdf_live_streams", transport="sse") == value(
            base, "pdf_live_streams", transport="sse"
        ):
            return
        time.sleep(0.2)
    raise AssertionError(f"streams still counted after closing: {after}")


def test_the_live_worker_is_counted_alive(live_stack):
    from jobs.worker.presence import workers_alive

    assert value(scrape(live_stack), "pdf_workers_alive") >= 1
    alive = workers_alive()
    assert any(w["hostname"].startswith("e2e-") and "pdf" in w["queues"] for w in alive), alive
