"""A real government form as a pdf-form template: the IRS's W-9 (public domain, shipped in
tests/rendering/public_forms), a hybrid LiveCycle form with an XFA copy. Its 22 fields
become the schema, a job fills the name, the business and the tax classification's box,
and the PDF read back has them: as field values, and as page text once flattened."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from django.core.files.storage import storages
from pypdf import PdfReader

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution

pytestmark = pytest.mark.django_db
W9 = Path(__file__).parents[2] / "rendering" / "public_forms" / "fw9.pdf"
PAGE = "topmostSubform[0].Page1[0]."
DATA = {
    f"{PAGE}f1_1[0]": "Ada Lovelace",
    f"{PAGE}f1_2[0]": "Analytical Engines LLC",
    f"{PAGE}FederalClassification[0].c1_1[0]": True,
    f"{PAGE}Address[0].f1_7[0]": "12 Byron Street",
}


def _job(api, flatten: bool) -> bytes:
    submitted = api.post(
        "/api/v1/generate-pdf-async",
        {"template": "w9", "data": DATA, "options": {"flatten": flatten}},
        format="json",
    )
    assert submitted.status_code == 202, submitted.json()
    job = PdfJob.objects.get(job_id=submitted.json()["job_id"])
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED, done.error
    assert done.page_count == 6
    return storages["reports"].open(done.pdf_file).read()


def test_the_irs_w9_is_a_template_and_a_job_fills_it(api):
    created = api.post(
        "/api/v1/templates",
        {
            "slug": "w9",
            "name": "W-9",
            "engine": "pdf-form",
            "template_file": base64.b64encode(W9.read_bytes()).decode("ascii"),
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    properties = api.get("/api/v1/templates/w9").json()["schema"]["properties"]
    assert len(properties) == 22
    assert properties[f"{PAGE}FederalClassification[0].c1_1[0]"]["type"] == "boolean"

    fields = PdfReader(io.BytesIO(_job(api, flatten=False))).get_fields()
    assert fields[f"{PAGE}f1_1[0]"]["/V"] == "Ada Lovelace"
    assert fields[f"{PAGE}FederalClassification[0].c1_1[0]"]["/V"] == "/1"
    assert fields[f"{PAGE}FederalClassification[0].c1_1[1]"]["/V"] == "/Off"

    flat = _job(api, flatten=True)
    reader = PdfReader(io.BytesIO(flat))
    assert not reader.get_fields()
    text = reader.pages[0].extract_text()
    for value in ("Ada Lovelace", "Analytical Engines LLC", "12 Byron Street"):
        assert value in text
