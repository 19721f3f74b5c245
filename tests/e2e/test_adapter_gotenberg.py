"""Gotenberg's Chromium routes on the live stack, sent the way Gotenberg's clients send
them (multipart `files` named index.html, header.html, assets; the form fields as
strings; basic auth), the PDF read back."""

from __future__ import annotations

import io
import json
import time

import httpx
import pytest
from pypdf import PdfReader

from tests.conftest import pdf_text
from tests.e2e.webhook_receiver import WebhookReceiver

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

INDEX = """<!doctype html><html><head><link rel="stylesheet" href="style.css"></head>
<body><h1 class="title">Quarterly {{ not a template }}</h1><img src="dot.svg"></body></html>"""
HEADER = """<html><head><style>body{font-size:8px}</style></head><body>
<p>Page <span class="pageNumber"></span> of <span class="totalPages"></span></p></body></html>"""
DOT = b'<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"><rect width="9"/></svg>'


def _files(**files: bytes | str) -> list[tuple[str, tuple[str, bytes, str]]]:
    """Gotenberg's multipart shape: every file under the form field `files`."""
    return [
        ("files", (name, content.encode() if isinstance(content, str) else content, "text/html"))
        for name, content in files.items()
    ]


@pytest.fixture
def gotenberg(live_stack, integrator):
    # Gotenberg's clients send basic auth (here the key as the username, no password).
    with httpx.Client(
        base_url=f"{live_stack.base_url}/gotenberg", auth=(integrator[1], ""), timeout=60
    ) as client:
        yield client


