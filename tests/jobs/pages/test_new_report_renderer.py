"""The new-report page: a renderer select that redraws the preview and goes with the job."""

from __future__ import annotations

from unittest import mock

import pytest

from jobs.models import PdfJob
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db


def test_the_new_report_page_offers_the_renderer_and_submits_it(browser, user, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    template = ReportTemplateFactory(owner=user, renderer="weasyprint")
    page = browser.get(f"/reports/new/{template.slug}/").content.decode()
    assert 'name="renderer"' in page
    assert '<option value="weasyprint" selected>' in page
    assert f"/templates/{template.slug}/thumbnail.png?renderer=weasyprint" in page
    with mock.patch("jobs.dispatch.job_enqueue"):
        browser.post(
            f"/reports/new/{template.slug}/",
            {"data": "{}", "page_size": "A4", "orientation": "portrait", "renderer": "chromium"},
        )
    assert PdfJob.objects.get(owner=user).renderer == "chromium"


def test_the_preview_image_follows_the_chosen_renderer(browser, user, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    template = ReportTemplateFactory(owner=user, html="<p>hello</p>")
    url = f"/templates/{template.slug}/thumbnail.png"
    xhtml2pdf = browser.get(f"{url}?renderer=xhtml2pdf")
    weasy = browser.get(f"{url}?renderer=weasyprint")
    assert xhtml2pdf["Content-Type"] == weasy["Content-Type"] == "image/png"
    assert xhtml2pdf.content != weasy.content
    assert browser.get(f"{url}?renderer=prince").status_code == 404


def test_the_form_marks_renderers_a_sample_is_not_made_for(browser):
    from reports.samples import template_sync_samples

    template_sync_samples()
    page = browser.get("/reports/new/sales-report/").content.decode()
    assert "WeasyPrint (not made for this template)" in page
    assert "Chromium (not made for this template)" in page
    assert "xhtml2pdf (not made for this template)" not in page
