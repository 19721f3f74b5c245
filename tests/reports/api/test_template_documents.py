"""A template's job defaults: `options` (options.pdf profile) and `steps`, checked at save
as a submit checks them, used by its jobs unless the submit overrides, and an encrypt
step's passwords sealed at rest (template row, its versions, the job row, the status)."""

from __future__ import annotations

import io
import json
from unittest import mock

import pikepdf
import pytest
from django.core.files.storage import storages

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from reports.models import ReportTemplate, ReportTemplateVersion
from tests.conftest import pdf_text

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"
SUBMIT = "/api/v1/generate-pdf-async"
ENCRYPT = {"type": "encrypt", "user_password": "reader-pw", "owner_password": "owner-pw-1"}
UA = {"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "Payslip", "lang": "en"}}}


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    # The heartbeat's own connection cannot see this test's uncommitted job row.
    settings.PDF_HEARTBEAT_SECONDS = 600


def _create(api, **fields):
    body = {"slug": "payslip", "name": "Payslip", "html": "<h1>Payslip {{who}}</h1>"}
    return api.post(URL, body | fields, format="json")


def _submit(api, **extra):
    with mock.patch("jobs.dispatch.job_enqueue"):
        return api.post(
            SUBMIT, {"template": "payslip", "data": {"who": "Ada"}, **extra}, format="json"
        )


def _stored_text() -> str:
    rows = [
        *ReportTemplate.objects.values("options", "steps"),
        *ReportTemplateVersion.objects.values("options", "steps"),
        *PdfJob.objects.values("options", "steps"),
    ]
    return json.dumps(rows, default=str)


def test_a_profile_the_templates_renderer_cannot_produce_is_a_400_at_save(api):
    response = _create(api, renderer="xhtml2pdf", options={"pdf": {"profile": "pdf/a-2b"}})
    assert response.status_code == 400
    assert response.json()["code"] == "profile_unsupported"
    assert "use renderer 'weasyprint'" in response.json()["error"]
    assert not ReportTemplate.objects.filter(slug="payslip").exists()


def test_bad_steps_and_pdfa_with_encryption_are_a_400_at_save(api):
    bad = _create(api, steps=[{"type": "stamp", "text": ""}])
    assert bad.status_code == 400
    assert "steps[0]: stamp.text must be 1 to 40 characters." in bad.json()["error"]
    # PDF/A forbids encryption (ISO 19005): refused at save, exactly as at submit.
    pdfa = _create(
        api, renderer="weasyprint", options={"pdf": {"profile": "pdf/a-2b"}}, steps=[ENCRYPT]
    )
    assert pdfa.status_code == 400
    assert "pdf/a-2b forbids encryption" in pdfa.json()["error"]
    changed = _create(api, renderer="weasyprint")
    assert changed.status_code == 201
    patched = api.patch(f"{URL}/payslip", {"renderer": "chromium", "options": UA}, format="json")
    assert patched.status_code == 400
    assert patched.json()["code"] == "profile_unsupported"


def test_a_templates_profile_and_encrypt_step_make_its_jobs_pdf(api):
    created = _create(api, renderer="weasyprint", options=UA, steps=[ENCRYPT])
    assert created.status_code == 201, created.json()
    assert created.json()["options"] == UA
    assert created.json()["steps"] == [
        {
            "type": "encrypt",
            "user_password": "[sealed]",
            "owner_password": "[sealed]",
            "permissions": ["accessibility", "print"],
        }
    ]
    submitted = _submit(api, options={"filename": "ada.pdf"})
    assert submitted.status_code == 202, submitted.json()
    job = PdfJob.objects.get(job_id=submitted.json()["job_id"])
    assert job.options["pdf"]["profile"] == "pdf/ua-1"  # the template's, under the submit's
    assert job.options["filename"] == "ada.pdf"
    assert "reader-pw" not in _stored_text()
    assert "owner-pw-1" not in _stored_text()
    done = execution.job_execute(job_id=str(job.job_id))
    assert done.status == JobStatus.COMPLETED, done.error
    content = storages["reports"].open(done.pdf_file).read()
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(content))
    with pikepdf.open(io.BytesIO(content), password="reader-pw") as pdf:
        assert pdf.is_encrypted
        assert pdf.open_metadata()["pdfuaid:part"] == "1"
        plain = io.BytesIO()
        pdf.save(plain)
    assert "Payslip Ada" in pdf_text(plain.getvalue())[1]
    status = api.get(f"/api/v1/jobs/{job.job_id}").json()
    checks = {c["name"]: c["passed"] for c in status["compliance"]["checks"]}
    assert "encrypt" in checks
    assert "fonts_embedded" in checks
    assert all(checks.values()), status["compliance"]
    assert "reader-pw" not in json.dumps(status)
    assert "owner-pw-1" not in json.dumps(status)


