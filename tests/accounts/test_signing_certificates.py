"""POST /api/v1/signing-certificates and the sign step: a PKCS#12 stored sealed, never
returned; a wrong password or an expired certificate a 400; the signature validated back."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext
from rest_framework.test import APIClient

from accounts.models import SigningCertificate
from accounts.services import api_key_create
from accounts.signing_certificates import signing_certificate_unseal
from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.factories import UserFactory
from workspaces.models import AuditEntry
from workspaces.services import workspace_create

pytestmark = pytest.mark.django_db
UPLOAD = "/api/v1/signing-certificates"


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    # The heartbeat thread's own connection cannot see this test's uncommitted job row and
    # would call the attempt lost if a render on a loaded machine ran past its first beat.
    settings.PDF_HEARTBEAT_SECONDS = 600


def _upload(api, data: bytes, password: str = "p12-pass", name: str = "Studio"):  # noqa: S107
    return api.post(
        UPLOAD,
        {"name": name, "pkcs12": SimpleUploadedFile("studio.p12", data), "password": password},
        format="multipart",
    )


def test_an_upload_answers_id_subject_and_expiry_and_stores_the_file_sealed(api):
    data = make_pkcs12()
    response = _upload(api, data)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == {"id", "name", "subject", "not_after", "created_at"}
    assert body["subject"] == "O=Example,CN=Example Studio"
    stored = SigningCertificate.objects.get(public_id=body["id"])
    assert data not in bytes(stored.sealed_pkcs12)
    assert b"p12-pass" not in bytes(stored.sealed_password)
    assert signing_certificate_unseal(stored) == (data, "p12-pass")


def test_a_wrong_password_is_a_400_that_echoes_nothing(api):
    response = _upload(api, make_pkcs12(), password="guess-wrong")
    assert response.status_code == 400
    assert "the password is wrong" in response.json()["error"]
    assert "guess-wrong" not in response.content.decode()
    assert not SigningCertificate.objects.exists()


def test_an_expired_certificate_is_a_400(api):
    response = _upload(api, make_pkcs12(days=-2))
    assert response.status_code == 400
    assert response.json()["code"] == "certificate_expired"


def test_a_file_that_is_not_pkcs12_is_a_400(api):
    response = _upload(api, b"%PDF-1.7 not a certificate")
    assert response.status_code == 400
    assert "not a PKCS#12" in response.json()["error"]


def test_signing_with_another_tenants_certificate_is_a_404(api):
    stranger = UserFactory(username="stranger")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=stranger, name="s")[1])
    theirs = _upload(client, make_pkcs12()).json()["id"]
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = api.post(
            "/api/v1/generate-pdf-async",
            {"html_template": "<p>x</p>", "steps": [{"type": "sign", "certificate": theirs}]},
            format="json",
        )
    assert response.status_code == 404
    assert not PdfJob.objects.exists()


@pytest.mark.parametrize("visible", [True, False])
def test_a_signed_job_validates_with_pyhanko_and_reports_its_signer(api, visible):
    certificate = _upload(api, make_pkcs12(common_name="Invoice Signer")).json()["id"]
    with mock.patch("jobs.dispatch.job_enqueue"):
        submitted = api.post(
            "/api/v1/generate-pdf-async",
            {
                "html_template": "<p>Signed body</p>",
                "renderer": "weasyprint",
                "options": {"pdf": {"profile": "pdf/a-3b"}},
                "steps": [{"type": "sign", "certificate": certificate, "visible": visible}],
            },
            format="json",
        )
    assert submitted.status_code == 202, submitted.json()
    job_id = submitted.json()["job_id"]
    done = execution.job_execute(job_id=job_id)
    assert done.status == JobStatus.COMPLETED, done.error
    content = storages["reports"].open(done.pdf_file).read()
    reader = PdfFileReader(io.BytesIO(content))
    (embedded,) = reader.embedded_signatures
    assert embedded.sig_object["/SubFilter"] == "/ETSI.CAdES.detached"  # PAdES
    status = validate_pdf_signature(embedded, ValidationContext(trust_roots=[embedded.signer_cert]))
    assert status.intact
    assert status.valid
    widget = embedded.sig_field["/Rect"] if "/Rect" in embedded.sig_field else [0, 0, 0, 0]
    assert (float(widget[2]) - float(widget[0]) > 0) == visible
    compliance = api.get(f"/api/v1/jobs/{job_id}").json()["compliance"]
    assert compliance["signature"] == {
        "valid": True,
        "signer": "Organization: Example, Common Name: Invoice Signer",
    }
    names = [check["name"] for check in compliance["checks"]]
    assert "pdfa_identification" in names
    assert names[-1] == "signature"


def test_a_certificate_belongs_to_its_workspace_not_to_its_uploader(user):
    team = workspace_create(name="Signers", owner=user)
    owner_key = APIClient()
    owner_key.credentials(HTTP_X_API_KEY=api_key_create(user=user, workspace=team, role="owner")[1])
    certificate = _upload(owner_key, make_pkcs12()).json()["id"]
    editor = APIClient()  # a teammate's key in the same workspace may sign with it
    editor.credentials(HTTP_X_API_KEY=api_key_create(user=user, workspace=team, role="editor")[1])
    requester = APIClient()  # in its own steps only with certificate.use (issue 42)
    requester.credentials(
        HTTP_X_API_KEY=api_key_create(user=user, workspace=team, role="requester")[1]
    )
    personal = APIClient()  # the uploader's own personal workspace may not
    personal.credentials(HTTP_X_API_KEY=api_key_create(user=user, name="mine")[1])
    sign = {"html_template": "<p>x</p>", "steps": [{"type": "sign", "certificate": certificate}]}
    with mock.patch("jobs.dispatch.job_enqueue"):
        assert editor.post("/api/v1/generate-pdf-async", sign, format="json").status_code == 202
        assert requester.post("/api/v1/generate-pdf-async", sign, format="json").status_code == 403
        refused = personal.post("/api/v1/generate-pdf-async", sign, format="json")
        template = personal.post(
            "/api/v1/templates",
            {"slug": "s", "name": "S", "html": "<p>x</p>", "steps": sign["steps"]},
            format="json",
        )
    assert refused.status_code == 404
    assert f"No signing certificate {certificate} was found." in refused.json()["error"]
    assert template.status_code == 404  # checked at template save, as at submit
    assert PdfJob.objects.filter(workspace=team).count() == 1


def test_certificates_are_listed_and_revoked_within_the_workspace_only(api):
    """Issue 42, Low: certificates could be neither listed nor revoked by API."""
    mine = _upload(api, make_pkcs12(), name="Mine").json()["id"]
    stranger = UserFactory(username="stranger")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=stranger, name="s")[1])
    theirs = _upload(client, make_pkcs12(), name="Theirs").json()["id"]
    listed = api.get(UPLOAD)
    assert listed.status_code == 200
    assert [c["id"] for c in listed.json()] == [mine]
    assert "sealed_pkcs12" not in listed.json()[0]
    # Another workspace's certificate is a 404 like a missing one, and stays.
    assert api.delete(f"{UPLOAD}/{theirs}").status_code == 404
    assert api.delete(f"{UPLOAD}/not-a-uuid").status_code == 404
    assert SigningCertificate.objects.filter(public_id=theirs).exists()

    assert api.delete(f"{UPLOAD}/{mine}").status_code == 204
    assert not SigningCertificate.objects.filter(public_id=mine).exists()  # sealed key gone
    assert api.get(UPLOAD).json() == []
    entry = AuditEntry.objects.get(action="certificate.revoked")
    assert (entry.target_id, entry.target) == (mine, "Mine")
    # A sign step naming it is refused from now on.
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = api.post(
            "/api/v1/generate-pdf-async",
            {"html_template": "<p>x</p>", "steps": [{"type": "sign", "certificate": mine}]},
            format="json",
        )
    assert response.status_code == 404
    assert not PdfJob.objects.exists()
