"""Live updates when the network misbehaves: a blocked WebSocket falls back to SSE, a dropped
socket reconnects by itself, and jobs made elsewhere appear on the dashboard."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from jobs import dispatch, services
from tests.browser.conftest import sign_in
from tests.factories import PdfJobFactory

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(90)]

# What a browser behind a proxy that refuses WebSockets sees: close 1006, never open.
BLOCKED_WEBSOCKET = """
window.WebSocket = class {
  constructor() { setTimeout(() => this.onclose && this.onclose({code: 1006}), 20); }
  send() {}
  close() {}
};
"""
# Every text the connection note shows, in order.
TRANSPORT_LOG = """() => {
  window.__transport = [];
  const note = document.querySelector('[data-transport]');
  new MutationObserver(() => window.__transport.push(note.textContent))
    .observe(note, {childList: true, characterData: true, subtree: true});
}"""


def test_blocked_websocket_falls_back_to_server_sent_events(page, person, live_stack):
    job = PdfJobFactory(owner=person, html_template="<p>{{name}}</p>", data={"name": "x"})
    sign_in(page)
    page.add_init_script(BLOCKED_WEBSOCKET)
    page.goto(f"/jobs/{job.job_id}/")
    expect(page.locator("[data-transport]")).to_contain_text("server-sent events")
    dispatch.job_enqueue(job_id=job.job_id)
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed")


def test_dropped_websocket_reconnects_and_catches_up(page, person, live_stack):
    job = PdfJobFactory(owner=person, html_template="<p>{{name}}</p>", data={"name": "x"})
    sockets: list = []

    def route(ws) -> None:
        sockets.append(ws)
        server = ws.connect_to_server()
        if len(sockets) == 1:  # the first connection drops after its first message

            def drop(message) -> None:
                ws.send(message)
                ws.close(code=1011, reason="proxy restarted")

            server.on_message(drop)

    sign_in(page)
    # This job's socket only: the page also follows all of my jobs (the job notices).
    page.route_web_socket(re.compile(r"/ws/jobs/[0-9a-f-]{36}/$"), route)
    page.goto(f"/jobs/{job.job_id}/")
    page.evaluate(TRANSPORT_LOG)
    expect(page.locator("[data-transport]")).to_contain_text("WebSocket", timeout=10_000)
    for _ in range(100):
        if len(sockets) >= 2:
            break
        page.wait_for_timeout(100)
    assert len(sockets) == 2  # reconnected by itself, no reload
    dispatch.job_enqueue(job_id=job.job_id)
    expect(page.locator(".page-head [data-field=status]")).to_have_text("Completed")
    log = page.evaluate("window.__transport")
    assert any(text.startswith("Connection lost; reconnecting") for text in log), log


def test_a_job_made_elsewhere_appears_on_the_dashboard(page, person, live_stack):
    sign_in(page)
    expect(page.get_by_text("No reports yet")).to_be_visible()
    page.evaluate("window.__sameDocument = true")
    # raw: the Handlebars syntax check cannot run beside Playwright's loop in this process
    job, _ = services.job_create(
        owner=person, html_template="<p>made elsewhere</p>", engine="raw", data={}
    )
    row = page.locator(f'tr[data-job-id="{job.job_id}"]')
    expect(row).to_be_visible(timeout=15_000)
    expect(row.locator("[data-field=status]")).to_have_text("Completed")
    expect(page.get_by_text("No reports yet")).to_be_hidden()
    assert page.evaluate("window.__sameDocument") is True
