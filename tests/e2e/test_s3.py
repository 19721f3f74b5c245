"""Real workers and a real web process on S3 (moto_server) with no shared disk: whole and
chunked renders stored as objects, chunk parts cleaned up, the download a presigned
redirect; and an outage of the store (connections refused) twice as long as the ordinary
retries last, waited out: every job completes once, none fails, nothing half-written is
served."""

from __future__ import annotations

import io
import time

import httpx
import pytest
from pypdf import PdfReader

from accounts.services import api_key_create
from jobs.links import pdf_path
from jobs.models import DeadLetter, JobStatus, PdfJob
from pdfreports import Client
from tests.chaos.conftest import (
    OUTAGE_SECONDS,
    EventRecorder,
    wait_for,
    wait_processing,
    wait_terminal,
)
from tests.e2e.test_chunked import REPORTS, SECTIONS
from tests.factories import PdfJobFactory, UserFactory
from tests.s3server import S3Server

pytestmark = [pytest.mark.e2e, pytest.mark.chaos, pytest.mark.timeout(240)]


@pytest.fixture
def s3(tmp_path):
    server = S3Server(tmp_path / "moto.log")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def on_s3(chaos, s3):
    chaos.env.update(s3.env())
    chaos.env.update({"PDF_STORAGE_RETRY_MAX_SECONDS": "3", "PDF_CHUNK_MIN_TAGS": "100"})
    # About the store, not the time limits: a first render on a loaded machine, its 1 s
    # hold and a refused S3 call must not run into the chaos harness's 5 s soft limit.
    chaos.env.update({"PDF_SOFT_TIME_LIMIT": "30", "PDF_HARD_TIME_LIMIT": "40"})
    return chaos


def _pdf(s3: S3Server, key: str) -> PdfReader:
    body = s3.client().get_object(Bucket="pdf-reports-test", Key=key)["Body"].read()
    return PdfReader(io.BytesIO(body))


def test_whole_and_chunked_renders_are_objects_and_download_by_redirect(on_s3, s3, tmp_path):
    chaos = on_s3
    base = chaos.web()
    chaos.worker("s3w", concurrency=2)
    user = UserFactory()
    key = api_key_create(user=user)[1]
    whole = PdfJobFactory(owner=user, html_template="<h1>{{t}}</h1>", data={"t": "Whole on S3"})
    words = [f"w{i}" for i in range(12)]
    chunked = PdfJobFactory(
        owner=user,
        html_template=REPORTS["xhtml2pdf"],
        data={"sections": [{"title": f"S{n}", "words": words} for n in range(SECTIONS)]},
        renderer="xhtml2pdf",
    )
    for job in (whole, chunked):
        chaos.send(job)
    wait_terminal(chaos, whole, chunked, timeout=120)
    for job in (whole, chunked):
        assert job.status == JobStatus.COMPLETED, (job.error, chaos.logs_tail())
    keys = [key for key in s3.keys() if not key.startswith("reports/chunks/")]
    assert keys == sorted(f"reports/{job.pdf_file}" for job in (whole, chunked)), keys
    # The parts and the plan are deleted once the merge has completed the job.
    wait_for(lambda: s3.keys("reports/chunks/") == [], timeout=20, what="chunk parts deleted")
    assert len(_pdf(s3, f"reports/{chunked.pdf_file}").pages) > SECTIONS
    assert not (chaos.media / "reports").exists()  # nothing on the workers' disk
    wait_for(lambda: _up(base), timeout=30, what="web server", chaos=chaos)
    answer = httpx.get(f"{base}{pdf_path(whole.job_id)}", headers={"X-API-Key": key})
    assert answer.status_code == 302
    fetched = httpx.get(answer.headers["location"], timeout=10)
    assert fetched.status_code == 200
    assert "Whole on S3" in PdfReader(io.BytesIO(fetched.content)).pages[0].extract_text()
    # The Python client follows the redirect to the store and saves the whole PDF.
    with Client(base, key) as client:
        saved = client.job(str(whole.job_id)).download(tmp_path / "via-client.pdf")
    assert "Whole on S3" in PdfReader(saved).pages[0].extract_text()


def _up(base: str) -> bool:
    try:
        return httpx.get(f"{base}/api/v1/schema", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def test_an_outage_past_the_ordinary_retries_is_waited_out_and_every_job_completes_once(on_s3, s3):
    chaos = on_s3
    chaos.worker("s3w", concurrency=2)
    jobs = [
        PdfJobFactory(
            html_template="<h1>{{t}}</h1>", data={"t": f"outage {n}", "__fault__": {"sleep": 1}}
        )
        for n in range(5)
    ]
    with EventRecorder(chaos.redis.url, jobs) as recorder:
        for job in jobs:
            chaos.send(job)
        wait_processing(chaos, jobs[0])
        s3.gate_close()
        closed_at = time.monotonic()
        ours = PdfJob.objects.filter(pk__in=[j.pk for j in jobs])
        done_before = set(ours.filter(status=JobStatus.COMPLETED).values_list("pk", flat=True))
        while time.monotonic() - closed_at < OUTAGE_SECONDS:
            # Nothing can be stored, so nothing more completes; and nothing gives up.
            done = set(ours.filter(status=JobStatus.COMPLETED).values_list("pk", flat=True))
            assert done == done_before
            assert not ours.filter(status__in=[JobStatus.FAILED, JobStatus.CANCELLED]).exists()
            time.sleep(0.5)
        s3.gate_open()
        wait_terminal(chaos, *jobs, timeout=90)
    waited = {e["job_id"] for e in recorder.events if e.get("error_code") == "storage_unavailable"}
    assert waited, "no job met the outage"
    completed = sum(job.status == JobStatus.COMPLETED for job in jobs)
    duplicates = sum(max(0, recorder.completions(job) - 1) for job in jobs)
    print(
        f"S3 outage {OUTAGE_SECONDS} s: jobs={len(jobs)} met the outage={len(waited)} "
        f"completed={completed} duplicates={duplicates}"
    )
    for job in jobs:
        assert job.status == JobStatus.COMPLETED, (job.error, chaos.logs_tail())
        assert job.attempts <= 2  # outage retries do not spend attempts
        assert recorder.completions(job) == 1
        reader = _pdf(s3, f"reports/{job.pdf_file}")  # whole: it parses, with its text
        assert f"outage {jobs.index(job)}" in reader.pages[0].extract_text()
    # Nothing else is left: a readiness probe's object whose delete met the outage is
    # deleted by the worker's next probe that finds the store back.
    wait_for(
        lambda: s3.keys() == sorted(f"reports/{job.pdf_file}" for job in jobs),
        timeout=30,
        what=f"only the PDFs in the bucket (it holds {s3.keys()})",
    )
    assert not DeadLetter.objects.filter(job__in=jobs).exists()
    assert sum(1 for job in jobs if job.error_code == "storage_unavailable") == 0
