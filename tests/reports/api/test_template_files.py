"""File templates through the API by `template_file` (the file in base64): a Word
document's tags and a PDF form's fields become the schema at save, a new file keeps the
engine and brings its own names, and what does not fit is a 400 naming the field."""

from __future__ import annotations

import base64

import pytest

from tests.rendering.docx_files import invoice_docx
from tests.rendering.form_pdfs import membership_form

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"


def _b64(content: bytes) -> str:
    return base64.b64encode(content).decode("ascii")


def test_a_word_template_is_saved_from_its_file_with_its_names_as_the_schema(api):
    created = api.post(
        URL,
        {
            "slug": "invoice",
            "name": "Invoice",
            "engine": "docx",
            "template_file": _b64(invoice_docx()),
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    shown = api.get(f"{URL}/invoice").json()
    assert shown["engine"] == "docx"
    assert sorted(shown["schema"]["properties"]) == ["customer", "lines", "logo", "number", "paid"]
    assert "template_file" not in shown

    # A new file (the engine is the template's) saves a draft with the new file's names.
    changed = api.patch(
        f"{URL}/invoice",
        {"template_file": _b64(invoice_docx(extra_paragraph="Due {{ due_date }}"))},
        format="json",
    )
    assert changed.status_code == 200, changed.json()
    assert "due_date" in changed.json()["draft"]["schema"]["properties"]


def test_a_pdf_form_is_saved_from_its_file_too(api):
    created = api.post(
        URL,
        {
            "slug": "membership",
            "name": "Membership",
            "engine": "pdf-form",
            "template_file": _b64(membership_form()),
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert "full_name" in created.json()["schema"]["properties"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"engine": "handlebars", "template_file": "AAAA"}, "send engine pdf-form or docx"),
        ({"engine": "docx", "template_file": "not base64!"}, "does not decode"),
        ({"engine": "docx", "template_file": "AAAA", "html": "<p/>"}, "not both"),
        ({"engine": "docx"}, "template_file"),
    ],
    ids=["text-engine", "base64", "both", "neither"],
)
def test_a_template_file_that_does_not_fit_is_a_400_naming_it(api, body, message):
    answer = api.post(URL, {"slug": "t", "name": "T"} | body, format="json")
    assert answer.status_code == 400
    assert message in str(answer.json())


def test_an_inline_submit_takes_a_word_template_file(api):
    answer = api.post(
        "/api/v1/generate-pdf-async",
        {"engine": "docx", "template_file": _b64(invoice_docx()), "data": {"number": "1"}},
        format="json",
    )
    assert answer.status_code == 202, answer.json()
    refused = api.post(
        "/api/v1/generate-pdf-async",
        {"template_file": _b64(invoice_docx())},
        format="json",
    )
    assert refused.status_code == 400
    assert "template_file" in str(refused.json())
