"""Job options: defaults, normalisation and clear errors."""

from __future__ import annotations

import pytest

from rendering.error_codes import ErrorCode
from rendering.errors import InvalidInput
from rendering.options import PdfOptions, parse_options


def test_defaults_when_absent():
    assert parse_options(None) == PdfOptions()
    # No filename unless chosen: the job names its download (tests/jobs/test_download_name.py).
    assert parse_options({}).as_dict() == {
        "page_size": "A4",
        "orientation": "portrait",
    }


def test_values_are_normalised_and_filename_made_safe():
    options = parse_options(
        {"filename": "../../etc/Q3 report", "page_size": "letter", "orientation": "LANDSCAPE"}
    )
    assert options == PdfOptions(
        filename="etc-Q3 report.pdf", page_size="Letter", orientation="landscape"
    )


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "options must be a JSON object"),
        ({"page_size": "B7"}, "page_size must be one of"),
        ({"orientation": "diagonal"}, "orientation must be one of"),
        ({"filename": ""}, "filename must be a non-empty string"),
        ({"colour": "red"}, "Unknown option"),
        ({"margin": "2"}, "margin: '2' is not a length in mm, cm, in or pt"),
        ({"margin": "1cm 1cm 1cm 1cm 1cm"}, "margin must be 1 to 4 lengths"),
        ({"margin": "50cm"}, "larger than the page allows"),
        ({"margin": 2}, "margin must be 1 to 4 lengths"),
        ({"title": 5}, "title must be a string"),
        ({"author": "x" * 201}, "author is longer than 200 characters"),
        ({"watermark": "W" * 41}, "watermark is longer than 40 characters"),
        ({"test_mode": "yes"}, "test_mode must be true or false"),
    ],
)
def test_bad_options_are_refused_with_a_message(raw, message):
    with pytest.raises(InvalidInput, match=message) as refused:
        parse_options(raw)
    assert refused.value.code == ErrorCode.INVALID_DATA  # a validation failure like any other


def test_paging_and_metadata_options_are_kept():
    options = parse_options(
        {
            "margin": "1.5cm 2cm",
            "title": "Q3\nreport",
            "author": "Ada",
            "subject": "Sales",
            "header": "ACME",
            "footer": "Page {page} of {pages}",
            "watermark": "DRAFT",
        }
    )
    assert options.margin == "1.5cm 2cm"
    assert options.title == "Q3 report"  # control characters cannot reach the PDF info
    assert options.as_dict()["footer"] == "Page {page} of {pages}"
    assert parse_options(options.as_dict()) == options


def test_test_mode_means_a_test_watermark():
    assert parse_options({"test_mode": True}).watermark == "TEST"
    assert parse_options({"test_mode": True, "watermark": "DRAFT"}).watermark == "DRAFT"
    assert parse_options({"test_mode": False}).watermark == ""


@pytest.mark.parametrize(
    "raw",
    [
        None,
        {},
        {"filename": "q1", "page_size": "letter", "orientation": "LANDSCAPE", "margin": "1cm 2cm"},
        {"title": "T", "author": "A", "subject": "S", "header": "H", "footer": "F"},
        {"test_mode": True, "flatten": True},
        {"watermark": "DRAFT", "pdf": {"profile": "pdf/a-2b"}},
        {"engine": {"strict_undefined": True, "currency": "EUR"}},
    ],
)
def test_as_dict_is_what_dataclasses_asdict_gave(raw):
    """The same keys, values and order as the earlier as_dict built on dataclasses.asdict."""
    from dataclasses import asdict

    options = parse_options(raw)
    expected = {k: v for k, v in asdict(options).items() if v and k not in ("pdf", "engine")}
    if options.pdf is not None:
        expected["pdf"] = options.pdf.as_dict()
    if options.engine is not None:
        expected["engine"] = options.engine.as_dict()
    assert list(options.as_dict().items()) == list(expected.items())
