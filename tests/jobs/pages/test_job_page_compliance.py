"""The job page lists what the finished PDF was checked for."""

from __future__ import annotations

import pytest

from jobs.models import JobStatus
from tests.factories import PdfJobFactory

pytestmark = pytest.mark.django_db


def test_a_completed_job_page_lists_its_checks_and_signature(browser, user):
    compliance = {
        "profile": "pdf/a-3b",
        "checks": [
            {"name": "output_intent", "passed": True, "detail": "1 GTS_PDFA1 output intent(s)"},
            {"name": "metadata", "passed": False, "detail": "differs: Title"},
        ],
        "signature": {"valid": True, "signer": "Common Name: Studio"},
    }
    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, compliance=compliance)
    page = browser.get(f"/jobs/{job.job_id}/").content.decode()
    assert "Checks: pdf/a-3b" in page
    assert '<span aria-label="passed">✓</span> <strong>output_intent</strong>' in page
    assert '<span aria-label="failed">✗</span> <strong>metadata</strong>: differs: Title' in page
    assert "Signature valid, signed by Common Name: Studio" in page


def test_a_job_without_checks_shows_none(browser, user):
    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED)
    assert "data-compliance" not in browser.get(f"/jobs/{job.job_id}/").content.decode()


def test_a_timestamped_signature_shows_its_timestamp(browser, user):
    stamp = {"time": "2026-12-04T02:00:00+00:00", "authority": "Common Name: TSA", "valid": True}
    signature = {"valid": True, "signer": "Common Name: Studio", "timestamp": stamp}
    compliance = {"profile": None, "checks": [], "signature": signature}
    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, compliance=compliance)
    page = browser.get(f"/jobs/{job.job_id}/").content.decode()
    assert (
        "signed by Common Name: Studio; timestamp 2026-12-04T02:00:00+00:00 by Common Name: TSA"
        " (valid)"
    ) in page
