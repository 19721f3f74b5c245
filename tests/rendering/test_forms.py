"""PDF forms as templates (rendering.forms): a fillable PDF's fields become a schema and
sample data, a job fills them (and flattens them on request), bad forms and data are
errors that say what is wrong."""

from __future__ import annotations

import io
import subprocess
from collections import Counter

import pikepdf
import pytest
from pypdf import PdfReader

from rendering.errors import InvalidInput, TemplateSyntaxError
from rendering.forms import form_fields, form_fill, form_pdf, form_schema, form_source
from rendering.options import parse_options
from rendering.report import TemplateSource, report_render
from reports.limits import limits_from_settings
from tests.rendering.form_pdfs import membership_form, plain_pdf

DATA = {"full_name": "Ada Lovelace", "returning": True, "plan": "pro", "country": "Japan"}


def _values(content: bytes) -> dict[str, str]:
    fields = PdfReader(io.BytesIO(content)).get_fields() or {}
    return {name: str(field.get("/V")) for name, field in fields.items()}


def _text(content: bytes) -> str:
    return subprocess.run(
        ["pdftotext", "-", "-"], input=content, capture_output=True, check=True
    ).stdout.decode()


def test_the_forms_fields_become_a_schema_and_sample_data():
    fields = form_fields(membership_form())
    assert [(f.name, f.kind) for f in fields] == [
        ("full_name", "text"),
        ("returning", "checkbox"),
        ("plan", "radio"),
        ("country", "choice"),
    ]
    schema, sample = form_schema(fields)
    assert schema == {
        "type": "object",
        "properties": {
            "full_name": {"type": "string"},
            "returning": {"type": "boolean"},
            "plan": {"type": "string", "enum": ["basic", "pro"]},
            "country": {"type": "string", "enum": ["France", "Japan", "Peru"]},
        },
        "additionalProperties": False,
    }
    assert sample == {
        "full_name": "full_name",
        "returning": False,
        "plan": "basic",
        "country": "France",
    }


def test_a_job_fills_every_kind_of_field():
    filled = form_fill(membership_form(), DATA)
    assert filled.page_count == 1
    assert _values(filled.content) == {
        "full_name": "Ada Lovelace",
        "returning": "/Yes",
        "plan": "/pro",
        "country": "Japan",
    }


def test_flatten_draws_the_values_into_the_page_and_drops_the_form(tmp_path):
    flat = form_fill(membership_form(), DATA, flatten=True)
    with pikepdf.open(io.BytesIO(flat.content)) as document:
        assert "/AcroForm" not in document.Root
        assert not document.pages[0].get("/Annots")
    assert "Ada Lovelace" in _text(flat.content)  # now page content, not a field's value


def _render(options: dict) -> bytes:
    return report_render(
        source=TemplateSource(engine="pdf-form", html=form_source(membership_form())),
        data={"full_name": "Grace Hopper"},
        options=parse_options(options),
        limits=limits_from_settings(),
    ).content


def test_report_render_fills_a_pdf_form_template_with_the_jobs_options():
    plain = _render({"flatten": True})
    marked = _render({"flatten": True, "title": "Application", "watermark": "COPY"})
    assert "Grace Hopper" in _text(marked)
    # The job's watermark, as on any other PDF (drawn diagonally: its letters come apart).
    added = Counter("".join(_text(marked).split())) - Counter("".join(_text(plain).split()))
    assert added == Counter("COPY")
    assert PdfReader(io.BytesIO(marked)).metadata.title == "Application"


def test_bad_forms_and_bad_data_say_what_is_wrong():
    with pytest.raises(TemplateSyntaxError, match="data URI"):
        form_pdf("<h1>not a form</h1>")
    with pytest.raises(TemplateSyntaxError, match="not a PDF"):
        form_pdf("data:application/pdf;base64,aGVsbG8=")
    with pytest.raises(TemplateSyntaxError, match="no form fields"):
        form_fields(plain_pdf())
    with pytest.raises(InvalidInput, match=r"No form field named 'ful_name'.*full_name"):
        form_fill(membership_form(), {"ful_name": "typo"})
    with pytest.raises(InvalidInput, match="plan: 'gold' is not one of its choices: basic, pro"):
        form_fill(membership_form(), {"plan": "gold"})
    with pytest.raises(InvalidInput, match=r"options\.flatten must be true or false"):
        parse_options({"flatten": "yes"})


def test_a_hybrid_forms_xfa_copy_is_dropped_so_viewers_show_the_filled_fields():
    with pikepdf.open(io.BytesIO(membership_form())) as document:
        document.Root.AcroForm.XFA = pikepdf.Array([pikepdf.String("template"), b"<xdp/>"])
        out = io.BytesIO()
        document.save(out)
    filled = form_fill(out.getvalue(), DATA)
    with pikepdf.open(io.BytesIO(filled.content)) as document:
        assert "/XFA" not in document.Root.AcroForm
    assert _values(filled.content)["full_name"] == "Ada Lovelace"
