"""File templates on the live stack. A Word template: a .docx saved from template_file,
its tags filled by a job on the real worker and turned into PDF by the worker's warm
LibreOffice, the PDF read back (text in order, the row loop, the kept paragraph, the
image); its preview is a picture of the filled first page; a tag that fails at render
fails the job saying so. A PDF form: the IRS's W-9 filled by the real worker, its field
values read back."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pikepdf
import pytest
from pypdf import PdfReader

from tests.conftest import pdf_text
from tests.e2e.conftest import wait_for_status
from tests.rendering.docx_files import INVOICE_DATA, invoice_docx, png_data_uri

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]


def _save(http, content: bytes) -> None:
    answer = http.post(
        "/api/v1/templates",
        json={
            "slug": "word-invoice",
            "name": "Word invoice",
            "engine": "docx",
            "template_file": base64.b64encode(content).decode("ascii"),
        },
    )
    assert answer.status_code == 201, answer.text


def _job(http, data: dict) -> dict:
    answer = http.post(
        "/api/v1/generate-pdf-async",
        json={"template": "word-invoice", "data": data, "options": {"title": "Invoice A-17"}},
    )
    assert answer.status_code == 202, answer.text
    return wait_for_status(http, answer.json()["status_url"], until={"completed", "failed"})


def test_a_word_invoice_is_filled_and_converted_by_the_worker(http):
    _save(http, invoice_docx(extra_paragraph="Total due: {{ '%.2f' % 7.5 }}"))
    status = _job(http, INVOICE_DATA | {"logo": png_data_uri(120, 40)})
    assert status["status"] == "completed", status
    content = http.get(status["pdf_url"], follow_redirects=True).content
    pages, text = pdf_text(content)
    assert pages == 1
    order = ["Invoice A-17", "Ada & Co", "Widget", "3.00", "Gadget", "4.50", "PAID in full"]
    assert [text.index(part) for part in order] == sorted(text.index(part) for part in order)
    assert "Total due: 7.50" in text
    assert "{{" not in text
    assert "{%" not in text
    with pikepdf.open(io.BytesIO(content)) as pdf:
        assert len(pdf.pages[0].images) == 1  # the logo from the data URI
        assert str(pdf.docinfo["/Title"]) == "Invoice A-17"

    preview = http.post("/api/v1/templates/word-invoice/preview", json={})
    assert preview.status_code == 200, preview.text[:300]
    assert preview.content.startswith(b"\x89PNG")


def test_a_tag_that_fails_at_render_fails_the_job_naming_it(http):
    _save(http, invoice_docx(extra_paragraph="{{ customer.name + 1 }}"))
    status = _job(http, INVOICE_DATA | {"logo": ""})
    assert status["status"] == "failed", status
    assert status["error_code"] == "template_error", status
    assert "Word document" in status["error"] or "Template error" in status["error"]


def test_a_government_form_is_filled_by_the_worker(http):
    w9 = Path(__file__).parents[1] / "rendering" / "public_forms" / "fw9.pdf"
    saved = http.post(
        "/api/v1/templates",
        json={
            "slug": "w9",
            "name": "W-9",
            "engine": "pdf-form",
            "template_file": base64.b64encode(w9.read_bytes()).decode("ascii"),
        },
    )
    assert saved.status_code == 201, saved.text
    page = "topmostSubform[0].Page1[0]."
    answer = http.post(
        "/api/v1/generate-pdf-async",
        json={
            "template": "w9",
            "data": {f"{page}f1_1[0]": "Ada Lovelace", f"{page}Address[0].f1_7[0]": "12 Byron St"},
        },
    )
    assert answer.status_code == 202, answer.text
    status = wait_for_status(http, answer.json()["status_url"], until={"completed", "failed"})
    assert status["status"] == "completed", status
    content = http.get(status["pdf_url"], follow_redirects=True).content
    fields = PdfReader(io.BytesIO(content)).get_fields()
    assert fields[f"{page}f1_1[0]"]["/V"] == "Ada Lovelace"
    assert fields[f"{page}Address[0].f1_7[0]"]["/V"] == "12 Byron St"
