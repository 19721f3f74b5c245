"""jsreport's and DocRaptor's routes on the live stack, with the bodies and credentials
their clients send (jsreport-client: JSON to /api/report with basic auth; docraptor-python:
the doc as the JSON body with the key as the basic-auth username; the older HTTP API:
`{user_credentials, doc}`), the PDF read back."""

from __future__ import annotations

import time

import httpx
import pytest

from reports.services import template_create
from tests.conftest import pdf_text
from tests.factories import UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

INVOICE = "<h1>Invoice for {{customer}}</h1>{{#each lines}}<p>{{item}}</p>{{/each}}"


@pytest.fixture
def jsreport(live_stack, integrator):
    # jsreport-client sends its user name and password; the key goes in either half.
    with httpx.Client(
        base_url=f"{live_stack.base_url}/jsreport", auth=("admin", integrator[1]), timeout=60
    ) as client:
        yield client


def test_jsreport_inline_stored_and_async_reports(jsreport, integrator):
    inline = jsreport.post(
        "/api/report",
        json={
            "template": {
                "content": INVOICE,
                "engine": "handlebars",
                "recipe": "chrome-pdf",
                "chrome": {"format": "Letter", "landscape": True, "marginTop": "20px"},
            },
            "data": {"customer": "Zephyr", "lines": [{"item": "Gear 1"}, {"item": "Gear 2"}]},
            "options": {"reportName": "zephyr"},
        },
    )
    assert inline.status_code == 200, inline.text
    assert inline.headers["content-type"] == "application/pdf"
    assert 'filename="zephyr.pdf"' in inline.headers["content-disposition"]
    text = pdf_text(inline.content)[1]
    assert "Invoice for Zephyr" in text
    assert "Gear 2" in text

    template_create(
        owner=integrator[0], name="Monthly invoice", slug="monthly-invoice", html=INVOICE
    )
    by_name = jsreport.post(
        "/api/report",
        json={"template": {"name": "Monthly invoice"}, "data": {"customer": "Acme", "lines": []}},
        headers={"Prefer": "respond-async"},
    )
    assert by_name.status_code == 202, by_name.text
    status_url = by_name.headers["location"]
    assert "/jsreport/reports/" in status_url
    deadline = time.monotonic() + 60
    status = jsreport.get(status_url)
    while status.status_code == 200 and time.monotonic() < deadline:
        assert status.text == "Report is pending"
        time.sleep(0.3)
        status = jsreport.get(status_url)
    assert status.status_code == 201, status.text
    content = jsreport.get(status.headers["location"])
    assert content.status_code == 200
    assert "Invoice for Acme" in pdf_text(content.content)[1]


def test_jsreport_bad_input(jsreport, live_stack):
    other = UserFactory(username="someone-else")
    template_create(owner=other, name="Secret", slug="secret", html="<p>{{x}}</p>")
    foreign = jsreport.post("/api/report", json={"template": {"name": "Secret"}, "data": {}})
    assert foreign.status_code == 404
    foreign_id = jsreport.post("/api/report", json={"template": {"shortid": "secret"}})
    assert foreign_id.status_code == 404
    recipe = jsreport.post(
        "/api/report", json={"template": {"content": "x", "engine": "handlebars", "recipe": "xlsx"}}
    )
    assert recipe.status_code == 400
    assert "chrome-pdf" in recipe.json()["error"]
    engine = jsreport.post(
        "/api/report",
        json={"template": {"content": "x", "engine": "nunjucks", "recipe": "chrome-pdf"}},
    )
    assert engine.status_code == 400
    assert "handlebars" in engine.json()["error"]  # names the engines we have
    syntax = jsreport.post(
        "/api/report",
        json={"template": {"content": "<p>\n{{#each x}}", "engine": "handlebars"}},
    )
    assert syntax.status_code == 400
    no_key = httpx.post(live_stack.url("/jsreport/api/report"), json={"template": {}})
    assert no_key.status_code == 401


@pytest.fixture
def docraptor(live_stack, integrator):
    # docraptor-python: configuration.username = the key, no password.
    with httpx.Client(
        base_url=f"{live_stack.base_url}/docraptor", auth=(integrator[1], ""), timeout=60
    ) as client:
        yield client


def test_docraptor_sync_and_async_documents(docraptor, live_stack, integrator):
    sync = docraptor.post(
        "/docs",
        json={
            "test": True,
            "document_type": "pdf",
            "document_content": "<html><body><p>Hello from Python</p></body></html>",
            "name": "python-sync.pdf",
        },
    )
    assert sync.status_code == 200, sync.text
    assert 'filename="python-sync.pdf"' in sync.headers["content-disposition"]
    text = pdf_text(sync.content)[1]
    assert "Hello from Python" in text
    assert "TEST" in text  # test documents are watermarked

    # The older HTTP API: user_credentials beside the doc, async: true on /docs.
    created = httpx.post(
        live_stack.url("/docraptor/docs"),
        json={
            "user_credentials": integrator[1],
            "doc": {"document_content": "<p>Async hello</p>", "type": "pdf", "async": True},
        },
        timeout=30,
    )
    assert created.status_code == 200, created.text
    status_id = created.json()["status_id"]
    deadline = time.monotonic() + 60
    status = docraptor.get(f"/status/{status_id}").json()
    while status["status"] in ("queued", "working") and time.monotonic() < deadline:
        time.sleep(0.3)
        status = docraptor.get(f"/status/{status_id}").json()
    assert status["status"] == "completed", status
    assert status["number_of_pages"] == 1
    by_link = httpx.get(status["download_url"], timeout=30)  # a signed link: no key
    assert "Async hello" in pdf_text(by_link.content)[1]
    by_id = docraptor.get(f"/download/{status['download_id']}")
    assert by_id.content == by_link.content


def test_docraptor_bad_input(docraptor, live_stack):
    xls = docraptor.post("/docs", json={"document_type": "xls", "document_content": "<p>x</p>"})
    assert xls.status_code == 400
    assert "pdf" in xls.json()["error"]
    prince = docraptor.post(
        "/docs", json={"document_content": "<p>x</p>", "prince_options": {"media": "screen"}}
    )
    assert prince.status_code == 400
    assert "prince_options" in prince.json()["error"]
    wrong = httpx.post(
        live_stack.url("/docraptor/docs?user_credentials=rk_made_up"),
        json={"document_content": "<p>x</p>"},
    )
    assert wrong.status_code == 401
    other = docraptor.get("/status/00000000-0000-0000-0000-000000000000")
    assert other.status_code == 404
