"""A run in a real browser: upload a CSV with a bad row against a template, watch the
records' count move live to the end, see the bad row named, download the ZIP, and retry
a record whose worker was lost."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from jobs.error_codes import JobErrorCode
from jobs.models import JobStatus, PdfJob
from reports.services import template_create
from runs.models import Run, RunRecord
from runs.progress import run_recount
from runs.records import records_from_list
from runs.services import run_create
from tests.browser.conftest import sign_in
from tests.factories import PdfJobFactory
from workspaces.services import workspace_personal

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
        status=JobStatus.FAILED, error="The worker died.", error_code=JobErrorCode.WORKER_LOST
    )
    run_recount(run_id=run.run_id)
    page.reload()
    expect(page.get_by_text("Record 4: The worker died.")).to_be_visible()
    page.get_by_role("button", name="Retry failed records").click()
    expect(page.locator("[data-run-field=completed]")).to_have_text("3", timeout=60_000)
    lost.refresh_from_db()
    assert lost.status == JobStatus.COMPLETED


def test_a_running_runs_bar_fills_by_percent_and_lists_only_failed_records(page, person):
    """12 records, 4 done: the bar is a third full (not 4 %), and the 8 still queued are
    not listed as records without a PDF; the one refused at submit is."""
    workspace = workspace_personal(user=person)
    run = Run.objects.create(
        workspace=workspace, owner=person, total=12, completed=3, failed=1, event_seq=1
    )
    for index in range(12):
        if index == 11:
            RunRecord.objects.create(run=run, index=index, error="row 13: name: required")
            continue
        status = JobStatus.COMPLETED if index < 3 else JobStatus.QUEUED
        job = PdfJobFactory(owner=person, workspace=workspace, batch_id=run.run_id, status=status)
        RunRecord.objects.create(run=run, index=index, job=job)
    sign_in(page)
    page.goto(f"/runs/{run.run_id}/")
    expect(page.locator("[data-run-field=percent]")).to_have_text("33%")
    bar = page.locator("[data-run-field=bar]")
    expect(bar).to_have_attribute("aria-valuetext", "4 of 12 records")
    page.wait_for_timeout(600)  # the width's transition
    ratio = bar.evaluate("b => b.firstElementChild.offsetWidth / b.offsetWidth")
    assert 0.3 < ratio < 0.37
    expect(page.locator("[data-run-failures] li")).to_have_text(
        ["Record 12: row 13: name: required"]
    )
    expect(page.get_by_text("not finished")).to_have_count(0)


def test_a_separate_run_is_one_notice_when_it_ends_not_one_per_record(page, person):
    template_create(owner=person, name="Welcome letter", slug="letter", html="<p>Dear {{name}}</p>")
    sign_in(page)
    with page.expect_websocket(lambda ws: ws.url.endswith("/ws/jobs/")):
        page.goto("/keys/")
    page.wait_for_timeout(500)
    run = run_create(
        owner=person,
        workspace=workspace_personal(user=person),
        template_slug="letter",
        records=records_from_list([{"name": n} for n in ("Ada", "Bob", "Cy", "Dee")]),
        output="separate",
    )
    notice = page.locator(f'.toast[data-run-id="{run.run_id}"]')
    # Named as people know the template, not by its slug.
    expect(notice).to_contain_text("Run of “Welcome letter” finished", timeout=60_000)
    expect(notice).to_contain_text("4 of 4 records rendered")
    expect(notice.get_by_role("link", name="Open")).to_have_attribute(
        "href", f"/runs/{run.run_id}/"
    )
    page.wait_for_timeout(2000)
    expect(page.locator(".toast")).to_have_count(1)


def test_runs_are_found_again_on_the_runs_page(page, person):
    template_create(owner=person, name="Letter", slug="letter", html="<p>Dear {{name}}</p>")
    workspace = workspace_personal(user=person)
    done = Run.objects.create(
        workspace=workspace, owner=person, total=2, completed=2, status="completed"
    )
    running = Run.objects.create(workspace=workspace, owner=person, total=5)
    sign_in(page)
    page.goto("/runs/")
    expect(page.locator("[data-runs] tbody tr")).to_have_count(2)
    page.get_by_label("Status").select_option("completed")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("[data-runs] tbody tr")).to_have_count(1)
    expect(page.locator(f'tr[data-run="{running.run_id}"]')).to_have_count(0)
    page.get_by_role("link", name="Batch").click()
    page.wait_for_url(f"**/runs/{done.run_id}/")
    # Back to the list from the breadcrumb, and from the main navigation, which leads to
    # the list of runs (where "New run" is), not straight to a new one.
    crumbs = page.get_by_role("navigation", name="Breadcrumb")
    expect(crumbs.get_by_role("link", name="Runs")).to_be_visible()
    nav = page.get_by_role("navigation", name="Main").get_by_role("link", name="Runs")
    expect(nav).to_have_attribute("aria-current", "page")
    nav.click()
    page.wait_for_url("**/runs/")
    expect(page.get_by_role("link", name="New run")).to_be_visible()
