"""A new template from a fillable PDF on the New template page: uploaded, saved as a
pdf-form template with its fields as the schema, opened in the studio; a PDF without
fields or one past the template limit stays on the form saying why."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from rendering.engines.docx import DOCX_MIME
from reports.models import ReportTemplate
from tests.rendering.docx_files import invoice_docx
from tests.rendering.form_pdfs import membership_form, plain_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _upload(browser, content: bytes):
    upload = SimpleUploadedFile("application.pdf", content, content_type="application/pdf")
    return browser.post("/templates/new", {"name": "Application", "form_pdf": upload})


def test_an_uploaded_form_becomes_a_pdf_form_template(browser):
    created = _upload(browser, membership_form())
    assert created.status_code == 302
    assert created["Location"].endswith("/templates/application/edit")
    template = ReportTemplate.objects.get(slug="application")
    assert template.engine == "pdf-form"
    assert sorted(template.schema["properties"]) == ["country", "full_name", "plan", "returning"]
    assert "Or fill a PDF form" in browser.get("/templates/new").content.decode()


def test_a_pdf_without_fields_or_too_large_stays_on_the_form(browser, settings):
    refused = _upload(browser, plain_pdf())
    assert refused.status_code == 400
    assert "no form fields" in refused.content.decode()
    settings.PDF_MAX_TEMPLATE_BYTES = 4096
    large = _upload(browser, membership_form())
    assert large.status_code == 400
    assert "larger than 3 KB" in large.content.decode()
    assert not ReportTemplate.objects.filter(slug="application").exists()


def test_a_new_pdf_uploaded_in_the_studio_becomes_the_draft_with_its_fields(browser):
    _upload(browser, membership_form())
    page = browser.get("/templates/application/edit").content.decode()
    assert "Upload a new version" in page
    smaller = membership_form().replace(b"/T (country)", b"/T (nation)")
    upload = SimpleUploadedFile("v2.pdf", smaller, content_type="application/pdf")
    saved = browser.post("/templates/application/form-pdf", {"form_pdf": upload}, follow=True)
    assert "saved as a draft" in saved.content.decode()
    template = ReportTemplate.objects.get(slug="application")
    assert template.draft_version.number == 2
    assert "nation" in template.draft_version.schema["properties"]
    assert "country" in template.schema["properties"]  # the published one until published
    bad = SimpleUploadedFile("x.pdf", plain_pdf(), content_type="application/pdf")
    refused = browser.post("/templates/application/form-pdf", {"form_pdf": bad}, follow=True)
    assert "no form fields" in refused.content.decode()
    template.refresh_from_db()
    assert template.draft_version.number == 2


def test_an_uploaded_word_document_becomes_a_docx_template_and_takes_new_versions(browser):
    upload = SimpleUploadedFile("invoice.docx", invoice_docx(), content_type=DOCX_MIME)
    created = browser.post("/templates/new", {"name": "Invoice", "form_pdf": upload})
    assert created.status_code == 302
    template = ReportTemplate.objects.get(slug="invoice")
    assert template.engine == "docx"
    assert "customer" in template.schema["properties"]
    page = browser.get("/templates/invoice/edit").content.decode()
    assert "A Word document:" in page
    assert '"file": true' in page  # the studio hides the base64 source and the page controls

    again = SimpleUploadedFile(
        "v2.docx", invoice_docx(extra_paragraph="{{ due }}"), content_type=DOCX_MIME
    )
    saved = browser.post("/templates/invoice/form-pdf", {"form_pdf": again}, follow=True)
    assert "Word document is saved as a draft" in saved.content.decode()
    template.refresh_from_db()
    assert "due" in template.draft_version.schema["properties"]

    a_pdf = SimpleUploadedFile("x.pdf", membership_form(), content_type="application/pdf")
    refused = browser.post("/templates/invoice/form-pdf", {"form_pdf": a_pdf}, follow=True)
    assert "upload a Word document" in refused.content.decode()
    text = SimpleUploadedFile("x.txt", b"hello", content_type="text/plain")
    wrong = browser.post("/templates/new", {"name": "Text", "form_pdf": text})
    assert wrong.status_code == 400
    assert "a Word document (.docx)" in wrong.content.decode()
