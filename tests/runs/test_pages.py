"""The run pages without a browser: the progress bar is a percent, only failed or refused
records are listed as without a PDF, a separate run links its PDFs and zips them."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.files.uploadedfile import SimpleUploadedFile

from jobs import transitions
from jobs.models import PdfJob
from reports.samples import template_sync_samples
from reports.services import template_create
from runs.models import Run
from runs.records import records_from_list
from runs.services import run_create
from workspaces.services import workspace_personal

pytestmark = pytest.mark.django_db

SCHEMA = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}},
}


@pytest.fixture
def certificate(user):
    return template_create(
        owner=user, name="Certificate", slug="certificate", html="<h1>{{name}}</h1>", schema=SCHEMA
    )


def _start(user, records, **kwargs) -> Run:
    return run_create(
        owner=user,
        workspace=workspace_personal(user=user),
        template_slug="certificate",
        records=records_from_list(records),
        **kwargs,
    )


def _complete(job: PdfJob) -> None:
    transitions.job_claim(job_id=job.job_id, worker="test:1")
    key = storages["reports"].save(
        f"{job.job_id}.pdf", ContentFile(b"%PDF-1.7 " + job.data["name"].encode())
    )
    transitions.job_complete(
        job_id=job.job_id, pdf_file=key, page_count=1, size_bytes=1, warnings=[]
    )


def test_a_running_runs_bar_is_a_percent_and_pending_records_are_not_failures(
    client, user, certificate, django_capture_on_commit_callbacks
):
    records = [{"name": f"P{n}"} for n in range(11)] + [{"name": 12}]  # the last is refused
    run = _start(user, records)
    jobs = list(PdfJob.objects.filter(batch_id=run.run_id).order_by("pk"))
    with django_capture_on_commit_callbacks(execute=True):
        for job in jobs[:3]:
            _complete(job)
    client.force_login(user)
    html = client.get(f"/runs/{run.run_id}/").content.decode()
    bar = re.search(r'<div class="bar big"[^>]*>', html).group(0)
    assert 'aria-valuemax="100"' in bar
    assert 'aria-valuenow="33"' in bar  # 4 of 12 records done, not "4 %"
    assert 'aria-valuetext="4 of 12 records"' in bar
    assert "not finished" not in html
    failures = re.findall(r"<li>Record (\d+):", html)
    assert failures == ["12"]
    assert "Retry failed records" not in html  # still running


def test_retry_is_offered_only_when_a_retry_can_fix_a_record(
    client, user, certificate, django_capture_on_commit_callbacks, sent_tasks
):
    run = _start(user, [{"name": "Ada"}, {"name": "Bob"}, {"name": 3}])  # the last: refused
    jobs = list(PdfJob.objects.filter(batch_id=run.run_id).order_by("pk"))
    with django_capture_on_commit_callbacks(execute=True):
        _complete(jobs[0])
        transitions.job_claim(job_id=jobs[1].job_id, worker="test:1")
        transitions.job_fail(job_id=jobs[1].job_id, error="bad", code="template_error")
    client.force_login(user)
    html = client.get(f"/runs/{run.run_id}/").content.decode()
    assert "Retry failed records" not in html
    assert "A retry would fail the same way" in html
    PdfJob.objects.filter(pk=jobs[1].pk).update(error_code="worker_lost")
    html = client.get(f"/runs/{run.run_id}/").content.decode()
    assert "Retry failed records" in html


def test_a_finished_separate_run_links_each_pdf_and_zips_them_all(
    client, user, certificate, django_capture_on_commit_callbacks, sent_tasks
):
    run = _start(
        user, [{"name": "Ada"}, {"name": "Bob"}], output="separate", filename_pattern="cert-{name}"
    )
    with django_capture_on_commit_callbacks(execute=True):
        for job in PdfJob.objects.filter(batch_id=run.run_id):
            _complete(job)
    client.force_login(user)
    html = client.get(f"/runs/{run.run_id}/").content.decode()
    assert "Download all (ZIP)" in html
    for job in PdfJob.objects.filter(batch_id=run.run_id):
        assert f"/jobs/{job.job_id}/download" in html
    assert "cert-Ada.pdf" in html
    assert "cert-Bob.pdf" in html
    signed = client.get(f"/runs/{run.run_id}/download")
    assert signed.status_code == 302
    answer = client.get(signed["Location"])
    archive = zipfile.ZipFile(io.BytesIO(b"".join(answer.streaming_content)))
    assert archive.namelist() == ["cert-Ada.pdf", "cert-Bob.pdf"]


@pytest.mark.parametrize("slug", ["certificate", "invoice"])
def test_the_sample_csv_of_a_built_in_template_starts_a_run_with_no_bad_record(client, user, slug):
    """/runs/new shows the template's columns and a sample CSV, and that CSV, uploaded as
    it is, is a run whose record is valid (nested fields as JSON in their cells)."""
    template_sync_samples()
    client.force_login(user)
    page = client.get("/runs/new/").content.decode()
    assert '<option value="certificate" selected>' in page  # the sample made for runs
    assert "<code><strong>name</strong></code>" in page
    assert "/runs/new/sample.csv?template=certificate" in page
    sample = client.get(f"/runs/new/sample.csv?template={slug}")
    assert sample.status_code == 200
    assert sample["Content-Disposition"] == f'attachment; filename="{slug}-sample.csv"'
    started = client.post(
        "/runs/new/",
        {
            "template": slug,
            "output": "zip",
            "filename_pattern": "",
            "file": SimpleUploadedFile(f"{slug}.csv", sample.content, "text/csv"),
        },
    )
    assert started.status_code == 302, started.content.decode()[:2000]
    run = Run.objects.get()
    assert (run.total, run.failed) == (1, 0)
