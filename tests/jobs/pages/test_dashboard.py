"""The dashboard lists only my jobs, with the state its script follows."""

from __future__ import annotations

import json

import pytest

from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_anonymous_visitor_is_sent_to_sign_in(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=/")


def test_dashboard_shows_my_jobs_and_not_others(browser, user):
    mine = PdfJobFactory(owner=user)
    theirs = PdfJobFactory()
    response = browser.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-job-id="{mine.job_id}"' in html
    assert str(theirs.job_id) not in html
    states = json.loads(json.dumps(response.context["states"]))  # what json_script embeds
    assert [s["job_id"] for s in states] == [str(mine.job_id)]
    assert states[0]["page_url"] == f"/jobs/{mine.job_id}/"


def test_empty_dashboard_invites_a_first_report(browser):
    html = browser.get("/").content.decode()
    assert "Create your first report" in html


def test_an_inline_job_is_listed_by_the_name_its_pdf_was_given(browser, user):
    named = PdfJobFactory(
        owner=user, template=None, html_template="<p>x</p>", options={"filename": "march.pdf"}
    )
    titled = PdfJobFactory(
        owner=user, template=None, html_template="<title>Q1 summary</title><p>x</p>"
    )
    plain = PdfJobFactory(owner=user, template=None, html_template="<p>x</p>")
    states = {s["job_id"]: s for s in browser.get("/").context["states"]}
    assert states[str(named.job_id)]["template_name"] == "march.pdf"
    assert states[str(titled.job_id)]["template_name"] == "q1-summary.pdf"
    assert states[str(plain.job_id)]["template_name"] == "Inline"
    assert states[str(plain.job_id)]["filename"] == f"report-{plain.job_id.hex[:8]}.pdf"
    html = browser.get(f"/jobs/{named.job_id}/").content.decode()
    assert "<h1>march.pdf</h1>" in html
