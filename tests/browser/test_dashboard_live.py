"""The dashboard follows all of my jobs on one subscription (WebSocket, else server-sent
events, else polling the job list): new jobs appear and rows change without a reload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from jobs import dispatch, services
from tests.browser.conftest import shoot, sign_in
from tests.factories import PdfJobFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]
PER_JOB = re.compile(r"/(ws|api/v1)/jobs/[0-9a-f-]{36}")


@pytest.mark.parametrize("transport", ["ws", "sse", "poll"])
def test_dashboard_follows_all_my_jobs_on_one_subscription(page, person, live_stack, transport):
    waiting = PdfJobFactory(owner=person, html_template="<h1>First</h1>", data={})
    sockets: list[str] = []
    requests: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("request", lambda request: requests.append(request.url))
    # Every page follows my jobs (the job notices): let the sockets of the dashboard that
    # sign-in lands on and of the keys page open before counting from the page under test.
    with page.expect_websocket():
        sign_in(page)
    with page.expect_websocket():
        page.goto("/keys/")
    sockets.clear()
    requests.clear()
    page.goto(f"/?transport={transport}")
    expected = {"ws": "websocket", "sse": "sse", "poll": "polling"}[transport]
    # A function, not an expression: the page's CSP forbids eval.
    page.wait_for_function(f"() => document.body.dataset.transport === {expected!r}")
    expect(page.locator("[data-live-summary]")).to_contain_text("1 job is in progress")
    page.evaluate("window.__sameDocument = true")

    dispatch.job_enqueue(job_id=waiting.job_id)
    added, _ = services.job_create(owner=person, html_template="<h1>Second</h1>", data={})
    old_row = page.locator(f'tr[data-job-id="{waiting.job_id}"]')
    new_row = page.locator(f'tr[data-job-id="{added.job_id}"]')
    expect(new_row).to_be_visible(timeout=20_000)  # appeared without a reload
    expect(new_row.get_by_role("link")).to_have_text("Inline")
    # An inline job with a filename is listed by it, live too (not as "Inline").
    named, _ = services.job_create(
        owner=person, html_template="<h1>Third</h1>", data={}, options={"filename": "march"}
    )
    named_row = page.locator(f'tr[data-job-id="{named.job_id}"]')
    expect(named_row.get_by_role("link")).to_have_text(named.filename, timeout=20_000)
    assert named.filename.startswith("march")
    expect(old_row.locator("[data-field=status]")).to_have_text("Completed", timeout=60_000)
    expect(new_row.locator("[data-field=status]")).to_have_text("Completed", timeout=60_000)
    expect(page.locator("[data-live-summary]")).to_have_text("")
    assert page.evaluate("window.__sameDocument") is True
    if transport == "ws":
        shoot(page, "13-dashboard-live")

    followed = [url for url in sockets + requests if PER_JOB.search(url)]
    assert followed == [], followed  # nothing follows a single job
    if transport == "ws":
        assert [url.split("/", 3)[3] for url in sockets] == ["ws/jobs/"]
    elif transport == "sse":
        assert sum("/api/v1/jobs/events" in url for url in requests) == 1
        assert sockets == []
    else:
        assert sockets == []
        assert all("/api/v1/jobs/events" not in url for url in requests)
        assert any("/api/v1/jobs?limit=25" in url for url in requests)
