"""The ops dashboard in a browser: charts drawn from real jobs, the open alert, the failed
job linked to its admin page, the live worker, and a refresh that shows new failures."""

from __future__ import annotations

import time

import httpx
import pytest
from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from accounts.services import api_key_create
from jobs.models import AlertRule
from jobs.ops.alerts import alerts_evaluate
from jobs.ops.history import queue_history_record
from jobs.ops.queues import broker_stats
from tests.browser.conftest import shoot, sign_in
from tests.e2e.conftest import wait_for_status

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]
FAILING = {"html_template": "<p>{{ 1 / 0 }}</p>", "engine": "jinja2", "data": {}}


def test_staff_watch_the_service_on_the_ops_dashboard(page, person, live_stack, settings):
    person.is_staff = True  # staff who may look at jobs, dead letters and alerts
    person.save()
    person.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_pdfjob", "view_deadletter", "view_alert"])
    )
    key = api_key_create(user=person, name="ops")[1]
    api = httpx.Client(base_url=live_stack.base_url, headers={"X-API-Key": key}, timeout=30)
    done = [
        api.post(
            "/api/v1/generate-pdf-async", json={"html_template": "<p>{{n}}</p>", "data": {"n": n}}
        ).json()
        for n in range(3)
    ]
    failed = api.post("/api/v1/generate-pdf-async", json=FAILING).json()
    for job in [*done, failed]:
        wait_for_status(api, job["status_url"], until={"completed", "failed"})
    stats = broker_stats()
    assert stats is not None
    queue_history_record(stats, at=time.time() - 120)
    queue_history_record(stats)
    assert alerts_evaluate().get(AlertRule.FAILURE_RATE) == "opened"  # 1 of 4 > 5 %

    sign_in(page)
    page.goto("/ops/?range=1h&refresh=2")
    expect(page.get_by_role("heading", name="Ops dashboard")).to_be_visible()
    for chart in ("throughput", "latency", "failures", "queues"):
        expect(page.locator(f"#chart-{chart} canvas")).to_have_count(1)
    alerts = page.locator("#ops-alerts")
    expect(alerts).to_contain_text("Failure rate")
    expect(alerts).to_contain_text("25.0% of jobs failed")
    expect(page.locator("#ops-stats")).to_contain_text("failure rate, last hour")
    expect(page.locator("#ops-workers")).to_contain_text("e2e-")
    expect(page.locator("#ops-slowest tr")).to_have_count(3)
    failed_rows = page.locator("#ops-failed tr")
    expect(failed_rows).to_have_count(1)
    expect(failed_rows).to_contain_text(failed["job_id"][:8])
    shoot(page, "ops-dashboard")

    # Live: a failure made now appears without a reload.
    again = api.post("/api/v1/generate-pdf-async", json=FAILING).json()
    wait_for_status(api, again["status_url"], until={"failed"})
    expect(failed_rows).to_have_count(2, timeout=10_000)

    # From the failed job to its page in the admin.
    page.get_by_role("link", name=failed["job_id"][:8]).click()
    page.wait_for_url("**/admin/jobs/pdfjob/*/change/")
    expect(page.locator("body")).to_contain_text(failed["job_id"])
    expect(page.locator("#user-tools")).to_contain_text("Ops dashboard")
