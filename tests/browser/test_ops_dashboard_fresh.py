"""The ops dashboard of a fresh service: one bucket of jobs is drawn (a point, not an empty
chart), and an open alert's text follows the rule's reading at every refresh."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.utils import timezone
from playwright.sync_api import expect

from jobs.models import AlertRule, JobStatus
from jobs.ops.alerts import alerts_evaluate
from tests.browser.conftest import shoot, sign_in
from tests.factories import PdfJobFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]

# Pixels of one colour on a chart's canvas: what uPlot drew of a series (the legend is HTML).
PIXELS_OF = """([id, rgb]) => {
  const canvas = document.querySelector(`#${id} canvas`);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) {
    const near = Math.abs(data[i] - rgb[0]) + Math.abs(data[i + 1] - rgb[1])
      + Math.abs(data[i + 2] - rgb[2]);
    if (data[i + 3] > 200 && near < 30) count++;
  }
  return count;
}"""
P95_ORANGE = [245, 158, 11]  # COLORS.p95 in ops_dashboard.js (drawn over p50's point)
FAILED_RED = [220, 38, 38]  # COLORS.rate


def _finished(owner, status: str, count: int) -> None:
    for _ in range(count):
        PdfJobFactory(owner=owner, status=status, progress=100, completed_at=timezone.now())


def test_one_bucket_is_drawn_and_the_alert_text_follows_the_reading(page, person, live_stack):
    person.is_staff = True
    person.save()
    person.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_pdfjob", "view_deadletter", "view_alert"])
    )
    _finished(person, JobStatus.COMPLETED, 3)
    _finished(person, JobStatus.FAILED, 1)
    assert alerts_evaluate().get(AlertRule.FAILURE_RATE) == "opened"

    sign_in(page)
    page.goto("/ops/?range=1h&refresh=2")
    expect(page.locator("#chart-latency canvas")).to_have_count(1)
    shoot(page, "34-ops-one-bucket")
    # Every job finished in the same two-minute bucket: p50 and the failure rate have one
    # value each, drawn as a point.
    assert page.evaluate(PIXELS_OF, ["chart-latency", P95_ORANGE]) > 20
    assert page.evaluate(PIXELS_OF, ["chart-failures", FAILED_RED]) > 20
    now = page.locator("#ops-alerts [data-alert-now]")
    expect(now).to_have_text("Now: 25.0% of jobs failed in the last hour (1 of 4; threshold 5%).")
    expect(page.locator("#ops-alerts")).to_contain_text("When it opened: 25.0% of jobs failed")
    shoot(page, "34-ops-one-bucket")

    _finished(person, JobStatus.COMPLETED, 6)  # no reload: the next refresh says 10 %
    expect(now).to_have_text(
        "Now: 10.0% of jobs failed in the last hour (1 of 10; threshold 5%).", timeout=10_000
    )
    expect(page.locator("#ops-alerts")).to_contain_text("When it opened: 25.0% of jobs failed")
