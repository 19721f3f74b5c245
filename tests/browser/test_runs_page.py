"""A run in a real browser: upload a CSV with a bad row against a template, watch the
records' count move live to the end, see the bad row named, download the ZIP, and retry
a record whose worker was lost."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from jobs.models import JobStatus, PdfJob
from rendering.error_codes import ErrorCode
from reports.services import template_create
from runs.models import Run
from runs.progress import run_recount
from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_a_csv_run_shows_progress_live_downloads_and_retries(page, person, live_stack):
    template_create(
        owner=person,
        name="Certificate",
        slug="certificate",
        html="<h1>Certificate for {{name}}</h1><p>Score {{score}}</p>",
        schema={
            "type": "object",
            "required": ["name", "score"],
            "properties": {"name": {"type": "string"}, "score": {"type": "integer"}},
        },
    )
    csv_text = "name,score\nAda,90\nBob,eighty\nCy,70\nDee,60\n"
    sign_in(page)
    page.goto("/runs/new/")
    page.get_by_label("Template").select_option("certificate")
    page.get_by_label("Records file").set_input_files(
        {"name": "people.csv", "mimeType": "text/csv", "buffer": csv_text.encode()}
    )
    page.get_by_label("File names").fill("cert-{name}")
    page.get_by_role("button", name="Start run").click()

    page.wait_for_url("**/runs/*/")
    expect(page.locator("[data-run-field=status]")).to_have_text(
        "Completed with failures", timeout=60_000
    )
    expect(page.locator("[data-run-field=done]")).to_have_text("4")
    expect(page.locator("[data-run-field=failed]")).to_have_text("1")
    expect(page.get_by_text("Record 2: row 3: score: expected integer")).to_be_visible()

    with page.expect_download() as download:
        page.get_by_role("link", name="Download ZIP").click()
    archive = zipfile.ZipFile(io.BytesIO(download.value.path().read_bytes()))
    assert archive.namelist() == ["cert-Ada.pdf", "cert-Cy.pdf", "cert-Dee.pdf", "failures.csv"]

    # Dee's worker is lost for good: the page offers the retry, and it renders her again.
    run = Run.objects.get()
    lost = PdfJob.objects.get(batch_id=run.run_id, data__name="Dee")
    PdfJob.objects.filter(pk=lost.pk).update(
        status=JobStatus.FAILED, error="The worker died.", error_code=ErrorCode.WORKER_LOST
    )
    run_recount(run_id=run.run_id)
    page.reload()
    expect(page.get_by_text("Record 4: The worker died.")).to_be_visible()
    page.get_by_role("button", name="Retry failed records").click()
    expect(page.locator("[data-run-field=completed]")).to_have_text("3", timeout=60_000)
    lost.refresh_from_db()
    assert lost.status == JobStatus.COMPLETED
