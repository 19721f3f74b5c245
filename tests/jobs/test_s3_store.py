"""The report store on S3 (a real moto_server, spoken to by django-storages and boto3):
rendered PDFs, thumbnails and cache hits are objects in the bucket, a download link
redirects to a presigned URL of the object, retention deletes the shared object once."""

from __future__ import annotations

import io
from datetime import timedelta
from unittest import mock

import httpx
import pytest
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from jobs import retention, services
from jobs.links import pdf_path
from jobs.models import JobStatus, PdfJob
from jobs.worker.execution import job_execute
from reports import thumbnails
from tests.factories import ReportTemplateFactory
from tests.s3server import KEY_ID, SECRET, S3Server

pytestmark = [pytest.mark.django_db, pytest.mark.process]  # a moto_server each (the s3 fixture)


@pytest.fixture
def s3(tmp_path, settings, monkeypatch):
    server = S3Server(tmp_path / "moto.log")
    server.start()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    settings.STORAGES = {**settings.STORAGES, "reports": server.storage_setting()}
    yield server
    server.stop()


def _rendered(user, text: str) -> PdfJob:
    job, _ = services.job_create(owner=user, html_template=f"<h1>{text}</h1>", data={}, cache=True)
    done = job_execute(job_id=job.job_id)
    assert isinstance(done, PdfJob)
    assert done.status == JobStatus.COMPLETED
    return done


def test_a_rendered_pdf_is_an_object_and_downloads_by_presigned_redirect(user, s3):
    job = _rendered(user, "On S3")
    assert s3.keys() == [f"reports/{job.pdf_file}"]
    answer = Client().get(pdf_path(job.job_id))
    assert answer.status_code == 302
    location = answer["Location"]
    assert location.startswith(f"{s3.endpoint_url}/")
    assert "X-Amz-Signature=" in location
    fetched = httpx.get(location, timeout=10)
    assert fetched.status_code == 200
    assert fetched.headers["content-type"] == "application/pdf"
    assert fetched.headers["content-disposition"].startswith("attachment")
    assert "On S3" in PdfReader(io.BytesIO(fetched.content)).pages[0].extract_text()
    # The signature covers the key: another object through the same URL is refused.
    other = location.replace(str(job.job_id), "00000000-0000-0000-0000-000000000000")
    assert httpx.get(other, timeout=10).status_code == 403


def test_with_the_redirect_off_the_web_process_streams_the_pdf(user, s3, settings):
    settings.PDF_DOWNLOAD_REDIRECT = False
    job = _rendered(user, "Proxied")
    answer = Client().get(pdf_path(job.job_id))
    assert answer.status_code == 200
    body = b"".join(answer.streaming_content)
    assert "Proxied" in PdfReader(io.BytesIO(body)).pages[0].extract_text()


def test_a_cache_hit_shares_the_object_and_retention_deletes_it_with_the_last_job(user, s3):
    first = _rendered(user, "Shared")
    hit, _ = services.job_create(owner=user, html_template="<h1>Shared</h1>", data={}, cache=True)
    assert hit.status == JobStatus.COMPLETED
    assert hit.pdf_file == first.pdf_file
    assert s3.keys() == [f"reports/{first.pdf_file}"]
    past = timezone.now() - timedelta(days=30)
    PdfJob.objects.filter(pk=first.pk).update(completed_at=past)
    retention.pdfs_expire()
    assert s3.keys() == [f"reports/{first.pdf_file}"]  # the hit still points at it
    PdfJob.objects.filter(pk=hit.pk).update(completed_at=past)
    retention.pdfs_expire()
    assert s3.keys() == []
    assert Client().get(pdf_path(hit.job_id)).status_code == 410


def test_thumbnails_are_cached_in_the_bucket(user, s3):
    template = ReportTemplateFactory(owner=user)
    png = thumbnails.template_thumbnail(template=template, tenant_id=user.pk)
    assert png is not None
    assert png.startswith(b"\x89PNG")
    key = f"reports/thumbnails/{thumbnails.thumbnail_key(template)}.png"
    assert s3.keys("reports/thumbnails/") == [key]
    with mock.patch.object(thumbnails, "preview_request") as render:
        assert (
            thumbnails.template_thumbnail(template=template, tenant_id=user.pk) == png
        )  # from the bucket
    render.assert_not_called()
