"""A sign step's timestamp_url under the outbound rules (https, public addresses unless
PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS), checked at submit and at template save, and a job
signed with a real loopback TSA: its compliance reports the timestamp; a TSA answering
garbage fails the job permanently, an unreachable one leaves it to the retry."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.timestamping import timestamp_url_problem
from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from rendering.postprocess.timestamps import TimestampUnavailable
from tests.accounts.pkcs12_factory import make_pkcs12
from tests.tsa_server import TSA_NAME, timestamp_server

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _heartbeat_after_the_render(settings):
    settings.PDF_HEARTBEAT_SECONDS = 600  # as in test_signing_certificates


@pytest.fixture
def certificate(api) -> str:
    response = api.post(
        "/api/v1/signing-certificates",
        {"name": "S", "pkcs12": SimpleUploadedFile("s.p12", make_pkcs12()), "password": "p12-pass"},
        format="multipart",
    )
    assert response.status_code == 201, response.json()
    return response.json()["id"]


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://tsa.example.com/", "must be an https URL."),
        ("https://127.0.0.1/tsa", "host '127.0.0.1' is not a public address."),
        ("https://[::ffff:10.0.0.1]/tsa", "is not a public address."),
        ("https://tsa.localhost/", "is not a public address."),
        ("https://freetsa.org/tsr", None),  # a name: resolved and checked by the worker
    ],
)
def test_the_outbound_rules_refuse_http_and_private_addresses(url, problem):
    found = timestamp_url_problem(url, allow_private=False)
    assert (found is None) if problem is None else (problem in found)
    assert timestamp_url_problem(url, allow_private=True) is None


def _sign_step(certificate: str, url: str) -> list[dict]:
    return [{"type": "sign", "certificate": certificate, "timestamp_url": url}]


def test_a_private_timestamp_url_is_a_400_at_submit_and_at_template_save(
    api, certificate, settings
):
    settings.PDF_TIMESTAMP_ALLOW_PRIVATE_NETWORKS = False
    steps = _sign_step(certificate, "http://10.0.0.7/tsa")
    with mock.patch("jobs.dispatch.job_enqueue"):
        submitted = api.post(
            "/api/v1/generate-pdf-async",
            {"html_template": "<p>x</p>", "steps": steps},
            format="json",
        )
    assert submitted.status_code == 400
    assert submitted.json()["error"] == "steps[0]: sign.timestamp_url must be an https URL."
    saved = api.post(
        "/api/v1/templates",
        {"slug": "stamped", "name": "Stamped", "html": "<p>x</p>", "steps": steps},
        format="json",
    )
    assert saved.status_code == 400
    assert "steps[0]: sign.timestamp_url" in saved.json()["error"]
    assert not PdfJob.objects.exists()


def _run(api, certificate: str, url: str) -> tuple[str, object]:
    with mock.patch("jobs.dispatch.job_enqueue"):
        submitted = api.post(
            "/api/v1/generate-pdf-async",
            {"html_template": "<p>Stamped</p>", "steps": _sign_step(certificate, url)},
            format="json",
        )
    assert submitted.status_code == 202, submitted.json()
    job_id = submitted.json()["job_id"]
    return job_id, execution.job_execute(job_id=job_id)


def test_a_timestamped_job_reports_the_timestamp_in_its_compliance(api, certificate):
    with timestamp_server() as tsa:
        job_id, done = _run(api, certificate, tsa.url)
    assert done.status == JobStatus.COMPLETED, done.error
    signature = api.get(f"/api/v1/jobs/{job_id}").json()["compliance"]["signature"]
    assert signature["valid"] is True
    assert signature["timestamp"]["valid"] is True
    assert signature["timestamp"]["authority"] == f"Common Name: {TSA_NAME}"
    assert signature["timestamp"]["time"].startswith(str(done.created_at.year))


def test_a_tsa_answering_garbage_fails_the_job_permanently(api, certificate):
    with timestamp_server() as tsa:
        tsa.answer = ("application/timestamp-reply", b"\x00not asn.1")
        _, failed = _run(api, certificate, tsa.url)
    assert failed.status == JobStatus.FAILED
    assert failed.error_code == "timestamp_failed"
    assert "not an RFC 3161 timestamp reply" in failed.error


def test_an_unreachable_tsa_leaves_the_job_to_the_retry(api, certificate):
    with timestamp_server() as gone:
        url = gone.url
    with pytest.raises(TimestampUnavailable):  # not a RenderError: the task retries
        _run(api, certificate, url)
    assert PdfJob.objects.get().status == JobStatus.PROCESSING
