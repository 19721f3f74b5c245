"""Pages read in a 400 px window: My jobs shows every job's name, status and progress
without clipping them or scrolling sideways."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from jobs.models import JobStatus
from tests.browser.conftest import NARROW, shoot, sign_in
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]

# Everything inside the table's card must lie within it: no cell cut off at its edge.
CLIPPED = """() => {
  const card = document.querySelector('[data-jobs-table]');
  const box = card.getBoundingClientRect();
  const out = [...card.querySelectorAll('td, th, td *')]
    .filter(el => el.getClientRects().length)
    .filter(el => el.getBoundingClientRect().right > box.right + 0.5)
    .map(el => el.tagName + ': ' + el.textContent.trim().slice(0, 40));
  return {out, scroll: card.scrollWidth, client: card.clientWidth};
}"""


def test_my_jobs_fits_a_400px_window(page, person, live_stack):
    long_name = ReportTemplateFactory(
        owner=person, name="Quarterly operations review for the northern region and partners"
    )
    PdfJobFactory(owner=person, template=long_name, status=JobStatus.PROCESSING, progress=40)
    PdfJobFactory(owner=person, template=long_name, status=JobStatus.FAILED, progress=100)
    unbroken = ReportTemplateFactory(owner=person, name="operations_review_northern_region_2026_q3")
    PdfJobFactory(owner=person, template=unbroken, status=JobStatus.COMPLETED, page_count=12)
    PdfJobFactory(owner=person, status=JobStatus.QUEUED)
    sign_in(page)
    page.set_viewport_size(NARROW)
    page.goto("/")
    rows = page.locator("tbody[data-jobs] tr")
    expect(rows).to_have_count(4)
    measured = page.evaluate(CLIPPED)
    assert measured["out"] == []
    assert measured["scroll"] <= measured["client"]
    for row in range(4):  # name, status and progress of every job are on screen
        cells = rows.nth(row).locator("td")
        for column in range(3):
            expect(cells.nth(column)).to_be_in_viewport()
    shoot(page, "33-my-jobs-narrow")
