"""The integrator API: the seed's shapes, scoping to the caller, and a 4xx for bad input."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from rest_framework.test import APIClient

from jobs.links import pdf_download_token
from jobs.models import JobStatus, PdfJob
from tests.factories import PdfJobFactory, ReportTemplateFactory

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


def test_submit_answers_202_with_job_id_status_url_and_location(api, user):
    response = api.post(
        SUBMIT,
        {"html_template": "<p>{{name}}</p>", "data": {"name": "A"}, "engine": "handlebars"},
        format="json",
    )
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"job_id", "status", "status_url"}
    assert body["status"] == "queued"
    assert body["status_url"] == f"http://testserver/api/v1/jobs/{body['job_id']}"
    assert response["Location"] == body["status_url"]
    assert PdfJob.objects.get(job_id=body["job_id"]).owner == user


def test_submit_by_sample_template_slug(api):
    from reports.samples import sample_files, template_sync_samples

    template_sync_samples()
    data = sample_files("invoice")[2]
    response = api.post(SUBMIT, {"template": "invoice", "data": data}, format="json")
    assert response.status_code == 202
    assert PdfJob.objects.get().template.slug == "invoice"


def test_status_has_every_seed_field(api, user):
    job = PdfJobFactory(owner=user)
    body = api.get(f"/api/v1/jobs/{job.job_id}").json()
    for field in (
        "job_id",
        "status",
        "progress",
        "pdf_url",
        "error",
        "attempts",
        "page_count",
        "created_at",
        "started_at",
        "completed_at",
    ):
        assert field in body
    assert body["pdf_url"] is None


def test_completed_job_has_a_signed_pdf_url_that_downloads(api, user):
    job = PdfJobFactory(
        owner=user, status=JobStatus.COMPLETED, pdf_file="done.pdf", options={"filename": "q3.pdf"}
    )
    storages["reports"].save("done.pdf", ContentFile(b"%PDF-1.4 fake"))
    pdf_url = api.get(f"/api/v1/jobs/{job.job_id}").json()["pdf_url"]
    assert "token=" in pdf_url
    anonymous = APIClient()
    response = anonymous.get(pdf_url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert 'filename="q3.pdf"' in response["Content-Disposition"]
    assert b"".join(response.streaming_content) == b"%PDF-1.4 fake"


def test_pdf_link_with_a_bad_or_foreign_token_is_404(user):
    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, pdf_file="done.pdf")
    other = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, pdf_file="done.pdf")
    client = APIClient()
    assert client.get(f"/api/v1/jobs/{job.job_id}/pdf?token=nope").status_code == 404
    token = pdf_download_token(other.job_id)
    assert client.get(f"/api/v1/jobs/{job.job_id}/pdf?token={token}").status_code == 404


def test_expired_pdf_link_is_404(user, settings):
    from unittest import mock

    job = PdfJobFactory(owner=user, status=JobStatus.COMPLETED, pdf_file="done.pdf")
    token = pdf_download_token(job.job_id)
    settings.PDF_URL_TTL_SECONDS = 60
    with mock.patch("django.core.signing.time.time", return_value=10**11):
        response = APIClient().get(f"/api/v1/jobs/{job.job_id}/pdf?token={token}")
    assert response.status_code == 404
    assert "expired" in response.json()["error"]


def test_no_key_is_401_and_bad_key_is_401():
    assert APIClient().post(SUBMIT, {}, format="json").status_code == 401
    client = APIClient()
    client.credentials(HTTP_X_API_KEY="rk_0000_nope")
    response = client.get("/api/v1/jobs")
    assert response.status_code == 401
    assert response.json()["error"] == "Invalid or revoked API key."


def test_a_bearer_header_is_told_to_use_x_api_key(api_key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}")
    response = client.get("/api/v1/jobs")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"
    assert "send the API key in the X-API-Key header" in response.json()["error"]
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api_key}", HTTP_X_API_KEY=api_key)
    assert client.get("/api/v1/jobs").status_code == 200  # X-API-Key wins when both are sent


def test_another_callers_job_is_404(api):
    foreign = PdfJobFactory()
    response = api.get(f"/api/v1/jobs/{foreign.job_id}")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_job_list_shows_only_my_jobs(api, user):
    mine = PdfJobFactory(owner=user)
    PdfJobFactory()
    body = api.get("/api/v1/jobs").json()
    assert [j["job_id"] for j in body["results"]] == [str(mine.job_id)]


def test_job_list_filters_by_status_and_refuses_an_unknown_one(api, user):
    done = PdfJobFactory(owner=user, status=JobStatus.COMPLETED)
    PdfJobFactory(owner=user)
    body = api.get("/api/v1/jobs", {"status": "completed"}).json()
    assert [j["job_id"] for j in body["results"]] == [str(done.job_id)]
    response = api.get("/api/v1/jobs", {"status": "complete"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_data"
    error = response.json()["error"]
    assert "'complete'" in error
    assert "queued, processing, completed, failed, cancelled" in error


def test_every_api_path_answers_with_or_without_a_trailing_slash(api, user):
    job = PdfJobFactory(owner=user)
    ReportTemplateFactory(owner=user, slug="mine", sample_data={"x": 1})
    for path in (
        "/api/v1/jobs",
        f"/api/v1/jobs/{job.job_id}",
        "/api/v1/templates",
        "/api/v1/templates/mine",
        "/api/v1/templates/mine/versions",
        "/api/v1/schema",
    ):
        bare, slashed = api.get(path), api.get(path + "/")
        assert bare.status_code == 200, path
        assert (slashed.status_code, slashed.content) == (200, bare.content), path
    # A POST to the slashed spelling is answered, not redirected (a redirect loses the body).
    for path in (SUBMIT, SUBMIT + "/"):
        response = api.post(path, {"html_template": "<p>hi</p>"}, format="json")
        assert response.status_code == 202, path
    cancel = api.post(f"/api/v1/jobs/{job.job_id}/cancel/")
    assert cancel.status_code == 200
    assert cancel.json()["status"] == "cancelled"


@pytest.mark.parametrize(
    ("payload", "status", "code", "fragment"),
    [
        ({"data": {}}, 400, "invalid_data", "exactly one of html_template"),
        ({"html_template": "<p/>", "template": "invoice"}, 400, "invalid_data", "exactly one of"),
        (
            {"html_template": "<p/>", "engine": "nunjucks"},
            400,
            "invalid_data",
            "Unknown engine 'nunjucks'; use one of: raw, handlebars, jinja2, liquid, mustache, "
            "ejs, pdf-form, docx, django.",
        ),
        ({"html_template": "a\n{% if x %}", "engine": "liquid"}, 400, "template_syntax", "line 2"),
        ({"html_template": "a\n{% for x %}", "engine": "django"}, 400, "template_syntax", "line 2"),
        (
            {"html_template": "a\n{{#a}}{{else}}", "engine": "mustache"},
            400,
            "template_syntax",
            "line 2",
        ),
        ({"html_template": "a\n<%= 1 +", "engine": "ejs"}, 400, "template_syntax", "line 2"),
        (
            {"html_template": "{% load cache %}", "engine": "django"},
            400,
            "template_syntax",
            "no library 'cache'",
        ),
        ({"template": "no-such-template"}, 400, "unknown_template", "No template with slug"),
        ({"html_template": "<p/>", "data": [1, 2]}, 400, "invalid_data", "must be a JSON object"),
        ({"html_template": "<p/>", "data": "text"}, 400, "invalid_data", "must be a JSON object"),
        ({"html_template": "<p>\n{{#if x}}\n</p>"}, 400, "template_syntax", "syntax error"),
        ({"html_template": "{% for %}", "engine": "jinja2"}, 400, "template_syntax", "line 1"),
        ({"html_template": "<p/>", "options": {"page_size": "B9"}}, 400, "invalid_data", "page_"),
        ({"html_template": "<p/>", "options": {"colour": 1}}, 400, "invalid_data", "option"),
        ({"html_template": "<p/>", "callback_url": "not a url"}, 400, "invalid_data", "callback"),
        (
            {"html_template": "<p/>", "engine": "jinja2", "helpers": "function a() {}"},
            400,
            "invalid_data",
            "helpers are JavaScript for handlebars templates",
        ),
    ],
)
def test_bad_submissions_are_4xx_with_a_message(api, payload, status, code, fragment):
    response = api.post(SUBMIT, payload, format="json")
    assert response.status_code == status, response.content
    assert fragment in response.json()["error"]
    assert response.json()["code"] == code
    assert not PdfJob.objects.exists()


def test_syntax_error_reports_its_line(api):
    response = api.post(SUBMIT, {"html_template": "ok\n\n{{#each a}}"}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "template_syntax"


def test_malformed_json_is_400(api):
    response = api.post(SUBMIT, data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert "JSON parse error" in response.json()["error"]
    assert response.json()["code"] == "invalid_data"


def test_body_that_is_not_an_object_is_400(api):
    response = api.post(SUBMIT, data="[1]", content_type="application/json")
    assert response.status_code == 400
    assert "JSON object" in response.json()["error"]


def test_oversized_template_is_413_in_mb(api, settings):
    settings.PDF_MAX_TEMPLATE_BYTES = 1024 * 1024
    response = api.post(SUBMIT, {"html_template": "x" * (1536 * 1024)}, format="json")
    assert response.status_code == 413
    assert response.json() == {
        "error": "html_template is 1.5 MB; the limit is 1 MB.",
        "code": "too_large",
    }


@pytest.mark.parametrize("job_id", ["not-a-uuid", "00000000-0000-0000-0000-000000000000"])
def test_unknown_job_id_is_404_json(api, job_id):
    response = api.get(f"/api/v1/jobs/{job_id}")
    assert response.status_code == 404
    assert "No job" in response.json()["error"]


def test_cancel_queued_job_and_conflict_on_finished(api, user):
    queued = PdfJobFactory(owner=user)
    done = PdfJobFactory(owner=user, status=JobStatus.COMPLETED)
    response = api.post(f"/api/v1/jobs/{queued.job_id}/cancel")
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    conflict = api.post(f"/api/v1/jobs/{done.job_id}/cancel")
    assert conflict.status_code == 409
    assert "already completed" in conflict.json()["error"]


def test_templates_of_other_users_are_invisible_but_builtins_are_shared(api, user):
    ReportTemplateFactory(owner=None, slug="shared", html="<p>shared</p>")
    ReportTemplateFactory(slug="private")
    assert api.post(SUBMIT, {"template": "shared"}, format="json").status_code == 202
    assert api.post(SUBMIT, {"template": "private"}, format="json").status_code == 400


def test_openapi_schema_is_generated_and_names_the_endpoints(api):
    response = api.get("/api/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    text = response.content.decode()
    for path in (
        "/api/v1/generate-pdf-async",
        "/api/v1/jobs/{job_id}",
        "/api/v1/jobs/{job_id}/cancel",
    ):
        assert path in text


def test_an_unknown_top_level_field_is_a_400_naming_it_and_nothing_is_queued(api):
    response = api.post(
        SUBMIT, {"tempalte": "invoice", "data": {"n": 1}, "colour": "red"}, format="json"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_data"
    assert 'tempalte: Unknown field. Did you mean "template"?' in body["error"]
    assert "colour: Unknown field." in body["error"]
    assert set(body["fields"]) == {"tempalte", "colour"}
    assert not PdfJob.objects.exists()
