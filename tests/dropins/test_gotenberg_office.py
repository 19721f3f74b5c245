"""Gotenberg's LibreOffice route in our terms (dropins.gotenberg_office): its form fields
as a conversion's options, the ones we refuse, and webhook mode's 204 with the webhook
stored beside the queued job."""

from __future__ import annotations

import base64

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from dropins.gotenberg_office import office_form_options
from jobs.models import PdfJob, ResultWebhook
from rendering.errors import InvalidInput
from rendering.office import office_files
from tests.office_files import docx, zipped

ROUTE = "/gotenberg/forms/libreoffice/convert"


def test_the_forms_fields_become_a_conversions_options():
    options = office_form_options(
        {
            "landscape": "true",
            "nativePageRanges": "1-2, 4",
            "pdfa": "PDF/A-3b",
            "metadata": '{"Title": "Annual", "Author": "Ada"}',
            "merge": "true",
        }
    )
    assert options == {
        "orientation": "landscape",
        "page_ranges": "1-2, 4",
        "title": "Annual",
        "author": "Ada",
        "pdf": {"profile": "pdf/a-3b"},
    }
    assert office_form_options({"pdfua": "true"}) == {"pdf": {"profile": "pdf/ua-1"}}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"pdfa": "PDF/A-1b"}, "use PDF/A-2b or PDF/A-3b"),
        ({"pdfa": "PDF/A-2b", "pdfua": "true"}, "not both"),
        ({"password": "secret"}, "password=secret is not supported"),
        ({"landscape": "maybe"}, "landscape must be true or false"),
    ],
)
def test_what_we_cannot_do_is_refused_by_name(fields, message):
    with pytest.raises(InvalidInput, match=message):
        office_form_options(fields)


def test_the_route_stays_where_gotenbergs_clients_look():
    assert reverse("gotenberg:libreoffice") == ROUTE


def _gotenberg(api_key: str) -> APIClient:
    """As Gotenberg's clients authenticate: the key as basic auth's user name."""
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION="Basic " + base64.b64encode(f"{api_key}:".encode()).decode()
    )
    return client


HOOKS = {
    "HTTP_GOTENBERG_WEBHOOK_URL": "https://hooks.example.com/done",
    "HTTP_GOTENBERG_WEBHOOK_ERROR_URL": "https://hooks.example.com/error",
}


@pytest.mark.django_db
def test_webhook_mode_answers_204_and_queues_the_files_by_name(api_key):
    answer = _gotenberg(api_key).post(
        ROUTE,
        {
            "b.txt": SimpleUploadedFile("b.txt", b"second"),
            "a.docx": SimpleUploadedFile("a.docx", docx("first")),
            "merge": "true",
        },
        format="multipart",
        HTTP_GOTENBERG_TRACE="t-1",
        **HOOKS,
    )
    assert answer.status_code == 204, answer.content
    assert answer["Gotenberg-Trace"] == "t-1"
    job = PdfJob.objects.get(job_id=answer["X-Job-Id"])
    assert job.engine == "office"
    assert job.callback_url == "https://hooks.example.com/done"
    assert [name for name, _ in office_files(job.html_template)] == ["a.docx", "b.txt"]
    webhook = ResultWebhook.objects.get(job=job)
    assert (webhook.error_url, webhook.trace) == ("https://hooks.example.com/error", "t-1")


@pytest.mark.django_db
def test_a_zip_bomb_is_refused_before_a_job_exists(api_key):
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key)
    bomb = zipped({"word/document.xml": "0" * 30_000_000})
    answer = client.post(
        ROUTE, {"files": SimpleUploadedFile("bomb.docx", bomb)}, format="multipart"
    )
    assert answer.status_code == 400
    assert "zip bomb" in answer.json()["error"]
    assert not PdfJob.objects.exists()


@pytest.mark.django_db
def test_the_same_idempotency_key_answers_the_same_job(api_key):
    client = _gotenberg(api_key)

    def send(text: str) -> object:
        return client.post(
            ROUTE,
            {"files": SimpleUploadedFile("a.txt", text.encode())},
            format="multipart",
            HTTP_IDEMPOTENCY_KEY="office-1",
            **HOOKS,
        )

    first, again = send("same"), send("same")
    assert (first.status_code, again.status_code) == (204, 204)
    assert first["X-Job-Id"] == again["X-Job-Id"]
    assert PdfJob.objects.get().idempotency_key == "office-1"
    assert send("different").status_code == 422  # the key, reused for another request


@pytest.mark.django_db
def test_several_files_without_merge_in_webhook_mode_are_refused(api_key):
    answer = _gotenberg(api_key).post(
        ROUTE,
        {
            "a.txt": SimpleUploadedFile("a.txt", b"first"),
            "b.txt": SimpleUploadedFile("b.txt", b"second"),
        },
        format="multipart",
        **HOOKS,
    )
    assert answer.status_code == 400
    assert "send merge=true, or one file per request" in answer.json()["error"]
    assert not PdfJob.objects.exists()
