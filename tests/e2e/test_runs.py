"""Runs on the live stack: a CSV upload with a bad row rendered by a real worker and
followed over SSE, its ZIP read back; a combined PDF with a bookmark per record, built
by a worker while the download answers 202; and
retry-failed re-rendering only the record whose worker was lost."""

from __future__ import annotations

import io
import json
import time
import zipfile
from typing import Any

import httpx
import pytest
from pypdf import PdfReader
from websockets.sync.client import connect

from jobs.error_codes import JobErrorCode
from jobs.models import JobStatus, PdfJob
from reports.services import template_create
from runs.progress import run_recount
from tests.e2e.conftest import read_sse

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

SCHEMA = {
    "type": "object",
    "required": ["number", "customer"],
    "properties": {"number": {"type": "integer"}, "customer": {"type": "string"}},
}


@pytest.fixture
def invoice(integrator):
    return template_create(
        owner=integrator[0],
        name="Invoice",
        slug="run-invoice",
        html="<h1>Invoice {{number}}</h1><p>For {{customer}}</p>",
        schema=SCHEMA,
    )


def _wait_finished(http: httpx.Client, url: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = http.get(url).json()
        if state["status"] != "running":
            return state
        time.sleep(0.2)
    raise AssertionError(f"run did not finish in {timeout}s: {json.dumps(state)[:500]}")


def test_csv_run_with_a_bad_row_renders_the_rest_into_a_zip(http, invoice):
    csv_text = "number,customer\n" + "".join(f"{n},Client {n}\n" for n in range(1, 5))
    csv_text += "oops,Nobody\n5,Client 5\n"
    created = http.post(
        "/api/v1/runs",
        data={"template": "run-invoice", "output": "zip", "filename_pattern": "inv-{number}"},
        files={"file": ("records.csv", csv_text.encode(), "text/csv")},
    )
    assert created.status_code == 202, created.text
    body = created.json()
    assert (body["total"], body["failed"]) == (6, 1)

    events = []
    with http.stream("GET", body["status_url"] + "/events", timeout=60) as stream:
        for event in read_sse(stream.iter_lines()):
            events.append(event)
            if event["status"] != "running":
                break
    assert events[-1]["status"] == "partial"
    assert events[-1]["progress"] == 100
    assert [e["completed"] for e in events] == sorted(e["completed"] for e in events)

    state = http.get(body["status_url"]).json()
    assert (state["completed"], state["failed"]) == (5, 1)
    assert state["records"][4]["status"] == "invalid"
    assert state["records"][4]["error"] == "row 6: number: expected integer"
    started = time.monotonic()
    with httpx.stream("GET", state["download_url"], timeout=30) as download:
        assert download.status_code == 200
        chunks = download.iter_bytes()
        content = next(chunks)
        first_byte = time.monotonic() - started
        content += b"".join(chunks)
    assert first_byte < 1.0  # the ZIP starts streaming at once
    archive = zipfile.ZipFile(io.BytesIO(content))
    assert archive.namelist() == [f"inv-{n}.pdf" for n in range(1, 6)] + ["failures.csv"]
    text = PdfReader(io.BytesIO(archive.read("inv-3.pdf"))).pages[0].extract_text()
    assert "Invoice 3" in text
    assert "Client 3" in text
    assert "row 6: number: expected integer" in archive.read("failures.csv").decode()


def _combined(url: str) -> bytes:
    """A combined PDF is built on a worker: 202 (being prepared) first, then the file."""
    first = httpx.get(url, timeout=30)
    assert first.status_code == 202, first.text
    assert first.json()["status"] == "preparing"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = httpx.get(url, timeout=30)
        if answer.status_code == 200:
            assert answer.headers["content-type"] == "application/pdf"
            return answer.content
        assert answer.status_code == 202, answer.text
        time.sleep(0.2)
    raise AssertionError("the combined PDF was not built within 60 s")


def test_combined_run_and_retry_failed_rerenders_only_the_lost_record(
    http, invoice, live_stack, integrator
):
    records = [{"number": n, "customer": f"Client {n}"} for n in (10, 11, 12)]
    created = http.post(
        "/api/v1/runs",
        json={
            "template": "run-invoice",
            "records": records,
            "output": "combined",
            "filename_pattern": "Invoice {number}",
        },
    )
    assert created.status_code == 202, created.text
    run_id = created.json()["run_id"]
    with connect(
        live_stack.ws_url(f"/ws/runs/{run_id}/"),
        additional_headers={"X-API-Key": integrator[1]},
        open_timeout=10,
    ) as ws:
        # The server closes the socket once the run finished (iteration then ends).
        messages = [json.loads(message) for message in ws]
    assert ws.close_code == 1000
    assert messages[-1]["status"] == "completed"
    assert messages[-1]["completed"] == 3
    assert messages[-1]["status_url"].endswith(f"/api/v1/runs/{run_id}")
    state = http.get(created.json()["status_url"]).json()
    assert state["status"] == "completed", state

    reader = PdfReader(io.BytesIO(_combined(state["download_url"])))
    assert len(reader.pages) == 3
    # One bookmark per record; a record's own bookmarks (its headings) nest under it.
    top = [item.title for item in reader.outline if not isinstance(item, list)]
    assert top == ["Invoice 10", "Invoice 11", "Invoice 12"]
    assert "Client 11" in reader.pages[1].extract_text()

    # The second record's worker is lost for good (what the reconciler records when its
    # attempts run out): the job fails with a code a retry can fix.
    lost = PdfJob.objects.get(job_id=state["records"][1]["job_id"])
    PdfJob.objects.filter(pk=lost.pk).update(
        status=JobStatus.FAILED, error="worker lost", error_code=JobErrorCode.WORKER_LOST
    )
    assert run_recount(run_id=state["run_id"]).status == "partial"
    others = {
        job.job_id: job.completed_at
        for job in PdfJob.objects.filter(batch_id=state["run_id"]).exclude(pk=lost.pk)
    }

    retried = http.post(f"/api/v1/runs/{state['run_id']}/retry-failed")
    assert retried.status_code == 202, retried.text
    assert retried.json()["status"] == "running"
    again = _wait_finished(http, state["status_url"])
    assert again["status"] == "completed"
    lost.refresh_from_db()
    assert lost.status == JobStatus.COMPLETED
    assert lost.earlier_attempts == 1
    for job in PdfJob.objects.filter(job_id__in=others):
        assert job.completed_at == others[job.job_id]  # not rendered again
    rebuilt = PdfReader(io.BytesIO(_combined(again["download_url"])))
    assert len([item for item in rebuilt.outline if not isinstance(item, list)]) == 3
