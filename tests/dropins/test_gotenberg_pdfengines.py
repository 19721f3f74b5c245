"""Gotenberg's PDF-engine routes (dropins.gotenberg_pdfengines) as their callers see them
before a worker: webhook mode's 204 with the webhook stored beside the queued job, what it
refuses, and Idempotency-Key (one job a key; a key and its part's number for several)."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from dropins.gotenberg_pdfengines import _layer_check, part_key, unique_names
from jobs.models import PdfJob, ResultWebhook
from rendering.errors import InvalidInput
from rendering.pdf_files import pdf_files
from tests.dropins.test_gotenberg_office import HOOKS, _gotenberg
from tests.rendering.form_pdfs import pages_pdf

ROTATE = "/gotenberg/forms/pdfengines/rotate"


@functools.cache
def _pdf(name: str) -> bytes:
    """The same bytes for a name each time (a PDF made anew carries a new date)."""
    return pages_pdf(2, title=name)


def _rotate(client, *names: str, **headers: str):
    return client.post(
        ROTATE,
        {
            "rotateAngle": "90",
            **{name: SimpleUploadedFile(name, _pdf(name)) for name in names},
        },
        format="multipart",
        **headers,
    )


@pytest.mark.django_db
def test_webhook_mode_answers_204_and_the_pdf_goes_to_the_webhook(api_key):
    answer = _rotate(
        _gotenberg(api_key),
        "a.pdf",
        HTTP_GOTENBERG_TRACE="t-9",
        HTTP_GOTENBERG_WEBHOOK_METHOD="PUT",
        **HOOKS,
    )
    assert answer.status_code == 204, answer.content
    assert answer["Gotenberg-Trace"] == "t-9"
    job = PdfJob.objects.get(job_id=answer["X-Job-Id"])
    assert job.callback_url == "https://hooks.example.com/done"
    assert [step["type"] for step in job.steps] == ["rotate"]
    assert len(pdf_files(job.html_template)) == 1
    webhook = ResultWebhook.objects.get(job=job)
    assert (webhook.error_url, webhook.method, webhook.trace) == (
        "https://hooks.example.com/error",
        "PUT",
        "t-9",
    )


@pytest.mark.django_db
def test_webhook_mode_is_refused_where_the_answer_is_not_one_pdf(api_key):
    client = _gotenberg(api_key)
    several = _rotate(client, "a.pdf", "b.pdf", **HOOKS)
    assert several.status_code == 400
    assert "this request makes 2 files" in several.json()["error"]
    read = client.post(
        "/gotenberg/forms/pdfengines/metadata/read",
        {"a.pdf": SimpleUploadedFile("a.pdf", pages_pdf(1))},
        format="multipart",
        **HOOKS,
    )
    assert read.status_code == 400
    assert "no webhook mode" in read.json()["error"]
    assert not PdfJob.objects.exists()


@pytest.mark.django_db
def test_the_same_idempotency_key_answers_the_same_job(api_key):
    client = _gotenberg(api_key)
    first = _rotate(client, "a.pdf", HTTP_IDEMPOTENCY_KEY="rot-1", **HOOKS)
    again = _rotate(client, "a.pdf", HTTP_IDEMPOTENCY_KEY="rot-1", **HOOKS)
    assert (first.status_code, again.status_code) == (204, 204)
    assert first["X-Job-Id"] == again["X-Job-Id"]
    assert PdfJob.objects.get().idempotency_key == "rot-1"
    other = _rotate(client, "b.pdf", HTTP_IDEMPOTENCY_KEY="rot-1", **HOOKS)
    assert other.status_code == 422  # the key, reused for another request


def test_several_jobs_of_one_request_key_each_part():
    assert part_key("k", 0, 1) == "k"
    assert [part_key("k", n, 3) for n in range(3)] == ["k#1", "k#2", "k#3"]
    assert part_key("", 1, 3) == ""


def test_a_zips_entries_are_numbered_when_names_repeat():
    assert unique_names(["a.pdf", "b.pdf", "a.pdf", "a.pdf", "notes"]) == [
        "a.pdf",
        "b.pdf",
        "a (2).pdf",
        "a (3).pdf",
        "notes",
    ]
    assert unique_names(["x", "x"]) == ["x", "x (2)"]


@pytest.mark.parametrize("layer", ["stamp", "watermark"])
def test_a_stamp_or_watermark_needs_its_text_unless_it_is_a_file(layer):
    def check(**post: str) -> None:
        _layer_check(SimpleNamespace(POST=post), layer)

    check(**{f"{layer}Expression": "DRAFT"})
    check(**{f"{layer}Source": " pdf "})  # a file: no text needed
    for post in ({}, {f"{layer}Source": "text"}, {f"{layer}Expression": ""}):
        with pytest.raises(InvalidInput, match=f"^{layer}Expression is required: the {layer}'s"):
            check(**post)


@pytest.mark.django_db
def test_a_stamp_without_its_text_is_refused_before_any_job(api_key):
    answer = _gotenberg(api_key).post(
        "/gotenberg/forms/pdfengines/stamp",
        {"a.pdf": SimpleUploadedFile("a.pdf", _pdf("a.pdf"))},
        format="multipart",
    )
    assert answer.status_code == 400
    assert answer.json()["error"] == "stampExpression is required: the stamp's text."
    assert not PdfJob.objects.exists()
