"""The job page shows the finished PDF's checks as the completion event arrives, without
a reload (the live payload carries `compliance`; job.js renders it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from jobs import dispatch
from tests.browser.conftest import sign_in
from tests.factories import PdfJobFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(90)]


def test_the_checks_appear_live_when_the_job_completes(page, person, live_stack):
    job = PdfJobFactory(
        owner=person,
        html_template="<h1>{{name}}</h1>",
        data={"name": "Checked"},
        renderer="weasyprint",
        options={"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "T", "lang": "en"}}},
    )
    sign_in(page)
    page.goto(f"/jobs/{job.job_id}/")
    checks = page.locator("[data-field=compliance]")
    expect(checks).to_be_hidden()
    page.evaluate("window.__sameDocument = true")  # gone if the page were reloaded
    dispatch.job_enqueue(job_id=job.job_id)
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed")
    expect(checks.locator("h3")).to_have_text("Checks: pdf/ua-1")
    expect(checks.locator("li", has_text="fonts_embedded")).to_contain_text("✓")
    assert page.evaluate("window.__sameDocument") is True