def test_html_route_answers_the_pdf_with_paper_header_and_assets(gotenberg):
    answer = gotenberg.post(
        "/forms/chromium/convert/html",
        files=_files(
            **{"index.html": INDEX, "header.html": HEADER, "style.css": "h1 {color: red}"},
            **{"dot.svg": DOT},
        ),
        data={"paperWidth": "8.5", "paperHeight": "11", "landscape": "true", "marginTop": "1"},
        headers={"Gotenberg-Trace": "trace-42", "Gotenberg-Output-Filename": "quarterly"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.headers["gotenberg-trace"] == "trace-42"
    assert 'filename="quarterly.pdf"' in answer.headers["content-disposition"]
    page = PdfReader(io.BytesIO(answer.content)).pages[0]
    assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (792, 612)
    _, text = pdf_text(answer.content)
    assert "Quarterly {{ not a template }}" in text  # a finished page, not a template
    assert "Page 1 of 1" in text


def test_pdfa_with_pdfua_renders_tagged_pdfa_and_warns_that_the_renderer_changed(
    gotenberg, integrator
):
    answer = gotenberg.post(
        "/forms/chromium/convert/html",
        files=_files(**{"index.html": "<html lang='en'><body><h1>Archive</h1></body></html>"}),
        data={"pdfa": "PDF/A-2b", "pdfua": "true"},
    )
    assert answer.status_code == 200, answer.text
    warned = answer.headers["x-job-warnings"]
    assert "pdfa=PDF/A-2b with pdfua=true: rendered with WeasyPrint, not Chromium" in warned
    assert "made PDF/A-2A" in warned
    job = httpx.get(
        f"{gotenberg.base_url.scheme}://{gotenberg.base_url.netloc.decode()}"
        f"/api/v1/jobs/{answer.headers['x-job-id']}",
        headers={"X-API-Key": integrator[1]},
        timeout=30,
    ).json()
    assert job["renderer"] == "weasyprint"
    assert any("rendered with WeasyPrint" in warning for warning in job["warnings"])
    xmp = PdfReader(io.BytesIO(answer.content)).xmp_metadata
    assert xmp is not None
    assert xmp.pdfaid_part == "2"
    assert xmp.pdfaid_conformance == "A"


def test_markdown_route_turns_each_tohtml_into_html(gotenberg):
    index = '<html><body>{{ toHTML "notes.md" }}</body></html>'
    answer = gotenberg.post(
        "/forms/chromium/convert/markdown",
        files=_files(
            **{"index.html": index, "notes.md": "# Notes\n\n| a | b |\n|---|---|\n| 1 | 2 |"}
        ),
    )
    assert answer.status_code == 200, answer.text
    _, text = pdf_text(answer.content)
    assert "Notes" in text
    assert "toHTML" not in text


def test_url_route_fetches_the_page_under_the_outbound_rules(gotenberg):
    site = WebhookReceiver(b"<html><head></head><body><p>Fetched from the site</p></body></html>")
    try:
        answer = gotenberg.post(
            "/forms/chromium/convert/url", data={"url": f"{site.url}/page"}, files=[]
        )
    finally:
        site.server.shutdown()
    assert answer.status_code == 200, answer.text
    assert "Fetched from the site" in pdf_text(answer.content)[1]
    refused = gotenberg.post(
        "/forms/chromium/convert/url", data={"url": "file:///etc/passwd"}, files=[]
    )
    assert refused.status_code == 400
    assert "http(s)" in refused.json()["error"]


def test_webhook_mode_answers_204_and_sends_the_pdf_or_the_error(gotenberg):
    site = WebhookReceiver()
    hooks = {
        "Gotenberg-Webhook-Url": f"{site.url}/done",
        "Gotenberg-Webhook-Error-Url": f"{site.url}/error",
        "Gotenberg-Webhook-Method": "PUT",
        "Gotenberg-Webhook-Extra-Http-Headers": '{"Authorization": "Bearer receiver-secret"}',
        "Gotenberg-Trace": "async-1",
    }
    try:
        started = time.monotonic()
        answer = gotenberg.post(
            "/forms/chromium/convert/html",
            files=_files(**{"index.html": "<p>Sent to the hook</p>"}),
            headers=hooks,
        )
        assert answer.status_code == 204, answer.text
        assert time.monotonic() - started < 5  # at once, not after the render
        site.wait(1)
        method, path, headers, body = site.received[0]
        assert (method, path) == ("PUT", "/done")
        assert headers["Content-Type"] == "application/pdf"
        assert headers["Authorization"] == "Bearer receiver-secret"
        assert headers["Gotenberg-Trace"] == "async-1"
        assert "Sent to the hook" in pdf_text(body)[1]

        # A page that fails to render: its error goes to the error URL, as JSON.
        failing = gotenberg.post(
            "/forms/chromium/convert/html",
            files=_files(**{"index.html": "<script>while (true) {}</script><p>never</p>"}),
            headers={**hooks, "Gotenberg-Trace": "async-2"},
        )
        assert failing.status_code == 204, failing.text
        site.wait(2)
        method, path, headers, body = site.received[1]
        assert (method, path) == ("POST", "/error")
        assert headers["Gotenberg-Trace"] == "async-2"
        error = json.loads(body)
        assert error["status"] >= 400
        assert error["message"]
    finally:
        site.server.shutdown()
    one_half = gotenberg.post(
        "/forms/chromium/convert/html",
        files=_files(**{"index.html": "<p>x</p>"}),
        headers={"Gotenberg-Webhook-Url": hooks["Gotenberg-Webhook-Url"]},
    )
    assert one_half.status_code == 400
    assert "Error-Url" in one_half.json()["error"]


def test_gotenberg_bad_input_is_refused_with_a_message(gotenberg, live_stack):
    index = _files(**{"index.html": "<p>x</p>"})
    no_key = httpx.post(live_stack.url("/gotenberg/forms/chromium/convert/html"), files=index)
    assert no_key.status_code == 401
    scaled = gotenberg.post("/forms/chromium/convert/html", files=index, data={"scale": "0.5"})
    assert scaled.status_code == 400
    assert "scale" in scaled.json()["error"]
    odd = gotenberg.post(
        "/forms/chromium/convert/html", files=index, data={"paperWidth": "3", "paperHeight": "3"}
    )
    assert odd.status_code == 400
    assert "Letter" in odd.json()["error"]
    # A huge upload is refused from its declared length, before its body is read.
    huge = gotenberg.post(
        "/forms/chromium/convert/html", files=_files(**{"index.html": b"x" * (20 * 1024 * 1024)})
    )
    assert huge.status_code == 413
    assert huge.json()["code"] == "too_large"
