"""Retry in a real browser: offered only for a failure a retry can fix, it counts the
attempts and the page shows the new outcome live; a template error says what to change."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from jobs.models import JobStatus
from jobs.retry_rule import failure_advice
from tests.browser.conftest import sign_in
from tests.factories import PdfJobFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(90)]


def test_a_lost_worker_is_retried_and_the_page_shows_it_complete_live(page, person, live_stack):
    job = PdfJobFactory(
        owner=person,
        template=None,
        html_template="<p>{{name}}</p>",
        data={"name": "x"},
        status=JobStatus.FAILED,
        error="The worker rendering this job died 3 times.",
        error_code="worker_lost",
        attempts=3,
    )
    sign_in(page)
    page.goto(f"/jobs/{job.job_id}/")
    retry = page.get_by_role("button", name="Retry")
    expect(retry).to_be_visible()
    retry.click()
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed", timeout=30_000)
    expect(page.get_by_text("Your PDF is ready")).to_be_visible()
    expect(page.locator("[data-field=attempts]")).to_have_text("4")  # 3 earlier + this one
    expect(page.get_by_role("heading", name="This report could not be made")).to_be_hidden()


def test_a_template_error_says_what_to_change_and_offers_no_retry(page, person, live_stack):
    job = PdfJobFactory(
        owner=person,
        status=JobStatus.FAILED,
        error="Template error on line 1: Missing helper: shout",
        error_code="template_error",
    )
    sign_in(page)
    page.goto(f"/jobs/{job.job_id}/")
    expect(page.get_by_text("Missing helper: shout")).to_be_visible()
    expect(page.locator("[data-field=advice]")).to_have_text(failure_advice("template_error"))
    expect(page.get_by_role("button", name="Retry")).to_be_hidden()
