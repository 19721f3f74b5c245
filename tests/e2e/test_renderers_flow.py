"""The new renderers in a real worker process: the WeasyPrint and Chromium samples submitted
over HTTP, rendered by a Celery worker child (Chromium warm across jobs there), read back."""

from __future__ import annotations

import httpx
import pytest

from reports.samples import sample_files, template_sync_samples
from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status
from tests.rendering.conftest import CHROMIUM

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]
TERMINAL = {"completed", "failed", "cancelled"}


def _submit(http: httpx.Client, body: dict) -> dict:
    submitted = http.post("/api/v1/generate-pdf-async", json=body)
    assert submitted.status_code == 202, submitted.text
    return wait_for_status(http, submitted.json()["status_url"], until=TERMINAL, timeout=120)


def test_the_weasyprint_sample_renders_in_the_worker(http):
    template_sync_samples()
    job = _submit(http, {"template": "studio-invoice", "data": sample_files("studio-invoice")[2]})
    assert job["status"] == "completed", job
    assert job["renderer"] == "weasyprint"
    pages, text = pdf_text(httpx.get(job["pdf_url"], timeout=30).content)
    assert pages == 2
    assert "Page 2 of 2" in text


@pytest.mark.skipif(not CHROMIUM.exists(), reason="apt-get install chromium")
def test_chromium_jobs_run_in_the_workers_warm_browser(http):
    template_sync_samples()
    first = _submit(http, {"template": "field-metrics", "data": sample_files("field-metrics")[2]})
    assert first["status"] == "completed", first
    assert first["renderer"] == "chromium"
    assert "iOS 41%" in pdf_text(httpx.get(first["pdf_url"], timeout=30).content)[1]
    inline = _submit(
        http,
        {
            "html_template": "<p id='x'>static</p>"
            "<script>x.textContent = 'DRAWN ' + {{n}}</script>",
            "data": {"n": 7},
            "renderer": "chromium",
        },
    )
    assert inline["status"] == "completed", inline
    assert "DRAWN 7" in pdf_text(httpx.get(inline["pdf_url"], timeout=30).content)[1]


def test_an_endless_script_fails_once_as_a_limit(http):
    if not CHROMIUM.exists():
        pytest.skip("apt-get install chromium")
    job = _submit(
        http,
        {"html_template": "<script>while (true) {}</script>", "renderer": "chromium"},
    )
    assert job["status"] == "failed"
    assert job["error_code"] == "limit_exceeded"
    assert "scripts did not finish" in job["error"]
    assert job["attempts"] == 1
