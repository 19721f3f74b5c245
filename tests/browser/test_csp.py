"""Every page of the UI, the admin and the API docs runs under the Content-Security-Policy
(`script-src 'self'`, no inline script, handler or style attribute) without a violation."""

from __future__ import annotations

import pytest

from jobs import services
from reports.samples import sample_files, template_sync_samples
from tests.browser.conftest import sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.browser, pytest.mark.timeout(120)]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""


def test_ui_admin_and_docs_pages_raise_no_csp_violation(page, person, live_stack):
    person.is_staff = person.is_superuser = True
    person.save()
    template_sync_samples()
    data = sample_files("invoice")[2]
    job, _ = services.job_create(owner=person, template_slug="invoice", data=data, options={})
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.add_init_script(RECORD_VIOLATIONS)

    sign_in(page)
    paths = [
        "/",
        "/reports/new/",
        "/reports/new/invoice/",
        f"/jobs/{job.job_id}/",
        "/keys/",
        "/account/",
        "/admin/",
        "/admin/jobs/pdfjob/",
        f"/admin/jobs/pdfjob/{job.pk}/change/",
        "/admin/jobs/deadletter/",
        "/admin/reports/reporttemplate/",
        "/admin/accounts/apikey/",
        "/admin/accounts/sentnotification/",
        "/api/v1/docs",
        "/api/v1/redoc",
        "/ops/",
    ]
    violations: dict[str, list[str]] = {}
    for path in paths:
        response = page.goto(path)
        assert response.status == 200, path
        policy = response.header_value("content-security-policy") or ""
        assert "script-src 'self'" in policy, (path, policy)
        page.wait_for_timeout(800)  # scripts run, live connections open
        found = page.evaluate("window.__cspViolations")
        if found:
            violations[path] = found
    assert violations == {}
    # Redoc's page asked Google Fonts for its fonts; none of the pages raises a CSP error.
    assert [text for text in console if "Content Security Policy" in text] == []
    # The progress bar is still drawn, by script rather than a style attribute.
    page.goto(f"/jobs/{job.job_id}/")
    width = page.locator('[role="progressbar"] span').evaluate("node => node.style.width")
    assert width.endswith("%")
