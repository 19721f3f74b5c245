"""A person in a real browser: sign in, request a report from a template, watch it being made
without reloading, download the PDF and read it back; see a failure and retry it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from jobs import dispatch, transitions
from reports.samples import SAMPLES, template_sync_samples
from tests.browser.conftest import shoot, sign_in
from tests.conftest import pdf_text
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]

# Collects every status and progress value the page shows, from the moment it is installed.
RECORDER = """() => {
  window.__seen = [];
  window.__sameDocument = true;
  const status = document.querySelector('.page-head [data-field=status]');
  const bar = document.querySelector('.job [data-field=progress]');
  const note = () => window.__seen.push(
    {status: status.textContent, progress: Number(bar.getAttribute('aria-valuenow'))});
  note();
  const observer = new MutationObserver(note);
  observer.observe(status, {childList: true, characterData: true, subtree: true});
  observer.observe(bar, {attributes: true, attributeFilter: ['aria-valuenow']});
}"""
TRANSPORT_TEXT = {
    "ws": "WebSocket",
    "sse": "server-sent events",
    "poll": "Checking for updates",
}


def test_sign_in_pick_a_template_submit_and_download(page, person, live_stack):
    template_sync_samples()
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login/\?next=/$"))
    shoot(page, "01-sign-in")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("correct username and password")
    sign_in(page)
    expect(page.get_by_role("heading", name="My jobs")).to_be_visible()
    shoot(page, "02-dashboard-empty")

    page.get_by_role("link", name="New report").first.click()
    expect(page.get_by_role("heading", name="New report")).to_be_visible()
    page.wait_for_function(  # a function, not an expression: the CSP forbids eval
        "() => [...document.querySelectorAll('.gallery img')]"
        ".every(img => img.complete && img.naturalWidth > 0)",
        timeout=30_000,
    )
    widths = page.eval_on_selector_all(".gallery img", "imgs => imgs.map(i => i.naturalWidth)")
    assert widths == [360] * len(SAMPLES)  # real thumbnails, not the "no preview" placeholder
    shoot(page, "03-gallery")

    page.get_by_role("link", name=re.compile("^Invoice")).click()
    # The tabs work once the module script has run; a click before that is lost.
    page.wait_for_selector("form[data-ready=true]")
    page.get_by_role("tab", name="JSON").click()  # the invoice has a schema: form first
    editor = page.get_by_label(re.compile("Data as JSON"))
    assert "Northwind Traders" in editor.input_value()  # prefilled with the sample data
    editor.fill("[1, 2, 3]")
    page.get_by_role("button", name="Create PDF").click()
    expect(page.locator("[data-json-status]")).to_contain_text("must be a JSON object")
    assert "/reports/new/invoice/" in page.url  # refused before it was sent
    page.get_by_role("button", name="Reset to sample").click()
    expect(page.locator("[data-json-status]")).to_contain_text("Valid JSON object")
    page.get_by_label("File name").fill("browser invoice")
    shoot(page, "04-new-report")
    page.get_by_role("button", name="Create PDF").click()

    page.wait_for_url(re.compile(r"/jobs/[0-9a-f-]{36}/$"))
    status = page.locator(".page-head [data-field=status]")
    expect(status).to_have_text("Completed", timeout=60_000)
    expect(page.locator(".job [data-field=percent]")).to_have_text("100%")
    expect(page.get_by_text("Your PDF is ready")).to_be_visible()
    shoot(page, "05-job-completed")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download PDF").click()
    download = download_info.value
    assert download.suggested_filename == "browser invoice.pdf"
    pages, text = pdf_text(Path(download.path()).read_bytes())
    assert pages >= 1
    assert "Northwind Traders" in text
    assert "INV-2026-0042" in text

    page.get_by_role("navigation", name="Main").get_by_role("link", name="My jobs").click()
    row = page.locator("tbody[data-jobs] tr")
    expect(row).to_have_count(1)
    expect(row.locator("[data-field=status]")).to_have_text("Completed")
    shoot(page, "06-dashboard")


@pytest.mark.parametrize("transport", ["ws", "sse", "poll"])
def test_progress_and_status_change_live_without_reload(page, person, live_stack, transport):
    sales = next(t for t in template_sync_samples() if t.slug == "sales-report")
    job = PdfJobFactory(
        owner=person, template=sales, html_template="", data=sales.sample_data, options={}
    )  # not enqueued yet: the page is watching before the worker starts
    sign_in(page)
    dashboard = page.context.new_page()
    dashboard.goto("/")
    page.goto(f"/jobs/{job.job_id}/?transport={transport}")
    expect(page.locator("[data-transport]")).to_contain_text(TRANSPORT_TEXT[transport])
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Queued")
    expect(page.locator(".job [data-field=stage]")).to_have_text("Waiting for a worker")
    page.evaluate(RECORDER)

    dispatch.job_enqueue(job_id=job.job_id)
    if transport == "ws":
        expect(page.locator(".page-head [data-field=status]")).to_have_text("Processing")
        shoot(page, "07-job-processing")
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed", timeout=60_000)

    seen = page.evaluate("window.__seen")
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    progress = [snapshot["progress"] for snapshot in seen]
    assert progress == sorted(progress), seen  # never backwards
    assert progress[0] == 0
    assert progress[-1] == 100
    statuses = [snapshot["status"] for snapshot in seen]
    assert statuses[0] == "Queued"
    assert statuses[-1] == "Completed"
    if transport != "poll":  # pushed: every stage arrives
        assert len(set(progress)) >= 5, seen
        assert "Processing" in statuses
    expect(page.locator("[data-field=summary]")).to_have_text(re.compile(r"^\d+ pages · "))
    expect(page.locator("[data-transport]")).to_have_text("")  # finished: nothing to follow

    row = dashboard.locator(f'tr[data-job-id="{job.job_id}"]')
    expect(row.locator("[data-field=status]")).to_have_text("Completed")  # also live


def test_failed_job_shows_its_error_and_retry_completes_it(page, person, live_stack):
    ReportTemplateFactory(
        owner=person,
        name="Greeting",
        slug="greeting",
        html="<h1>{{shout name}}</h1>",
        sample_data={"name": "Grace"},
    )
    sign_in(page)
    page.goto("/reports/new/greeting/")
    page.get_by_role("button", name="Create PDF").click()
    page.wait_for_url(re.compile(r"/jobs/[0-9a-f-]{36}/$"))
    status = page.locator(".page-head [data-field=status]")
    expect(status).to_have_text("Failed", timeout=60_000)
    error = page.locator("[data-field=error]")
    expect(error).to_contain_text("shout")
    expect(page.get_by_role("link", name="Download PDF")).to_be_hidden()
    shoot(page, "08-job-failed")

    # A retry renders the same template version again, so it is for failures a retry can
    # fix: here a storage outage that outlasted the job's retries.
    job = PdfJobFactory(
        owner=person, html_template="<h1>Hello {{name}}</h1>", data={"name": "Grace"}
    )
    transitions.job_claim(job_id=job.job_id, worker="gone:1")
    transitions.job_fail(
        job_id=job.job_id,
        error="Gave up after 4 attempts. Last error: OSError: storage down",
        code="retries_exhausted",
    )
    page.goto(f"/jobs/{job.job_id}/")
    expect(status).to_have_text("Failed")
    expect(error).to_contain_text("storage down")
    page.get_by_role("button", name="Retry").click()
    expect(page.get_by_text("The job is queued again.")).to_be_visible()
    expect(status).to_have_text("Completed", timeout=60_000)
    # Attempts count across retries (issue 26 item 7): the one that failed, then the retry's.
    expect(page.locator("[data-field=attempts]")).to_have_text("2")
    expect(error).to_be_hidden()
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download PDF").click()
    assert "Hello Grace" in pdf_text(Path(download_info.value.path()).read_bytes())[1]


def test_another_users_job_page_is_not_found(page, person, live_stack):
    theirs = PdfJobFactory()
    sign_in(page)
    response = page.goto(f"/jobs/{theirs.job_id}/")
    assert response.status == 404
