"""Office conversions on the live stack: POST /api/v1/convert and Gotenberg's LibreOffice
route (sent by Gotenberg's own Python client, gotenberg-client), converted by the real
worker's warm LibreOffice, the PDFs read back."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator

import pikepdf
import pytest
from gotenberg_client import GotenbergClient
from gotenberg_client.options import DownloadFromUrl, PageOrientation, PdfAFormat
from pypdf import PdfReader

from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status
from tests.e2e.file_server import FileServer
from tests.e2e.webhook_receiver import WebhookReceiver
from tests.office_files import docx

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def test_convert_merges_a_docx_and_markdown_into_one_landscape_pdf(http):
    answer = http.post(
        "/api/v1/convert",
        files=[
            ("file", ("letter.docx", docx("Dear reader", "Second page", "Third page"))),
            ("file", ("notes.md", b"# Meeting notes\n\n* one\n* two\n")),
        ],
        data={"page_ranges": "1-2", "landscape": "true"},
    )
    assert answer.status_code == 202, answer.text
    status = wait_for_status(http, answer.json()["status_url"], until={"completed", "failed"})
    assert status["status"] == "completed", status
    pdf = http.get(status["pdf_url"], follow_redirects=True)
    pages, text = pdf_text(pdf.content)
    assert pages == 3  # two of the letter's three pages, then the notes
    assert text.index("Dear reader") < text.index("Second page") < text.index("Meeting notes")
    assert "Third page" not in text
    first = PdfReader(io.BytesIO(pdf.content)).pages[0]
    assert float(first.mediabox.width) > float(first.mediabox.height)
    assert 'filename="letter.pdf"' in pdf.headers["content-disposition"]


@pytest.fixture
def gotenberg_client(live_stack, integrator) -> Iterator[GotenbergClient]:
    """Gotenberg's own Python client, pointed at our drop-in (the key as basic auth)."""
    with GotenbergClient(
        f"{live_stack.base_url}/gotenberg",
        auth=(integrator[1], ""),
        timeout=90,
        http2=False,
        backend="httpx",
    ) as client:
        yield client


def test_gotenbergs_client_converts_a_docx_with_page_ranges_landscape_and_a_filename(
    gotenberg_client,
):
    with gotenberg_client.libre_office.to_pdf() as route:
        answer = (
            route.convert_in_memory_file(io.BytesIO(docx("one", "two", "three")), name="r.docx")
            .page_ranges("2")
            .orient(PageOrientation.Landscape)
            .output_filename("quarterly")
            .trace_id("trace-office")
            .run()
        )
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "application/pdf"
    assert answer.headers["gotenberg-trace"] == "trace-office"
    assert 'filename="quarterly.pdf"' in answer.headers["content-disposition"]
    pages, text = pdf_text(bytes(answer.content))
    assert (pages, text.strip()) == (1, "two")
    page = PdfReader(io.BytesIO(bytes(answer.content))).pages[0]
    assert float(page.mediabox.width) > float(page.mediabox.height)


def test_gotenbergs_client_merges_files_by_name_into_one_pdfa(gotenberg_client):
    with gotenberg_client.libre_office.to_pdf() as route:
        answer = (
            route.convert_in_memory_file(io.BytesIO(b"# Second, by name"), name="b-notes.md")
            .convert_in_memory_file(io.BytesIO(docx("First, by name")), name="a-letter.docx")
            .do_merge()
            .pdf_format(PdfAFormat.A2b)
            .run()
        )
    assert answer.status_code == 200
    content = bytes(answer.content)
    pages, text = pdf_text(content)
    assert pages == 2
    assert text.index("First, by name") < text.index("Second, by name")
    with pikepdf.open(io.BytesIO(content)) as pdf, pdf.open_metadata() as xmp:
        assert xmp.get("pdfaid:part") == "2"


def test_gotenbergs_client_converts_a_downloaded_file_with_the_uploaded_one(gotenberg_client):
    site = FileServer({"/notes": ("b-notes.md", b"# Downloaded notes\n\n* one\n")})
    try:
        with gotenberg_client.libre_office.to_pdf() as route:
            answer = (
                route.convert_in_memory_file(io.BytesIO(docx("Uploaded letter")), name="a.docx")
                .download_from(
                    [DownloadFromUrl(f"{site.url}/notes", extra_http_headers={"X-Key": "k1"})]
                )
                .do_merge()
                .run()
            )
    finally:
        site.close()
    assert answer.status_code == 200
    pages, text = pdf_text(bytes(answer.content))
    assert pages == 2
    assert text.index("Uploaded letter") < text.index("Downloaded notes")
    assert site.requests[0][1]["X-Key"] == "k1"


def test_several_files_without_merge_answer_a_zip_of_one_pdf_each_idempotently(
    gotenberg_client,
):
    # Gotenberg's own client sends no Idempotency-Key of its own; its headers carry ours.
    gotenberg_client.add_headers({"Idempotency-Key": "office-zip-1"})
    letter = docx("Letter, apart")  # made once: a new one carries a new date

    def send():
        with gotenberg_client.libre_office.to_pdf() as route:
            return (
                route.convert_in_memory_file(io.BytesIO(b"# Notes, apart"), name="b-notes.md")
                .convert_in_memory_file(io.BytesIO(letter), name="a-letter.docx")
                .run()
            )

    answer = send()
    assert answer.status_code == 200
    assert answer.is_zip
    with zipfile.ZipFile(io.BytesIO(bytes(answer.content))) as archive:
        assert sorted(archive.namelist()) == ["a-letter.pdf", "b-notes.pdf"]
        first, second = (pdf_text(archive.read(name)) for name in sorted(archive.namelist()))
    assert (first[0], first[1].strip()) == (1, "Letter, apart")
    assert (second[0], "Notes, apart" in second[1]) == (1, True)
    # The same request again: the same two jobs, not two more.
    assert send().headers["x-job-id"] == answer.headers["x-job-id"]
    assert len(answer.headers["x-job-id"].split(",")) == 2


def test_gotenbergs_webhook_mode_sends_the_converted_pdf_to_the_webhook(gotenberg_client):
    receiver = WebhookReceiver()
    try:
        gotenberg_client.add_webhook_url(f"{receiver.url}/done")
        gotenberg_client.add_error_webhook_url(f"{receiver.url}/error")
        gotenberg_client.set_webhook_http_method("PUT")
        gotenberg_client.set_webhook_extra_headers({"Authorization": "Bearer receiver-secret"})
        with gotenberg_client.libre_office.to_pdf() as route:
            answer = (
                route.convert_in_memory_file(io.BytesIO(docx("Sent to the hook")), name="h.docx")
                .trace_id("office-async")
                .run()
            )
        assert answer.status_code == 204
        receiver.wait(1)
    finally:
        receiver.server.shutdown()
    method, path, headers, body = receiver.received[0]
    assert (method, path) == ("PUT", "/done")
    assert headers["Content-Type"] == "application/pdf"
    assert headers["Authorization"] == "Bearer receiver-secret"
    assert headers["Gotenberg-Trace"] == "office-async"
    assert "Sent to the hook" in pdf_text(body)[1]
