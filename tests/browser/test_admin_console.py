"""The operators' console in a real browser: the job list fits 1,280 px with its template
and error columns, and a failed job's own page re-drives it with one button."""

from __future__ import annotations

import pytest

from jobs.models import JobStatus, PdfJob
from tests.browser.conftest import DESKTOP, sign_in
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_job_list_fits_the_window_and_a_failed_job_is_redriven_from_its_page(page, person):
    person.is_staff = person.is_superuser = True
    person.save()
    template = ReportTemplateFactory(owner=person, name="Quarterly sales report for the board")
    long_error = "Template error on line 12: " + "the helper formatCurrency threw " * 6
    failed = PdfJobFactory(
        owner=person,
        template=template,
        status=JobStatus.FAILED,
        error=long_error,
        error_code="worker_lost",
        attempts=2,
        helpers="function shout(s) { return s.toUpperCase(); }",
    )
    PdfJobFactory(owner=person, status=JobStatus.COMPLETED)
    sign_in(page)

    page.goto("/admin/jobs/pdfjob/")
    headers = page.locator("#result_list thead th").all_inner_texts()
    assert {"TEMPLATE", "ERROR", "ERROR CODE"} <= {h.strip().upper() for h in headers}
    assert page.locator("#result_list").get_by_text("Quarterly sales report").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
    table_right = page.evaluate(
        "document.querySelector('#result_list').getBoundingClientRect().right"
    )
    assert table_right <= DESKTOP["width"]
    codes = page.locator("#changelist-filter details").filter(has_text="error code")
    assert codes.locator("li a").all_inner_texts() == ["All", "worker_lost"]  # no blank one

    page.goto(f"/admin/jobs/pdfjob/{failed.pk}/change/")
    assert page.get_by_text("function shout(s)").count() == 1  # the job's helpers
    page.get_by_role("button", name="Re-drive this job").click()
    page.wait_for_url(f"**/admin/jobs/pdfjob/{failed.pk}/change/")
    assert page.get_by_text("Re-driven 1 job(s).").count() == 1
    # Requeued (a worker may already be running it again): its two attempts are kept.
    assert PdfJob.objects.get(pk=failed.pk).earlier_attempts == 2

    page.goto("/admin/")
    for label in ("PDF jobs", "Webhook deliveries", "API keys"):
        assert page.locator("#content-main").get_by_role("link", name=label, exact=True).count()
    text = page.locator("#content-main").inner_text()
    for wrong in ("Pdf jobs", "Webhook deliverys", "Api keys", "Celery Results", "Task results"):
        assert wrong not in text
