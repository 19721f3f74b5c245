"""POST /api/v1/convert: office files become one queued job of the office engine, answered
like a submit; files we do not convert, or hostile ones, are a 400 before any worker."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from jobs.models import PdfJob
from rendering.office import office_files
from tests.office_files import docx, zipped
from tests.rendering.docx_files import INVOICE_DATA, invoice_docx

pytestmark = pytest.mark.django_db
CONVERT = "/api/v1/convert"


def _upload(name: str, content: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


def test_convert_answers_202_and_queues_the_files_in_order(api, user):
    response = api.post(
        CONVERT,
        {
            "file": [_upload("letter.docx", docx("Hello")), _upload("notes.md", b"# Notes")],
            "page_ranges": "1-2",
            "landscape": "true",
            "profile": "pdf/a-2b",
            "options": json.dumps({"title": "Bundle"}),
        },
        format="multipart",
    )
    assert response.status_code == 202, response.content
    body = response.json()
    assert set(body) == {"job_id", "status", "status_url"}
    assert response["Location"] == body["status_url"]
    job = PdfJob.objects.get(job_id=body["job_id"])
    assert (job.owner, job.engine, job.status) == (user, "office", "queued")
    assert [name for name, _ in office_files(job.html_template)] == ["letter.docx", "notes.md"]
    assert job.options["filename"] == "letter.pdf"
    assert job.options["orientation"] == "landscape"
    assert job.options["page_ranges"] == "1-2"
    assert job.options["pdf"]["profile"] == "pdf/a-2b"
    assert job.options["title"] == "Bundle"


def test_an_unknown_extension_is_a_400_naming_the_accepted_ones(api):
    response = api.post(CONVERT, {"file": [_upload("run.exe", b"MZ")]}, format="multipart")
    assert response.status_code == 400
    assert "docx, xlsx, pptx, odt, ods, odp, rtf, txt, html, md" in response.json()["error"]
    assert not PdfJob.objects.exists()


def test_a_zip_bomb_is_a_400_and_queues_nothing(api):
    bomb = zipped({"word/document.xml": "0" * 30_000_000})
    response = api.post(CONVERT, {"file": [_upload("bomb.docx", bomb)]}, format="multipart")
    assert response.status_code == 400
    assert "zip bomb" in response.json()["error"]
    assert not PdfJob.objects.exists()


def test_a_profile_libreoffice_does_not_write_is_refused(api):
    response = api.post(
        CONVERT,
        {"file": [_upload("a.txt", b"x")], "options": json.dumps({"pdf": {"profile": "pdf/a-3a"}})},
        format="multipart",
    )
    assert response.status_code == 400
    assert "pdf/a-2b, pdf/a-3b, pdf/ua-1" in response.json()["error"]


def test_the_same_idempotency_key_answers_the_same_job(api):
    def send():
        return api.post(
            CONVERT,
            {"file": [_upload("a.txt", b"same")]},
            format="multipart",
            HTTP_IDEMPOTENCY_KEY="convert-1",
        )

    first, second = send(), send()
    assert first.json()["job_id"] == second.json()["job_id"]
    assert second["Idempotent-Replayed"] == "true"
    assert PdfJob.objects.count() == 1


def test_no_file_is_a_400(api):
    response = api.post(CONVERT, {"page_ranges": "1"}, format="multipart")
    assert response.status_code == 400


def test_the_schema_describes_convert(api):
    schema = api.get("/api/v1/schema", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/v1/convert"]["post"]
    assert operation["operationId"] == "job_convert"
    assert "multipart/form-data" in operation["requestBody"]["content"]


def test_page_ranges_on_a_template_job_is_a_400_not_silently_ignored(api):
    response = api.post(
        "/api/v1/generate-pdf-async",
        {"html_template": "<p>x</p>", "data": {}, "options": {"page_ranges": "1"}},
        format="json",
    )
    assert response.status_code == 400
    assert "office conversions" in response.json()["error"]


def test_a_conversion_and_a_word_template_show_libreoffice_as_their_renderer(api):
    converted = api.post(CONVERT, {"file": [_upload("a.docx", docx("Hi"))]}, format="multipart")
    word = api.post(
        "/api/v1/generate-pdf-async",
        {
            "engine": "docx",
            "template_file": base64.b64encode(invoice_docx()).decode("ascii"),
            "data": INVOICE_DATA,
        },
        format="json",
    )
    page = api.post("/api/v1/generate-pdf-async", {"html_template": "<p>x</p>"}, format="json")
    shown = {
        name: api.get(f"/api/v1/jobs/{answer.json()['job_id']}").json()["renderer"]
        for name, answer in (("convert", converted), ("docx", word), ("html", page))
    }
    assert shown == {"convert": "libreoffice", "docx": "libreoffice", "html": "xhtml2pdf"}
    # The column keeps its default (a new choice there would take a migration).
    assert PdfJob.objects.get(job_id=converted.json()["job_id"]).renderer == "xhtml2pdf"
    # LibreOffice is what makes those jobs' PDFs, not a renderer a submit can choose.
    chosen = api.post(
        "/api/v1/generate-pdf-async",
        {"html_template": "<p>x</p>", "renderer": "libreoffice"},
        format="json",
    )
    assert chosen.status_code == 400
