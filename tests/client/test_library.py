"""The Python library against the real stack (uvicorn + a Celery worker): submit, follow
over SSE (or by polling behind a proxy that blocks SSE), download, failures."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from pdfreports import AsyncClient, Client, JobFailed, JobState
from tests.client.blocking_proxy import sse_blocking_proxy
from tests.conftest import pdf_text
from tests.livestack import held_queue

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

INVOICE = "<h1>Invoice for {{customer}}</h1>{{#each lines}}<p>{{item}}: {{price}}</p>{{/each}}"
DATA = {"customer": "Quill & Co", "lines": [{"item": f"Nib {i}", "price": i} for i in range(90)]}


class RecordingTransport(httpx.HTTPTransport):
    """The real transport, noting each request's method and path."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[tuple[str, str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append((request.method, request.url.path))
        return super().handle_request(request)


def _assert_ordered(updates: list[JobState]) -> None:
    seqs = [u.seq for u in updates]
    assert seqs == sorted(set(seqs)), seqs
    assert updates[-1].status == "completed"


def test_submit_follows_server_sent_events_and_downloads(live_stack, integrator, tmp_path):
    transport = RecordingTransport()
    updates: list[JobState] = []

    def seen(update: JobState) -> None:
        updates.append(update)
        release()  # the job starts once the client has read its first state

    # Held queued until then: a worker faster than the client finished the job before its
    # first read, so it never opened the stream this test is about.
    with (
        held_queue(live_stack) as release,
        Client(live_stack.base_url, integrator[1], transport=transport) as client,
    ):
        job = client.submit(html_template=INVOICE, data=DATA, options={"filename": "quill"})
        state = job.wait(on_update=seen, timeout=90)
        saved = job.download(tmp_path)

    assert state.succeeded
    assert state.progress == 100
    _assert_ordered(updates)
    assert updates[0].status == "queued"
    assert {"processing", "completed"} <= {u.status for u in updates}
    job_path = f"/api/v1/jobs/{job.job_id}"
    # followed by one event stream: one status read before it, one before the download
    assert transport.requests.count(("GET", f"{job_path}/events")) == 1
    assert transport.requests.count(("GET", job_path)) == 2
    assert saved.name == "quill.pdf"
    pages, text = pdf_text(saved.read_bytes())
    assert pages == state.page_count >= 2
    assert "Invoice for Quill & Co" in text
    assert "Nib 89" in text
    assert not list(tmp_path.glob("*.part"))


def test_async_client_submits_waits_and_downloads(live_stack, integrator, tmp_path):
    async def run() -> tuple[JobState, list[JobState]]:
        updates: list[JobState] = []
        async with AsyncClient(live_stack.base_url, integrator[1]) as client:
            job = await client.submit(html_template=INVOICE, data=DATA)
            state = await job.wait(on_update=updates.append, timeout=90)
            await job.download(tmp_path / "async.pdf")
        return state, updates

    state, updates = asyncio.run(run())
    _assert_ordered(updates)
    pages, text = pdf_text((tmp_path / "async.pdf").read_bytes())
    assert pages == state.page_count
    assert "Nib 0" in text


def test_a_failed_job_raises_with_its_error(live_stack, integrator):
    with Client(live_stack.base_url, integrator[1]) as client:
        job = client.submit(html_template="<p>{{shout name}}</p>", data={"name": "x"})
        with pytest.raises(JobFailed) as raised:
            job.wait(timeout=60)
        with pytest.raises(JobFailed):
            job.download("never.pdf")
    failed = raised.value.state
    assert failed.status == "failed"
    assert "Missing helper" in failed.error
    assert "shout" in failed.error
    assert f"job {job.job_id} failed: " in str(raised.value)


def test_polls_when_a_proxy_blocks_server_sent_events(live_stack, integrator, tmp_path):
    updates: list[JobState] = []
    # The job waits in its queue until the client has met the refused stream: an idle
    # worker can otherwise finish it before wait() looks, and wait() then has nothing to
    # follow.
    with (
        held_queue(live_stack) as release,
        sse_blocking_proxy(live_stack.base_url, on_blocked=release) as proxy,
        Client(proxy.url, integrator[1]) as client,
    ):
        job = client.submit(html_template=INVOICE, data=DATA)
        state = job.wait(on_update=updates.append, timeout=90, poll_interval=0.3)
        saved = job.download(tmp_path / "proxied.pdf")

    assert state.succeeded
    _assert_ordered(updates)
    job_path = f"/api/v1/jobs/{job.job_id}"
    assert ("GET", f"{job_path}/events", 403) in proxy.paths
    assert sum(1 for p in proxy.paths if p[:2] == ("GET", job_path)) >= 3  # polled
    assert state.pdf_url.startswith(proxy.url)  # links come back through the proxy
    assert pdf_text(saved.read_bytes())[0] == state.page_count


def test_a_cached_submit_comes_back_completed_from_the_earlier_job(live_stack, integrator):
    with Client(live_stack.base_url, integrator[1]) as client:
        first = client.submit(html_template="<p>{{n}}</p>", data={"n": 7}, renderer="weasyprint")
        assert first.wait(timeout=90).succeeded
        again = client.submit(
            html_template="<p>{{n}}</p>", data={"n": 7}, renderer="weasyprint", cache=True
        )
        state = again.refresh()
    assert state.succeeded
    assert state.cached_from == first.job_id
    assert state.expired is False
    assert state.attempts == 0
