"""Schedules in real Chromium on the live stack: create one from the form (a bad cron is
shown on it), pause it, run it now and see the run reach Delivered with its job completed."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from reports.services import template_create
from tests.browser.conftest import shoot, sign_in
from workspaces.services import workspace_personal

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]


def test_create_pause_run_now_and_inspect_the_run(page, person, live_stack):
    template_create(
        owner=person,
        workspace=workspace_personal(user=person),
        name="Team digest",
        slug="digest",
        html="<h1>Digest for {{team}}</h1>",
    )
    sign_in(page)
    page.get_by_role("link", name="Schedules").click()
    expect(page.get_by_text("No schedules yet.")).to_be_visible()
    page.get_by_label("Template").select_option("digest")
    page.get_by_label("Name").fill("Friday digest")
    page.get_by_label("Cron expression").fill("0 16 * * 5x")
    page.get_by_label("Time zone").fill("Europe/Dublin")
    page.get_by_label("Data (JSON)").fill('{"team": "Core"}')
    page.get_by_role("button", name="Create schedule").click()
    expect(page.locator("[data-schedule-error]")).to_contain_text("Cron expression:")
    page.get_by_label("Cron expression").fill("0 16 * * 5")
    page.get_by_role("button", name="Create schedule").click()

    expect(page.get_by_role("heading", name="Friday digest")).to_be_visible()
    expect(page.locator("[data-field=state]")).to_have_text("Active")
    page.get_by_role("button", name="Pause").click()
    expect(page.locator("[data-field=state]")).to_have_text("Paused")
    expect(page.locator("[data-field=next-run]")).to_have_text("-")
    page.get_by_role("button", name="Run now").click()
    expect(page.get_by_text("Run started")).to_be_visible()
    outcome = page.locator("[data-runs] [data-outcome]").first
    deadline = time.monotonic() + 60
    while outcome.inner_text() != "Delivered" and time.monotonic() < deadline:
        time.sleep(0.5)
        page.reload()
    expect(outcome).to_have_text("Delivered")
    expect(page.locator("[data-runs] tbody tr")).to_have_count(1)
    shoot(page, "schedule")
    page.locator("[data-runs]").get_by_role("link", name="Completed").click()
    expect(page.get_by_text("Your PDF is ready")).to_be_visible()
    page.get_by_role("link", name="Schedules").click()
    expect(page.locator("[data-schedules] [data-state]")).to_have_text("Paused")
