"""options.pdf through the API and the worker: refused at submit when it cannot be
honoured, proven in the status JSON's compliance when it is, failed when it is not."""

from __future__ import annotations

import io
from unittest import mock

import pikepdf
import pytest
from django.core.files.storage import storages

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from tests.rendering.postprocess.conftest import sample_cii_xml

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    # The heartbeat thread's own connection cannot see this test's uncommitted job row and
    # would call the attempt lost if a render on a loaded machine ran past its first beat.
    settings.PDF_HEARTBEAT_SECONDS = 600


def _submit(api, options: dict, renderer: str = "weasyprint"):
    with mock.patch("jobs.dispatch.job_enqueue"):
        return api.post(
            SUBMIT,
            {
                "html_template": "<h1>{{t}}</h1>",
                "data": {"t": "Hi"},
                "renderer": renderer,
                "options": options,
            },
            format="json",
        )


def test_a_profile_the_renderer_cannot_honour_is_a_400_naming_weasyprint(api):
    response = _submit(api, {"pdf": {"profile": "pdf/a-2b"}}, renderer="xhtml2pdf")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "profile_unsupported"
    assert "The xhtml2pdf renderer cannot produce pdf/a-2b" in body["error"]
    assert "'weasyprint'" in body["error"]
    assert not PdfJob.objects.exists()


def test_an_e_invoice_failing_its_schema_is_a_422_and_nothing_is_queued(api):
    broken = sample_cii_xml().replace("<ram:TypeCode>380</ram:TypeCode>", "")
    response = _submit(api, {"pdf": {"e_invoice": {"xml": broken, "profile": "en16931"}}})
    assert response.status_code == 422
    assert response.json()["code"] == "e_invoice_invalid"
    assert "not valid against the official XML Schema Definition" in response.json()["error"]
    assert not PdfJob.objects.exists()


def test_an_unknown_profile_is_a_400_listing_those_offered(api):
    response = _submit(api, {"pdf": {"profile": "pdf/x-4"}})
    assert response.status_code == 400
    assert "pdf/a-2b, pdf/a-3b" in response.json()["error"]


def test_a_ua_job_completes_with_its_checks_in_the_status_json(api):
    response = _submit(
        api, {"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "Hi", "lang": "en"}}}
    )
    assert response.status_code == 202, response.json()
    job_id = response.json()["job_id"]
    done = execution.job_execute(job_id=job_id)
    assert done.status == JobStatus.COMPLETED
    with pikepdf.open(io.BytesIO(storages["reports"].open(done.pdf_file).read())) as pdf:
        assert "/StructTreeRoot" in pdf.Root
        assert str(pdf.Root.Lang) == "en"
    compliance = api.get(f"/api/v1/jobs/{job_id}").json()["compliance"]
    assert compliance["profile"] == "pdf/ua-1"
    assert compliance["signature"] is None
    checks = {check["name"]: check for check in compliance["checks"]}
    assert checks["structure_tree"]["passed"] is True
    assert checks["pdfua_identification"] == {
        "name": "pdfua_identification",
        "passed": True,
        "detail": "XMP pdfuaid:part=1",
    }


def test_a_job_without_options_pdf_has_null_compliance(api):
    response = _submit(api, {})
    job_id = response.json()["job_id"]
    execution.job_execute(job_id=job_id)
    assert api.get(f"/api/v1/jobs/{job_id}").json()["compliance"] is None


def test_a_failed_check_fails_the_job_permanently_with_its_reason(api):
    response = _submit(api, {"watermark": "DRAFT", "pdf": {"profile": "pdf/a-3b"}})
    job_id = response.json()["job_id"]
    failed = execution.job_execute(job_id=job_id)
    assert failed.status == JobStatus.FAILED
    assert failed.attempts == 1  # permanent: not retried
    status = api.get(f"/api/v1/jobs/{job_id}").json()
    assert status["error_code"] == "compliance_failed"
    assert "fonts_embedded: not embedded:" in status["error"]
    assert status["pdf_url"] is None
