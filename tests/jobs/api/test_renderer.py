"""The renderer and helpers through the API, the pages and the worker."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from django.core.files.storage import storages
from pypdf import PdfReader

from jobs.models import JobStatus, PdfJob
from jobs.worker import execution
from reports.samples import sample_files, template_sync_samples
from tests.conftest import pdf_text

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


def test_an_unknown_renderer_is_a_400_listing_the_valid_ones(api):
    response = api.post(SUBMIT, {"html_template": "<p>x</p>", "renderer": "prince"}, format="json")
    assert response.status_code == 400
    message = response.json()["error"]
    assert "Unknown renderer 'prince'" in message
    assert "xhtml2pdf, weasyprint, chromium" in message
    assert not PdfJob.objects.exists()


def test_an_inline_submit_names_its_renderer_and_the_status_shows_it(api):
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = api.post(
            SUBMIT, {"html_template": "<p>x</p>", "renderer": "weasyprint"}, format="json"
        )
    job_id = response.json()["job_id"]
    assert PdfJob.objects.get(job_id=job_id).renderer == "weasyprint"
    assert api.get(f"/api/v1/jobs/{job_id}").json()["renderer"] == "weasyprint"


def test_a_template_job_takes_the_renderer_of_the_version_it_pinned(api):
    template_sync_samples()
    data = sample_files("studio-invoice")[2]
    with mock.patch("jobs.dispatch.job_enqueue"):
        default = api.post(SUBMIT, {"template": "studio-invoice", "data": data}, format="json")
        chosen = api.post(
            SUBMIT,
            {"template": "studio-invoice", "data": data, "renderer": "chromium"},
            format="json",
        )
    assert PdfJob.objects.get(job_id=default.json()["job_id"]).renderer == "weasyprint"
    assert PdfJob.objects.get(job_id=chosen.json()["job_id"]).renderer == "chromium"


def test_the_worker_lays_the_job_out_with_its_renderer(user):
    job = PdfJob.objects.create(
        owner=user,
        html_template="<p>Total {{t}}</p>",
        engine="handlebars",
        data={"t": 7},
        renderer="weasyprint",
    )
    done = execution.job_execute(job_id=job.job_id)
    assert done.status == JobStatus.COMPLETED
    content = storages["reports"].open(done.pdf_file).read()
    assert "Total 7" in pdf_text(content)[1]
    assert PdfReader(io.BytesIO(content)).metadata.producer.startswith("WeasyPrint")


def test_inline_helpers_render_and_a_syntax_error_is_a_400_with_the_line(api, user):
    helpers = "function double(n) {\n  return n * 2;\n}"
    with mock.patch("jobs.dispatch.job_enqueue"):
        ok = api.post(
            SUBMIT,
            {"html_template": "<p>{{double n}}</p>", "data": {"n": 21}, "helpers": helpers},
            format="json",
        )
    job = PdfJob.objects.get(job_id=ok.json()["job_id"])
    done = execution.job_execute(job_id=job.job_id)
    assert "42" in pdf_text(storages["reports"].open(done.pdf_file).read())[1]
    broken = api.post(
        SUBMIT,
        {"html_template": "<p>x</p>", "helpers": "function a() {\n  return 1 +;\n}"},
        format="json",
    )
    assert broken.status_code == 400
    assert "line 2" in broken.json()["error"]


def test_helpers_belong_to_the_template_not_the_submit_of_a_stored_one(api):
    template_sync_samples()
    response = api.post(
        SUBMIT,
        {"template": "invoice", "data": sample_files("invoice")[2], "helpers": "function a(){}"},
        format="json",
    )
    assert response.status_code == 400
    assert "helpers go with an inline html_template" in response.json()["error"]


def test_templates_api_saves_and_versions_the_renderer(api):
    created = api.post(
        "/api/v1/templates/",
        {"slug": "modern", "name": "Modern", "html": "<p>x</p>", "renderer": "weasyprint"},
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["renderer"] == "weasyprint"
    api.patch("/api/v1/templates/modern", {"renderer": "chromium"}, format="json")
    versions = api.get("/api/v1/templates/modern/versions").json()
    assert [(v["number"], v["renderer"]) for v in versions] == [(2, "chromium"), (1, "weasyprint")]
    bad = api.patch("/api/v1/templates/modern", {"renderer": "prince"}, format="json")
    assert bad.status_code == 400
    assert "xhtml2pdf, weasyprint, chromium" in bad.json()["error"]


def test_the_openapi_schema_names_the_renderers(api):
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    text = str(schema)
    assert "'xhtml2pdf', 'weasyprint', 'chromium'" in text
    submit = schema["paths"]["/api/v1/generate-pdf-async"]["post"]
    assert submit["requestBody"]
