"""options.pdf parsed and refused with a message naming the field."""

from __future__ import annotations

import pytest

from rendering.errors import RenderError
from rendering.options import parse_options
from rendering.postprocess.document_options import document_renderer_check
from tests.rendering.postprocess.conftest import sample_cii_xml


def test_profile_and_metadata_round_trip_through_the_stored_options():
    raw = {
        "pdf": {
            "profile": "PDF/A-2b",
            "metadata": {"title": "T", "keywords": "a, b", "lang": "de-CH"},
        }
    }
    stored = parse_options(raw).as_dict()
    assert stored["pdf"] == {
        "profile": "pdf/a-2b",
        "metadata": {"title": "T", "keywords": ["a", "b"], "lang": "de-CH"},
    }
    assert parse_options(stored).pdf == parse_options(raw).pdf


@pytest.mark.parametrize(
    ("pdf", "message"),
    [
        ({"profile": "pdf/a-1b"}, "is not offered; use one of: pdf/a-2b"),
        ({"profile": "pdf/a-3b+ua-1"}, "is not offered"),
        ({"metadata": {"lang": "not a tag!"}}, "not a BCP 47 language tag"),
        ({"metadata": {"creator": "x"}}, "Unknown options.pdf.metadata field(s): creator"),
        ({"colour": "red"}, "Unknown options.pdf field(s): colour"),
        ({"e_invoice": {"xml": ""}}, "must be the invoice's CII XML"),
        ({"e_invoice": {"xml": "<a/>", "profile": "gold"}}, "profile must be one of"),
        ({"profile": "pdf/ua-1", "e_invoice": {"xml": "<a/>"}}, "is a PDF/A-3b document"),
    ],
)
def test_bad_pdf_options_name_the_field(pdf, message):
    with pytest.raises(RenderError, match=None) as raised:
        parse_options({"pdf": pdf})
    assert message in raised.value.message


def test_an_e_invoice_makes_the_document_pdf_a_3b():
    document = parse_options({"pdf": {"e_invoice": {"xml": sample_cii_xml()}}}).pdf
    assert document is not None
    assert document.profile == "pdf/a-3b"
    assert document.e_invoice is not None
    assert document.e_invoice.profile == "en16931"


@pytest.mark.parametrize("renderer", ["xhtml2pdf", "chromium"])
def test_a_renderer_that_cannot_honour_a_profile_is_refused_naming_the_one_that_can(renderer):
    document = parse_options({"pdf": {"profile": "pdf/ua-1"}}).pdf
    with pytest.raises(RenderError) as raised:
        document_renderer_check(document, renderer)
    assert raised.value.code == "profile_unsupported"
    assert f"The {renderer} renderer cannot produce pdf/ua-1" in raised.value.message
    assert "'weasyprint'" in raised.value.message
    document_renderer_check(document, "weasyprint")  # no error