def test_a_submits_steps_and_options_override_the_templates(api):
    optimize = {"type": "optimize"}
    assert _create(api, renderer="weasyprint", options=UA, steps=[optimize]).status_code == 201
    submitted = _submit(api, steps=[], options={"pdf": {"profile": "pdf/a-3b"}})
    assert submitted.status_code == 202, submitted.json()
    job = PdfJob.objects.get(job_id=submitted.json()["job_id"])
    assert job.steps == []
    assert job.options["pdf"] == {"profile": "pdf/a-3b"}


def test_a_submit_cannot_drop_a_templates_encrypt_step(api):
    assert _create(api, renderer="weasyprint", options=UA, steps=[ENCRYPT]).status_code == 201
    refused = _submit(api, steps=[])
    assert refused.status_code == 400
    assert "include encrypt, which a submit cannot drop or replace" in refused.json()["error"]


def test_an_unchanged_save_keeps_the_sealed_steps_and_makes_no_version(api):
    assert _create(api, steps=[ENCRYPT]).status_code == 201
    before = ReportTemplate.objects.get(slug="payslip").steps
    again = api.patch(f"{URL}/payslip", {"name": "Payslip (renamed)"}, format="json")
    assert again.status_code == 200
    assert again.json()["version"] == 1
    assert ReportTemplate.objects.get(slug="payslip").steps == before
    resealed = api.patch(f"{URL}/payslip", {"steps": [ENCRYPT]}, format="json")
    assert resealed.json()["version"] == 1


def test_a_get_then_patch_of_the_steps_keeps_the_sealed_passwords(api):
    """The read shows each password as "[sealed]"; sending that back keeps the stored one,
    so the round trip is lossless (and makes no version); a new password replaces it."""
    assert _create(api, renderer="weasyprint", options=UA, steps=[ENCRYPT]).status_code == 201
    sealed = ReportTemplate.objects.get(slug="payslip").steps
    read = api.get(f"{URL}/payslip").json()
    assert "reader-pw" not in json.dumps(read)
    round_trip = api.patch(f"{URL}/payslip", {"steps": read["steps"]}, format="json")
    assert round_trip.status_code == 200, round_trip.json()
    assert round_trip.json()["version"] == 1
    assert ReportTemplate.objects.get(slug="payslip").steps == sealed
    # One password changed, the other kept as shown: the job opens with both as meant.
    changed = [read["steps"][0] | {"user_password": "new-reader"}, *read["steps"][1:]]
    patched = api.patch(f"{URL}/payslip", {"steps": changed}, format="json")
    assert patched.json()["draft_version"] == 2  # a draft until published (the studio)
    assert api.post(f"{URL}/payslip/publish").json()["version"] == 2
    done = execution.job_execute(job_id=_submit(api).json()["job_id"])
    assert done.status == JobStatus.COMPLETED, done.error
    content = storages["reports"].open(done.pdf_file).read()
    with pikepdf.open(io.BytesIO(content), password="new-reader") as pdf:
        assert pdf.user_password_matched
    with pikepdf.open(io.BytesIO(content), password="owner-pw-1") as pdf:
        assert pdf.owner_password_matched  # the kept owner password


def test_the_sealed_placeholder_without_a_stored_password_is_a_400(api):
    placeholder = ENCRYPT | {"owner_password": "[sealed]"}
    created = _create(api, steps=[placeholder])
    assert created.status_code == 400
    assert "read back as '[sealed]'" in created.json()["error"]
    assert _create(api).status_code == 201
    submitted = _submit(api, steps=[placeholder])
    assert submitted.status_code == 400
