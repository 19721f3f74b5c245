"""Job options: defaults, normalisation and clear errors."""

from __future__ import annotations

import pytest

from reports.errors import RenderError
from reports.options import PdfOptions, parse_options


def test_defaults_when_absent():
    assert parse_options(None) == PdfOptions()
    assert parse_options({}).as_dict() == {
        "filename": "report.pdf",
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
    ],
)
def test_bad_options_are_refused_with_a_message(raw, message):
    with pytest.raises(RenderError, match=message):
        parse_options(raw)
