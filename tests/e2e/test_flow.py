"""The seed's flow against real processes: submit over HTTP, follow by polling, SSE and
WebSocket, download the PDF and read it back."""

from __future__ import annotations

import itertools
import json
import time

import httpx
import pytest
from standardwebhooks.webhooks import Webhook
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from accounts.models import ApiKey
from accounts.services import api_key_create
from jobs import dispatch
from reports.samples import sample_files, template_sync_samples
from tests.conftest import pdf_text
from tests.e2e.conftest import read_sse, wait_for_status
from tests.factories import PdfJobFactory, UserFactory
from tests.http_receiver import Receiver

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

INVOICE = """<h1>Invoice for {{customer}}</h1>
<table>{{#each lines}}
<tr><td>{{@index}}</td><td>{{item}}</td><td>{{price}}</td></tr>
{{/each}}</table>
<p>Thank you, {{customer}}.</p>"""
TERMINAL = {"completed", "failed", "cancelled"}


def _status_changes(events: list[dict]) -> list[str]:
    return [status for status, _ in itertools.groupby(e["status"] for e in events)]


def test_seed_flow_submit_poll_download(http):
    data = {
        "customer": "Zephyr Widgets",
        "lines": [{"item": f"Gear {i}", "price": i} for i in range(60)],
    }
    submitted = http.post(
        "/api/v1/generate-pdf-async",
        json={
            "html_template": INVOICE,
            "data": data,
            "engine": "handlebars",
            "options": {"filename": "zephyr invoice"},
        },
    )
    assert submitted.status_code == 202
    body = submitted.json()
    assert body["status"] == "queued"

    job = wait_for_status(http, body["status_url"], until=TERMINAL)
    assert job["status"] == "completed", job
    assert job["attempts"] == 1
    assert job["progress"] == 100
    assert job["error"] is None
    assert job["started_at"] <= job["completed_at"]

    download = httpx.get(job["pdf_url"], timeout=30)  # the signed link needs no key
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/pdf"
    assert 'filename="zephyr invoice.pdf"' in download.headers["content-disposition"]
    pages, text = pdf_text(download.content)
    assert pages == job["page_count"] >= 2  # sixty rows do not fit on one A4 page
    assert "Invoice for Zephyr Widgets" in text
    assert "Gear 59" in text


def test_stored_sample_template_renders_multi_page(http):
    template_sync_samples()
    _, _, data = sample_files("sales-report")
    body = http.post(
        "/api/v1/generate-pdf-async", json={"template": "sales-report", "data": data}
    ).json()
    job = wait_for_status(http, body["status_url"], until=TERMINAL)
    assert job["status"] == "completed", job
    pages, text = pdf_text(httpx.get(job["pdf_url"], timeout=30).content)
    assert pages == job["page_count"] >= 6
    assert data["title"] in text
    assert f"Page {pages} of {pages}" in text


def test_render_error_fails_with_an_actionable_message(http):
    body = http.post(
        "/api/v1/generate-pdf-async",
        json={"html_template": "<p>{{shout name}}</p>", "data": {"name": "x"}},
    ).json()
    job = wait_for_status(http, body["status_url"], until=TERMINAL)
    assert job["status"] == "failed"
    assert job["attempts"] == 1  # a template error is permanent: no retries
    assert "Missing helper" in job["error"]
    assert "shout" in job["error"]
    assert job["pdf_url"] is None


