"""The flatten, rotate, split and metadata steps (and the stamp's under layer) on real
PDFs, parsed as the API parses them and read back with pypdf."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

from rendering.errors import InvalidInput
from rendering.postprocess.page_steps import page_numbers
from rendering.postprocess.pdf_steps import steps_apply
from rendering.postprocess.steps import parse_steps
from tests.rendering.form_pdfs import membership_form, pages_pdf


def run(content: bytes, steps: list[dict]) -> PdfReader:
    result = steps_apply(content, parse_steps(steps), sources={}, max_pages=100)
    assert all(check.passed for check in result.checks), result.checks
    return PdfReader(io.BytesIO(result.content))


def test_rotate_turns_only_the_named_pages():
    reader = run(pages_pdf(4), [{"type": "rotate", "angle": 90, "pages": "2-3"}])
    assert [page.rotation for page in reader.pages] == [0, 90, 90, 0]


def test_split_keeps_the_named_pages_in_their_order():
    reader = run(pages_pdf(5), [{"type": "split", "pages": "4-,1"}])
    texts = [page.extract_text().strip() for page in reader.pages]
    assert texts == ["Page number 4", "Page number 5", "Page number 1"]


def test_metadata_sets_the_document_information():
    steps = [
        {"type": "metadata", "title": "Q3", "author": "Ada", "keywords": ["a", "b"]},
        {"type": "metadata", "creation_date": "2024-05-01T10:00:00+00:00"},
    ]
    info = run(pages_pdf(1), steps).metadata
    assert (info.title, info.author, info["/Keywords"]) == ("Q3", "Ada", "a, b")
    assert info["/CreationDate"].startswith("D:20240501100000")


def test_flatten_drops_the_form_fields():
    assert PdfReader(io.BytesIO(membership_form())).get_fields()
    reader = run(membership_form(), [{"type": "flatten"}])
    assert not reader.get_fields()
    assert "Full name" in reader.pages[0].extract_text()


def test_stamp_under_draws_beneath_the_content():
    reader = run(pages_pdf(1), [{"type": "stamp", "text": "DRAFT", "layer": "under"}])
    text = reader.pages[0].extract_text()
    # Drawn first, so the page's own text comes after the watermark's.
    assert text.index("DRAFT") < text.index("Page number 1")
    over = run(pages_pdf(1), [{"type": "stamp", "text": "DRAFT"}]).pages[0].extract_text()
    assert over.index("DRAFT") > over.index("Page number 1")


def test_encrypt_after_page_steps_needs_its_password():
    steps = [
        {"type": "rotate", "angle": 180},
        {"type": "encrypt", "user_password": "open-me", "owner_password": "owner-pass"},
    ]
    result = steps_apply(pages_pdf(2), parse_steps(steps), sources={}, max_pages=100)
    reader = PdfReader(io.BytesIO(result.content))
    assert reader.is_encrypted
    assert reader.decrypt("open-me")
    assert [page.rotation for page in reader.pages] == [180, 180]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ({"type": "rotate", "angle": 45}, "rotate.angle must be 90, 180 or 270"),
        ({"type": "rotate", "angle": 90, "pages": "3-1"}, "runs backwards"),
        ({"type": "split", "pages": "0"}, "counted from 1"),
        ({"type": "split"}, "split.pages names the pages"),
        ({"type": "metadata"}, "metadata sets at least one of"),
        ({"type": "metadata", "title": "x", "colour": "red"}, "unknown field(s) colour"),
        ({"type": "metadata", "creation_date": "yesterday"}, "ISO 8601"),
        ({"type": "flatten", "all": True}, "unknown field(s) all"),
        ({"type": "stamp", "text": "X", "layer": "middle"}, "stamp.layer must be"),
    ],
)
def test_bad_page_steps_name_the_step_and_field(step, message):
    with pytest.raises(InvalidInput, match=r"steps\[0\]") as raised:
        parse_steps([step])
    assert message in raised.value.message


def test_page_numbers_read_open_ranges_and_skip_missing_pages():
    assert page_numbers("2-,1,9", 4) == [2, 3, 4, 1]
