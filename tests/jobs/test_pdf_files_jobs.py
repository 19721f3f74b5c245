"""PDFs people already have through the normal API: an inline pdf-form job with no data
passes its PDFs through on the worker path, the new steps rework them, and a bad step is
a 400 naming it."""

from __future__ import annotations

import io

import pytest
from django.core.files.storage import storages
from pypdf import PdfReader

from jobs.models import JobStatus
from jobs.worker import execution
from rendering.pdf_files import pdf_files_source
from tests.rendering.form_pdfs import pages_pdf

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


def test_pdfs_pass_through_and_the_page_steps_rework_them(api):
    submitted = api.post(
        SUBMIT,
        {
            "engine": "pdf-form",
            "html_template": pdf_files_source([pages_pdf(3), pages_pdf(1)]),
            "data": {},
            "steps": [
                {"type": "split", "pages": "2-"},
                {"type": "rotate", "angle": 270, "pages": "1"},
                {"type": "metadata", "title": "Reworked", "author": "Ada"},
            ],
        },
        format="json",
    )
    assert submitted.status_code == 202, submitted.json()
    done = execution.job_execute(job_id=submitted.json()["job_id"])
    assert done.status == JobStatus.COMPLETED, done.error
    assert done.page_count == 3
    reader = PdfReader(io.BytesIO(storages["reports"].open(done.pdf_file).read()))
    assert [p.extract_text().strip() for p in reader.pages] == [
        "Page number 2",
        "Page number 3",
        "Page number 1",
    ]
    assert [p.rotation for p in reader.pages] == [270, 0, 0]
    assert (reader.metadata.title, reader.metadata.author) == ("Reworked", "Ada")
    names = [check["name"] for check in done.compliance["checks"]]
    assert names == ["split", "rotate", "metadata"]


def test_a_bad_page_step_is_a_400_naming_the_step_and_field(api):
    refused = api.post(
        SUBMIT,
        {
            "engine": "pdf-form",
            "html_template": pdf_files_source([pages_pdf(1)]),
            "data": {},
            "steps": [{"type": "rotate", "angle": 45}],
        },
        format="json",
    )
    assert refused.status_code == 400
    assert "steps[0]: rotate.angle must be 90, 180 or 270" in refused.json()["error"]


def test_a_source_that_is_not_pdf_data_is_a_400_at_submit(api):
    refused = api.post(
        SUBMIT,
        {"engine": "pdf-form", "html_template": "data:application/pdf;base64,aGVsbG8=", "data": {}},
        format="json",
    )
    assert refused.status_code == 400
    assert "not a PDF" in refused.json()["error"]
