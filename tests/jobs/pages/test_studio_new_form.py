"""A new template from a fillable PDF on the New template page: uploaded, saved as a
pdf-form template with its fields as the schema, opened in the studio; a PDF without
fields or one past the template limit stays on the form saying why."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from reports.models import ReportTemplate
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
