"""The shipped e-invoice sample: its template and its CII XML make a Factur-X PDF."""

from __future__ import annotations

import io
from unittest import mock

import pikepdf
import pytest
from django.core.files.storage import storages

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from reports.samples import sample_files, samples_dir, template_sync_samples
from tests.conftest import pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    # The heartbeat thread's own connection cannot see this test's uncommitted job row and
    # would call the attempt lost if a render on a loaded machine ran past its first beat.
    settings.PDF_HEARTBEAT_SECONDS = 600


def test_the_sample_template_with_its_xml_is_a_factur_x_pdf(api):
    template_sync_samples()
    xml = (samples_dir() / "e-invoice.cii.xml").read_text(encoding="utf-8")
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = api.post(
            "/api/v1/generate-pdf-async",
            {
                "template": "e-invoice",
                "data": sample_files("e-invoice")[2],
                "options": {
                    "pdf": {
                        "e_invoice": {"xml": xml, "profile": "en16931"},
                        "metadata": {"title": "Invoice INV-2026-0042", "lang": "en"},
                    }
                },
            },
            format="json",
        )
    assert response.status_code == 202, response.json()
    execution.job_execute(job_id=response.json()["job_id"])
    done = PdfJob.objects.get(job_id=response.json()["job_id"])
    assert done.status == JobStatus.COMPLETED, (done.status, done.error, done.stage)
    assert PdfJob.objects.get(pk=done.pk).renderer == "weasyprint"
    content = storages["reports"].open(done.pdf_file).read()
    text = pdf_text(content)[1]
    assert "INV-2026-0042" in text
    assert "1152.00" in text  # the same total as the XML's GrandTotalAmount
    with pikepdf.open(io.BytesIO(content)) as pdf:
        assert pdf.attachments["factur-x.xml"].get_file().read_bytes() == xml.encode("utf-8")
    assert all(check["passed"] for check in done.compliance["checks"])