def test_sse_sends_one_event_per_status_change_then_closes(live_stack, http, integrator):
    user, key = integrator
    job = PdfJobFactory(owner=user, html_template="<h1>{{t}}</h1>", data={"t": "streamed"})
    events: list[dict] = []
    with (
        httpx.Client(timeout=60) as client,
        client.stream(
            "GET", live_stack.url(f"/api/v1/jobs/{job.job_id}/events"), headers={"X-API-Key": key}
        ) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = read_sse(response.iter_lines())
        events.append(next(stream))
        assert events[0]["status"] == "queued"
        dispatch.job_enqueue(job_id=job.job_id)  # only now may the worker start
        events.extend(stream)  # ends when the server closes the stream
    assert _status_changes(events) == ["queued", "processing", "completed"]
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(set(seqs))
    assert [int(e["_id"]) for e in events] == seqs
    assert events[-1]["pdf_url"].startswith(live_stack.base_url)
    assert "streamed" in pdf_text(httpx.get(events[-1]["pdf_url"]).content)[1]


def test_sse_resumes_after_last_event_id(live_stack, http, integrator):
    user, key = integrator
    job = PdfJobFactory(owner=user)
    dispatch.job_enqueue(job_id=job.job_id)
    done = wait_for_status(http, f"/api/v1/jobs/{job.job_id}", until=TERMINAL)
    with httpx.Client(timeout=30) as client:
        fresh = client.get(
            live_stack.url(f"/api/v1/jobs/{job.job_id}/events"), headers={"X-API-Key": key}
        )
        assert [e["seq"] for e in read_sse(iter(fresh.text.splitlines()))] == [done["seq"]]
        resumed = client.get(
            live_stack.url(f"/api/v1/jobs/{job.job_id}/events"),
            headers={"X-API-Key": key, "Last-Event-ID": str(done["seq"] - 1)},
        )
        assert [e["status"] for e in read_sse(iter(resumed.text.splitlines()))] == ["completed"]


def test_websocket_follows_the_job_to_completion(live_stack, integrator):
    user, key = integrator
    job = PdfJobFactory(owner=user, html_template="<p>{{w}}</p>", data={"w": "socket"})
    events: list[dict] = []
    with connect(
        live_stack.ws_url(f"/ws/jobs/{job.job_id}/"),
        additional_headers={"X-API-Key": key},
        open_timeout=10,
    ) as ws:
        events.append(json.loads(ws.recv(timeout=10)))
        dispatch.job_enqueue(job_id=job.job_id)
        while events[-1]["status"] not in TERMINAL:
            events.append(json.loads(ws.recv(timeout=60)))
    assert _status_changes(events) == ["queued", "processing", "completed"]
    assert events[-1]["pdf_url"]
    assert events[-1]["page_count"] == 1


def test_live_endpoints_refuse_strangers(live_stack, integrator):
    user, _ = integrator
    job = PdfJobFactory(owner=user)
    stranger_key = api_key_create(user=UserFactory(username="stranger"))[1]
    events_url = live_stack.url(f"/api/v1/jobs/{job.job_id}/events")
    assert httpx.get(events_url).status_code == 401
    assert httpx.get(events_url, headers={"X-API-Key": stranger_key}).status_code == 404
    assert httpx.get(events_url, headers={"X-API-Key": "rk_bad_key"}).status_code == 401
    for headers, code in (({}, 4401), ({"X-API-Key": stranger_key}, 4404)):
        with connect(
            live_stack.ws_url(f"/ws/jobs/{job.job_id}/"), additional_headers=headers
        ) as ws:
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd.code == code


def test_idempotent_submit_over_http(http):
    body = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}
    first = http.post("/api/v1/generate-pdf-async", json=body, headers={"Idempotency-Key": "o-1"})
    again = http.post("/api/v1/generate-pdf-async", json=body, headers={"Idempotency-Key": "o-1"})
    other = http.post(
        "/api/v1/generate-pdf-async",
        json={**body, "data": {"n": 2}},
        headers={"Idempotency-Key": "o-1"},
    )
    assert (first.status_code, again.status_code, other.status_code) == (202, 202, 422)
    assert again.json()["job_id"] == first.json()["job_id"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "different request" in other.json()["error"]


def test_completion_callback_is_posted_once_signed(http, integrator):
    hook = Receiver()
    try:
        body = http.post(
            "/api/v1/generate-pdf-async",
            json={"html_template": "<p>hook</p>", "callback_url": hook.url},
        ).json()
        job = wait_for_status(http, body["status_url"], until=TERMINAL)
        deadline = time.monotonic() + 20
        while not hook.received and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(1)  # a duplicate would arrive by now
    finally:
        hook.server.shutdown()
    assert job["status"] == "completed"
    assert len(hook.received) == 1
    headers, payload = hook.received[0]
    assert payload["type"] == "job.completed"
    assert payload["data"]["status"] == "completed"
    assert payload["data"]["job_id"] == body["job_id"]
    assert headers["Idempotency-Key"] == f"{body['job_id']}:completed"
    # A receiver checks it exactly as docs/guides/webhooks.md shows, with the signing secret.
    secret = ApiKey.objects.get(user=integrator[0]).webhook_secret
    verified = Webhook(secret).verify(hook.raw[0], {k.lower(): v for k, v in headers.items()})
    assert verified == payload
    deliveries = http.get(f"/api/v1/jobs/{body['job_id']}/deliveries").json()
    assert [d["webhook_id"] for d in deliveries] == [headers["webhook-id"]]
    assert [a["status_code"] for a in deliveries[0]["attempts"]] == [200]
