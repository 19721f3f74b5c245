"""A signed Factur-X e-invoice made by a real Celery worker: certificate uploaded over
HTTP, the sample submitted with options.pdf and a sign step, the PDF downloaded and read
back (attachment, PDF/A-3 XMP, signature validated by pyHanko)."""

from __future__ import annotations

import io

import httpx
import pikepdf
import pytest
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext

from reports.samples import sample_files, samples_dir, template_sync_samples
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.e2e.conftest import wait_for_status
from tests.tsa_server import TSA_NAME, timestamp_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]


def test_a_signed_e_invoice_is_made_by_the_worker_and_reads_back(http):
    template_sync_samples()
    uploaded = http.post(
        "/api/v1/signing-certificates",
        data={"name": "Invoices", "password": "p12-pass"},
        files={"pkcs12": ("studio.p12", make_pkcs12(common_name="Invoice Desk"))},
    )
    assert uploaded.status_code == 201, uploaded.text
    xml = (samples_dir() / "e-invoice.cii.xml").read_text(encoding="utf-8")
    submitted = http.post(
        "/api/v1/generate-pdf-async",
        json={
            "template": "e-invoice",
            "data": sample_files("e-invoice")[2],
            "options": {
                "pdf": {
                    "e_invoice": {"xml": xml, "profile": "en16931"},
                    "metadata": {"title": "Invoice INV-2026-0042", "lang": "en"},
                }
            },
            "steps": [{"type": "sign", "certificate": uploaded.json()["id"], "visible": True}],
        },
    )
    assert submitted.status_code == 202, submitted.text
    job = wait_for_status(
        http, submitted.json()["status_url"], until={"completed", "failed"}, timeout=120
    )
    assert job["status"] == "completed", job
    assert job["compliance"]["profile"] == "pdf/a-3b"
    assert job["compliance"]["signature"] == {
        "valid": True,
        "signer": "Organization: Example, Common Name: Invoice Desk",
    }
    content = httpx.get(job["pdf_url"], timeout=30).content
    with pikepdf.open(io.BytesIO(content)) as pdf:
        assert pdf.attachments["factur-x.xml"].get_file().read_bytes() == xml.encode("utf-8")
        assert pdf.open_metadata()["pdfaid:part"] == "3"
    (embedded,) = PdfFileReader(io.BytesIO(content)).embedded_signatures
    status = validate_pdf_signature(embedded, ValidationContext(trust_roots=[embedded.signer_cert]))
    assert status.intact
    assert status.valid


def test_a_templates_profile_and_encrypt_step_run_in_the_worker(http):
    """The template declares options.pdf and an encrypt step; the submit sends only data.
    (PDF/A forbids encryption, so the profile is pdf/ua-1; pdf/a-2b with encrypt is a 400.)"""
    template = {
        "slug": "sealed-payslip",
        "name": "Sealed payslip",
        "renderer": "weasyprint",
        "html": "<h1>Payslip {{who}}</h1>",
        "steps": [{"type": "encrypt", "user_password": "open-me", "owner_password": "change-me"}],
    }
    refused = http.post(
        "/api/v1/templates", json=template | {"options": {"pdf": {"profile": "pdf/a-2b"}}}
    )
    assert refused.status_code == 400
    assert "pdf/a-2b forbids encryption" in refused.json()["error"]
    ua = {"pdf": {"profile": "pdf/ua-1", "metadata": {"title": "Payslip", "lang": "en"}}}
    created = http.post("/api/v1/templates", json=template | {"options": ua})
    assert created.status_code == 201, created.text
    assert "open-me" not in created.text
    submitted = http.post(
        "/api/v1/generate-pdf-async", json={"template": "sealed-payslip", "data": {"who": "Ada"}}
    )
    assert submitted.status_code == 202, submitted.text
    job = wait_for_status(
        http, submitted.json()["status_url"], until={"completed", "failed"}, timeout=120
    )
    assert job["status"] == "completed", job
    assert job["compliance"]["profile"] == "pdf/ua-1"
    assert all(check["passed"] for check in job["compliance"]["checks"]), job["compliance"]
    assert "open-me" not in str(job)
    assert "change-me" not in str(job)
    content = httpx.get(job["pdf_url"], timeout=30).content
    with pytest.raises(pikepdf.PasswordError):
        pikepdf.open(io.BytesIO(content))
    with pikepdf.open(io.BytesIO(content), password="open-me") as pdf:
        assert pdf.encryption.R == 6  # AES-256
        assert pdf.open_metadata()["pdfuaid:part"] == "1"
        assert pdf.Root.get("/StructTreeRoot") is not None


def test_a_timestamped_signature_is_made_by_the_worker(http):
    """A sign step with a timestamp_url: the worker asks the loopback TSA, the PDF's
    signature carries the token, and the job's compliance reports it."""
    uploaded = http.post(
        "/api/v1/signing-certificates",
        data={"name": "Stamped", "password": "p12-pass"},
        files={"pkcs12": ("stamped.p12", make_pkcs12(common_name="Stamp Desk"))},
    )
    assert uploaded.status_code == 201, uploaded.text
    with timestamp_server() as tsa:
        submitted = http.post(
            "/api/v1/generate-pdf-async",
            json={
                "html_template": "<p>Timestamped</p>",
                "steps": [
                    {"type": "sign", "certificate": uploaded.json()["id"], "timestamp_url": tsa.url}
                ],
            },
        )
        assert submitted.status_code == 202, submitted.text
        job = wait_for_status(
            http, submitted.json()["status_url"], until={"completed", "failed"}, timeout=120
        )
        tsa_cert = tsa.stamper.tsa_cert
    assert job["status"] == "completed", job
    stamp = job["compliance"]["signature"]["timestamp"]
    assert stamp["valid"] is True
    assert stamp["authority"] == f"Common Name: {TSA_NAME}"
    content = httpx.get(job["pdf_url"], timeout=30).content
    (embedded,) = PdfFileReader(io.BytesIO(content)).embedded_signatures
    status = validate_pdf_signature(
        embedded,
        ValidationContext(trust_roots=[embedded.signer_cert]),
        ts_validation_context=ValidationContext(trust_roots=[tsa_cert]),
    )
    assert status.timestamp_validity is not None
    assert status.timestamp_validity.trusted
    assert status.timestamp_validity.timestamp.isoformat() == stamp["time"]
