"""The drop-in routes' shared parts, in process: the bounded wait and the credentials."""

from __future__ import annotations

import base64
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from accounts.services import api_key_create
from jobs.models import PdfJob
from tests.factories import PdfJobFactory, UserFactory


@pytest.fixture
def key(db, user):
    return api_key_create(user=user, name="adapters")[1]


def test_a_job_that_does_not_finish_in_time_is_a_504_naming_it(key, settings):
    # No worker runs here (and the job's publish waits for a commit that never comes).
    settings.ADAPTER_WAIT_SECONDS = 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic " + _b64(f"{key}:"))
    answer = client.post("/docraptor/docs", {"document_content": "<p>slow</p>"}, format="json")
    assert answer.status_code == 504
    body = answer.json()
    assert body["code"] == "still_rendering"
    assert PdfJob.objects.get(job_id=body["job_id"]).status == "queued"  # it goes on


def test_docraptor_user_credentials_work_as_a_field_or_a_query_parameter(key):
    client = APIClient()
    as_field = client.post(
        "/docraptor/docs",
        {"user_credentials": key, "doc": {"document_content": "<p>x</p>", "async": True}},
        format="json",
    )
    assert as_field.status_code == 200, as_field.content
    status_id = as_field.json()["status_id"]
    as_query = client.get(f"/docraptor/status/{status_id}?user_credentials={key}")
    assert as_query.json()["status"] == "queued"
    assert client.get(f"/docraptor/status/{status_id}").status_code == 401


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_an_upload_over_the_body_limit_is_a_413_before_it_is_parsed(key, settings):
    settings.REQUEST_MAX_BODY_BYTES = 64 * 1024
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic " + _b64(f"{key}:"))
    page = SimpleUploadedFile("index.html", b"<p>" + b"x" * 70 * 1024 + b"</p>")
    answer = client.post("/gotenberg/forms/chromium/convert/html", {"files": [page]})
    assert answer.status_code == 413
    assert answer.json()["code"] == "too_large"
    assert not PdfJob.objects.exists()


def test_another_workspaces_job_is_a_404_on_every_status_route(key):
    foreign = PdfJobFactory(owner=UserFactory(username="elsewhere"), status="completed")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic " + _b64(f"admin:{key}"))
    for path in (
        f"/docraptor/status/{foreign.job_id}",
        f"/docraptor/download/{foreign.job_id}",
        f"/jsreport/reports/{foreign.job_id}/status",
        f"/jsreport/reports/{foreign.job_id}/content",
    ):
        assert client.get(path).status_code == 404, path


def test_a_key_that_may_not_submit_is_refused_before_its_header_is_parsed(user):
    viewer_key = api_key_create(user=user, name="viewer", role="viewer")[1]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic " + _b64(f"{viewer_key}:"))
    heavy = "<style" * 8192
    template = {
        "content": "<p>x</p>",
        "recipe": "chrome-pdf",
        "chrome": {"displayHeaderFooter": True, "headerTemplate": heavy},
    }
    with mock.patch("dropins.jsreport.running_text") as parse:
        answer = client.post("/jsreport/api/report", {"template": template}, format="json")
    assert answer.status_code == 403, answer.content[:300]
    parse.assert_not_called()
    header = SimpleUploadedFile("header.html", heavy.encode())
    page = SimpleUploadedFile("index.html", b"<p>x</p>")
    with mock.patch("dropins.gotenberg.running_text") as parse:
        answer = client.post("/gotenberg/forms/chromium/convert/html", {"files": [page, header]})
    assert answer.status_code == 403, answer.content[:300]
    parse.assert_not_called()
    assert not PdfJob.objects.exists()
