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
