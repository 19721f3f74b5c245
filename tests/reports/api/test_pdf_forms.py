"""A PDF form as a stored template through the API: its fields become the schema and
sample data at save, a job fills it on the worker path, a new PDF brings its own fields,
and what is not a fillable PDF is a 400 saying so."""

from __future__ import annotations

import io

import pytest
from django.core.files.storage import storages
from pypdf import PdfReader

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from rendering.forms import form_source
from tests.rendering.form_pdfs import membership_form, plain_pdf

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"


def _create(api, pdf: bytes):
    body = {"slug": "membership", "name": "Membership", "engine": "pdf-form"}
    return api.post(URL, body | {"html": form_source(pdf)}, format="json")


def test_a_form_is_saved_with_its_fields_as_the_schema_and_a_job_fills_it(api):
    created = _create(api, membership_form())
    assert created.status_code == 201, created.json()
    template = created.json()
    assert template["engine"] == "pdf-form"
    assert sorted(template["schema"]["properties"]) == ["country", "full_name", "plan", "returning"]
    assert template["sample_data"]["plan"] == "basic"

    # Data the form has no field for is refused at submit, naming the field.
    typo = api.post(
        "/api/v1/generate-pdf-async",
        {"template": "membership", "data": {"ful_name": "Ada"}},
        format="json",
    )
    assert typo.status_code in (400, 422), typo.json()
    assert "ful_name" in typo.json()["error"]

    submitted = api.post(
        "/api/v1/generate-pdf-async",
        {
            "template": "membership",
            "data": {"full_name": "Ada Lovelace", "returning": True, "plan": "pro"},
            "options": {"flatten": False},
        },
        format="json",
    )
    assert submitted.status_code == 202, submitted.json()
    job = PdfJob.objects.get(job_id=submitted.json()["job_id"])
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED, done.error
    assert done.page_count == 1
    fields = PdfReader(io.BytesIO(storages["reports"].open(done.pdf_file).read())).get_fields()
    assert fields["full_name"]["/V"] == "Ada Lovelace"
    assert fields["returning"]["/V"] == "/Yes"
    assert fields["plan"]["/V"] == "/pro"


def test_a_pdf_without_fields_or_not_a_pdf_is_a_400_saying_so(api):
    no_fields = _create(api, plain_pdf())
    assert no_fields.status_code == 400
    assert no_fields.json()["code"] == "template_syntax"
    assert "no form fields" in no_fields.json()["error"]
    html = api.post(
        URL,
        {"slug": "m", "name": "M", "engine": "pdf-form", "html": "<h1>Hi</h1>"},
        format="json",
    )
    assert html.status_code == 400
    assert "data URI" in html.json()["error"]


def test_a_new_pdf_brings_its_own_fields(api):
    _create(api, membership_form())
    changed = api.patch(f"{URL}/membership", {"html": form_source(plain_pdf())}, format="json")
    assert changed.status_code == 400  # the new PDF has no fields: refused, nothing saved
    assert api.get(f"{URL}/membership").json()["schema"]["properties"]["plan"]["enum"] == [
        "basic",
        "pro",
    ]


def test_the_preview_of_a_form_is_its_first_page_filled_with_the_sample_data(api):
    _create(api, membership_form())
    preview = api.post(f"{URL}/membership/preview", {}, format="json")
    assert preview.status_code == 200, preview.content[:300]
    assert preview["Content-Type"] == "image/png"
    assert preview.content.startswith(b"\x89PNG")
    # The sample data's values are drawn: the picture differs from the blank form's.
    blank = {"full_name": "", "returning": False, "plan": "basic", "country": "France"}
    empty = api.post(f"{URL}/membership/preview", {"data": blank}, format="json")
    assert empty.status_code == 200
    assert empty.content != preview.content


def test_a_pdf_without_fields_is_refused_even_with_a_schema_of_its_own(api):
    body = {"slug": "m", "name": "M", "engine": "pdf-form", "html": form_source(plain_pdf())}
    refused = api.post(URL, body | {"schema": {"type": "object"}}, format="json")
    assert refused.status_code == 400
    assert "no form fields" in refused.json()["error"]
