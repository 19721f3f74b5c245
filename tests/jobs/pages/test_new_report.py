"""New report: the gallery, the data form (JSON checked here too) and thumbnails."""

from __future__ import annotations

import json
from unittest import mock

import pytest
from django.utils import timezone

from jobs.models import PdfJob
from reports.models import ReportTemplate
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _thumbnails_in_tmp(settings, tmp_path):
    settings.VAR_DIR = tmp_path


def test_gallery_lists_my_templates_and_built_ins_but_not_others(browser, user):
    mine = ReportTemplateFactory(owner=user, name="Mine")
    builtin = ReportTemplateFactory(owner=None, name="Shared", slug="shared")
    ReportTemplateFactory(name="Someone else's", slug="private")
    html = browser.get("/reports/new/").content.decode()
    assert f"/reports/new/{mine.slug}/" in html
    assert f"/templates/{builtin.slug}/thumbnail.png" in html
    assert "/reports/new/private/" not in html


def test_my_template_shadows_the_built_in_of_the_same_slug(browser, user):
    ReportTemplateFactory(owner=None, name="Built-in invoice", slug="invoice")
    ReportTemplateFactory(owner=user, name="My invoice", slug="invoice")
    templates = browser.get("/reports/new/").context["templates"]
    assert [t.name for t in templates] == ["My invoice"]


def test_gallery_leaves_out_archived_templates(browser, user):
    ReportTemplateFactory(owner=user, name="Active", slug="active")
    ReportTemplateFactory(owner=user, name="Old", slug="old", archived_at=timezone.now())
    ReportTemplateFactory(owner=None, name="Retired built-in", archived_at=timezone.now())
    templates = browser.get("/reports/new/").context["templates"]
    assert [t.name for t in templates] == ["Active"]


def test_my_archived_template_still_shadows_the_built_in_of_its_slug(browser, user):
    # A submit by this slug finds my archived template and refuses it, so the gallery must
    # not offer the built-in under that slug either.
    ReportTemplateFactory(owner=None, name="Built-in invoice", slug="invoice")
    ReportTemplateFactory(owner=user, name="My invoice", slug="invoice", archived_at=timezone.now())
    templates = browser.get("/reports/new/").context["templates"]
    assert [t.name for t in templates] == []


def test_form_is_prefilled_with_the_sample_data(browser, user):
    template = ReportTemplateFactory(owner=user, sample_data={"title": "Q3"})
    response = browser.get(f"/reports/new/{template.slug}/")
    assert json.loads(response.context["form"]["data"].value()) == {"title": "Q3"}


def test_submit_creates_a_job_through_the_service_and_opens_its_page(browser, user):
    template = ReportTemplateFactory(owner=user)
    with mock.patch("jobs.dispatch.job_enqueue"):
        response = browser.post(
            f"/reports/new/{template.slug}/",
            {
                "data": '{"title": "Hi"}',
                "filename": "q3",
                "page_size": "A5",
                "orientation": "landscape",
            },
        )
    job = PdfJob.objects.get(owner=user)
    assert response.status_code == 302
    assert response["Location"] == f"/jobs/{job.job_id}/"
    assert job.template == template
    assert job.data == {"title": "Hi"}
    assert job.options == {"filename": "q3.pdf", "page_size": "A5", "orientation": "landscape"}


@pytest.mark.parametrize(
    ("data", "message"),
    [("[1, 2]", "must be a JSON object"), ("{oops", "not valid JSON")],
)
def test_data_that_is_not_a_json_object_is_refused(browser, user, data, message):
    template = ReportTemplateFactory(owner=user)
    response = browser.post(
        f"/reports/new/{template.slug}/",
        {"data": data, "page_size": "A4", "orientation": "portrait"},
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not PdfJob.objects.exists()


def test_data_is_checked_against_the_template_schema_when_it_has_one(browser, user):
    template = ReportTemplateFactory(owner=user)
    schema = {"type": "object", "required": ["title"], "properties": {"title": {"type": "string"}}}
    with mock.patch("jobs.pages.new_report._schema", return_value=schema):
        response = browser.post(
            f"/reports/new/{template.slug}/",
            {"data": '{"title": 5}', "page_size": "A4", "orientation": "portrait"},
        )
    assert response.status_code == 400
    assert "title: expected string" in response.content.decode()
    assert not PdfJob.objects.exists()


def test_template_without_schema_field_uses_the_json_editor(browser, user):
    template = ReportTemplateFactory(owner=user)
    response = browser.get(f"/reports/new/{template.slug}/")
    assert response.context["schema"] is None
    assert "data-schema-form" not in response.content.decode()


def test_someone_elses_template_is_404(browser):
    other = ReportTemplateFactory(slug="private")
    assert browser.get(f"/reports/new/{other.slug}/").status_code == 404
    assert browser.get(f"/templates/{other.slug}/thumbnail.png").status_code == 404


def test_thumbnail_is_a_png_and_a_broken_template_gets_a_placeholder(browser, user):
    good = ReportTemplateFactory(owner=user)
    response = browser.get(f"/templates/{good.slug}/thumbnail.png")
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(b"\x89PNG")
    broken = ReportTemplateFactory(owner=user, html="<p>{{shout x}}</p>")
    response = browser.get(f"/templates/{broken.slug}/thumbnail.png")
    assert response["Content-Type"] == "image/svg+xml"
    assert b"No preview" in response.content
    assert ReportTemplate.objects.count() == 2


def test_thumbnails_past_the_tenant_rate_are_429_with_the_placeholder(browser, user, settings):
    settings.API_RATE_THUMBNAIL = "2/min"
    template = ReportTemplateFactory(owner=user)
    url = f"/templates/{template.slug}/thumbnail.png"
    assert [browser.get(url).status_code for _ in range(2)] == [200, 200]
    refused = browser.get(url)
    assert refused.status_code == 429
    assert (refused["X-Limit"], refused["Content-Type"]) == ("API_RATE_THUMBNAIL", "image/svg+xml")
    assert int(refused["Retry-After"]) > 0
    assert refused["Cache-Control"] == "no-store"
