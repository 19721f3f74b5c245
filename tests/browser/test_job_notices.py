"""Job notices in a real browser: when one of my jobs completes or fails while I am on
another page, a notice appears there (no reload), on the page's one subscription to my
jobs; the job's own page shows its end itself."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.notifications import notification_preferences_set
from jobs import dispatch
from tests.browser.conftest import shoot, sign_in
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]
OWNER_SOCKET = re.compile(r"/ws/jobs/$")


def _jobs(person):
    template = ReportTemplateFactory(
        owner=person, name="Quarterly invoice", html="<h1>{{title}}</h1>", sample_data={}
    )
    ready = PdfJobFactory(owner=person, template=template, html_template="", data={"title": "Q3"})
    broken = PdfJobFactory(
        owner=person,
        engine="jinja2",
        html_template="<p>{{ total + 'x' }}</p>",
        data={"total": 3},
        options={"filename": "totals.pdf"},
    )
    return ready, broken


def _wait_until_seen_running(page, person, *jobs) -> None:
    """The page has had the first message of my jobs' stream: these are remembered as
    running (a function, not an expression: the page's CSP forbids eval)."""
    key = f"pdfreports.job-notices.{person.pk}"
    ids = [str(job.job_id) for job in jobs]
    page.wait_for_function(
        """([key, ids]) => {
          const running = JSON.parse(localStorage.getItem(key) || "{}").running || [];
          return ids.every((id) => running.includes(id));
        }""",
        arg=[key, ids],
    )


def test_jobs_that_end_while_i_am_on_another_page_show_a_notice(page, person, live_stack):
    ready, broken = _jobs(person)
    sign_in(page)
    with page.expect_websocket(lambda ws: bool(OWNER_SOCKET.search(ws.url))):
        page.goto("/keys/")
    _wait_until_seen_running(page, person, ready, broken)
    page.evaluate("window.__sameDocument = true")
    expect(page.locator(".toast")).to_have_count(0)

    dispatch.job_enqueue(job_id=ready.job_id)
    dispatch.job_enqueue(job_id=broken.job_id)
    done = page.locator(f'.toast[data-job-id="{ready.job_id}"]')
    failed = page.locator(f'.toast[data-job-id="{broken.job_id}"]')
    expect(done).to_contain_text("“Quarterly invoice” is ready", timeout=60_000)
    expect(done).to_contain_text("1 page")
    expect(done.get_by_role("link", name="Download PDF")).to_have_attribute(
        "href", f"/jobs/{ready.job_id}/download"
    )
    expect(failed).to_contain_text("“totals.pdf” failed", timeout=60_000)  # its filename
    expect(failed).to_contain_text("Template error")
    expect(failed.get_by_role("link", name="See what to do")).to_have_attribute(
        "href", f"/jobs/{broken.job_id}/"
    )
    assert page.evaluate("window.__sameDocument") is True  # no reload
    shoot(page, "15-job-notices")

    # Dismissed, and not told again on the next page.
    done.get_by_role("button", name=re.compile("^Dismiss")).click()
    expect(done).to_have_count(0)
    page.goto("/reports/new/")
    page.wait_for_timeout(1500)
    expect(page.locator(".toast")).to_have_count(0)

    # Following the link opens the job with what to do.
    page.goto("/keys/")
    page.goto(f"/jobs/{broken.job_id}/")
    expect(page.locator(".alert-error")).to_contain_text("Template error")


def test_the_jobs_own_page_shows_its_end_without_a_notice(page, person, live_stack):
    ready, _ = _jobs(person)
    sign_in(page)
    with page.expect_websocket(lambda ws: bool(OWNER_SOCKET.search(ws.url))):
        page.goto(f"/jobs/{ready.job_id}/")
    _wait_until_seen_running(page, person, ready)
    dispatch.job_enqueue(job_id=ready.job_id)
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed", timeout=60_000)
    page.wait_for_timeout(1000)
    expect(page.locator(".toast")).to_have_count(0)
    page.goto("/")  # nor on the next page: it was seen ending
    page.wait_for_timeout(1000)
    expect(page.locator(".toast")).to_have_count(0)


def test_notices_turned_off_on_the_account_page_stay_off(page, person, live_stack):
    ready, _ = _jobs(person)
    sign_in(page)
    page.goto("/account/")
    page.get_by_label(re.compile("Show a notice on any page")).uncheck()
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.get_by_text("Your notification settings are saved.")).to_be_visible()
    shoot(page, "16-account")
    page.goto("/keys/")
    dispatch.job_enqueue(job_id=ready.job_id)
    ready.refresh_from_db()
    for _ in range(120):
        ready.refresh_from_db()
        if ready.status == "completed":
            break
        page.wait_for_timeout(500)
    assert ready.status == "completed"
    page.wait_for_timeout(1500)
    expect(page.locator(".toast")).to_have_count(0)
    assert page.locator("[data-toasts]").count() == 0
    notification_preferences_set(user=person, email_job_finished=True, browser_job_finished=True)


# The tab is in the background, and every desktop notification the page makes is recorded
# (the real one is still made).
BACKGROUND_TAB = """
Object.defineProperty(document, "visibilityState", { get: () => "hidden" });
window.__desktop = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options) {
    super(title, options);
    window.__desktop.push({ title, body: options.body, tag: options.tag });
  }
};
"""


def test_a_background_tab_also_shows_a_desktop_notification_once_allowed(page, person, live_stack):
    ready, _ = _jobs(person)
    page.context.grant_permissions(["notifications"], origin=live_stack.base_url)
    sign_in(page)
    page.goto("/account/")
    expect(page.get_by_text("Desktop notifications are allowed in this browser.")).to_be_visible()
    page.add_init_script(BACKGROUND_TAB)
    page.goto("/reports/new/")
    _wait_until_seen_running(page, person, ready)
    dispatch.job_enqueue(job_id=ready.job_id)
    expect(page.locator(f'.toast[data-job-id="{ready.job_id}"]')).to_be_visible(timeout=60_000)
    [desktop] = page.evaluate("() => window.__desktop")
    assert desktop["title"] == "“Quarterly invoice” is ready"
    assert desktop["body"].startswith("1 page · ")
    assert desktop["tag"] == f"job-{ready.job_id}"
