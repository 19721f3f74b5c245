"""PDFs people already have as a job's source: merged in order, flattened on request,
each file's document information kept; bad files refused with a message."""

from __future__ import annotations

import io
import re

import pikepdf
import pytest
from pypdf import PdfReader

from rendering.errors import InvalidInput, LimitExceeded
from rendering.limits import Limits
from rendering.pdf_files import pdf_files_render, pdf_files_source
from tests.rendering.form_pdfs import membership_form, pages_pdf, plain_pdf


def test_files_are_joined_in_order_with_each_files_metadata():
    rendered = pdf_files_render(
        pdf_files_source([pages_pdf(2), plain_pdf()]), flatten=False, limits=Limits()
    )
    reader = PdfReader(io.BytesIO(rendered.content))
    assert rendered.page_count == len(reader.pages) == 3
    assert reader.pages[2].extract_text().strip() == "No fields here"
    sources = rendered.compliance["sources"]
    assert [s["PageCount"] for s in sources] == [2, 1]
    # Dates as ExifTool (and so Gotenberg's metadata/read) writes them.
    assert re.fullmatch(r"\d{4}:\d\d:\d\d \d\d:\d\d:\d\d([+-]\d\d:\d\d)?", sources[0]["CreateDate"])


def test_flatten_draws_the_fields_into_the_page():
    rendered = pdf_files_render(
        pdf_files_source([membership_form()]), flatten=True, limits=Limits()
    )
    assert not PdfReader(io.BytesIO(rendered.content)).get_fields()


def test_encrypted_and_broken_files_are_refused_by_number():
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(plain_pdf())) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(owner="owner-pw", user="user-pw"))
    with pytest.raises(InvalidInput, match="PDF file 2 is encrypted"):
        pdf_files_render(
            pdf_files_source([plain_pdf(), out.getvalue()]), flatten=False, limits=Limits()
        )
    with pytest.raises(InvalidInput, match="PDF file 1 is not a readable PDF"):
        pdf_files_render(pdf_files_source([b"%PDF-1.7 junk"]), flatten=False, limits=Limits())


def test_a_merge_past_the_page_limit_is_refused():
    with pytest.raises(LimitExceeded, match="the limit is 3"):
        pdf_files_render(
            pdf_files_source([pages_pdf(2), pages_pdf(2)]),
            flatten=False,
            limits=Limits(max_pages=3),
        )
