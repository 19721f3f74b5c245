"""Downloads are named as the form promises: the chosen name, else `<slug>.pdf`, and inline
HTML jobs get a name of their own (their <title>, else `report-<job id>.pdf`)."""

from __future__ import annotations

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from rest_framework.test import APIClient

from jobs.models import JobStatus, PdfJob
from reports.samples import sample_files, template_sync_samples
from tests.factories import ReportTemplateFactory

pytestmark = pytest.mark.django_db
SUBMIT = "/api/v1/generate-pdf-async"


def _download(api: APIClient, job: PdfJob) -> str:
    """Complete `job` with a stored PDF and answer the Content-Disposition of its download."""
    key = f"{job.job_id}.pdf"
    storages["reports"].save(key, ContentFile(b"%PDF-1.4 fake"))
    PdfJob.objects.filter(pk=job.pk).update(status=JobStatus.COMPLETED, pdf_file=key)
    pdf_url = api.get(f"/api/v1/jobs/{job.job_id}").json()["pdf_url"]
    response = APIClient().get(pdf_url)
    assert response.status_code == 200
    return response["Content-Disposition"]


def _submit(api: APIClient, body: dict) -> PdfJob:
    response = api.post(SUBMIT, body, format="json")
    assert response.status_code == 202, response.json()
    return PdfJob.objects.get(job_id=response.json()["job_id"])


def test_a_sample_template_job_downloads_as_its_slug(api):
    template_sync_samples()
    job = _submit(api, {"template": "invoice", "data": sample_files("invoice")[2]})
    assert _download(api, job) == 'attachment; filename="invoice.pdf"'


def test_an_own_template_job_downloads_as_its_slug(api, user):
    ReportTemplateFactory(owner=user, slug="board-pack")
    job = _submit(api, {"template": "board-pack", "data": {"title": "t", "body": "b"}})
    assert _download(api, job) == 'attachment; filename="board-pack.pdf"'


def test_a_chosen_filename_wins_over_the_slug(api, user):
    ReportTemplateFactory(owner=user, slug="board-pack")
    body = {"template": "board-pack", "data": {}, "options": {"filename": "Q3 board"}}
    assert _download(api, _submit(api, body)) == 'attachment; filename="Q3 board.pdf"'


def test_inline_html_is_named_after_its_title_without_template_tags(api):
    html = "<html><head><title>Quarterly numbers {{quarter}}</title></head><p>x</p></html>"
    job = _submit(api, {"html_template": html, "data": {"quarter": "Q3"}})
    assert _download(api, job) == 'attachment; filename="quarterly-numbers.pdf"'


@pytest.mark.parametrize(
    "html", ["<h1>Hello {{name}}</h1>", "<title>{{name}}</title><p>x</p>", "<title> </title>"]
)
def test_inline_html_without_a_usable_title_is_named_by_its_job_id(api, html):
    job = _submit(api, {"html_template": html, "data": {"name": "A"}})
    expected = f"report-{job.job_id.hex[:8]}.pdf"
    assert job.filename == expected
    assert _download(api, job) == f'attachment; filename="{expected}"'
