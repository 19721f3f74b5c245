"""Gotenberg's Chromium routes on the live stack, sent the way Gotenberg's clients send
them (multipart `files` named index.html, header.html, assets; the form fields as
strings; basic auth), the PDF read back."""

from __future__ import annotations

import io
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from pypdf import PdfReader

from tests.conftest import pdf_text

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


class _Site:
    """A page on loopback for the /url route (the test settings allow private networks)."""

    def __init__(self, body: bytes) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/page"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_url_route_fetches_the_page_under_the_outbound_rules(gotenberg):
    site = _Site(b"<html><head></head><body><p>Fetched from the site</p></body></html>")
    try:
        answer = gotenberg.post("/forms/chromium/convert/url", data={"url": site.url}, files=[])
    finally:
        site.server.shutdown()
    assert answer.status_code == 200, answer.text
    assert "Fetched from the site" in pdf_text(answer.content)[1]
    refused = gotenberg.post(
        "/forms/chromium/convert/url", data={"url": "file:///etc/passwd"}, files=[]
    )
    assert refused.status_code == 400
    assert "http(s)" in refused.json()["error"]


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
