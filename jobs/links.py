"""Public URLs of a job: its status URL and a signed, expiring PDF download link (a run's:
runs.links)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.conf import settings
from django.core import signing
from django.core.files.storage import storages
from django.urls import reverse
from django.utils.http import content_disposition_header

from jobs.models import JobStatus, PdfJob

_SALT = "jobs.pdf-download"
UrlBuilder = Callable[[str], str]


def pdf_download_token(job_id: UUID | str, *, salt: str = _SALT) -> str:
    return signing.dumps(str(job_id), salt=salt)


def pdf_download_token_valid(token: str, job_id: UUID | str, *, salt: str = _SALT) -> bool:
    try:
        signed = signing.loads(token, salt=salt, max_age=settings.PDF_URL_TTL_SECONDS)
    except signing.BadSignature:  # includes SignatureExpired
        return False
    return isinstance(signed, str) and signed == str(job_id)


def status_path(job_id: UUID | str) -> str:
    return reverse("api:job-detail", kwargs={"job_id": str(job_id)})


def pdf_path(job_id: UUID | str) -> str:
    base = reverse("api:job-pdf", kwargs={"job_id": str(job_id)})
    return f"{base}?token={pdf_download_token(job_id)}"


def with_links(payload: dict[str, Any], absolute: UrlBuilder) -> dict[str, Any]:
    """Add status_url and (once completed, until it expires) pdf_url, absolute for the
    caller's host."""
    job_id = payload["job_id"]
    completed = payload["status"] == JobStatus.COMPLETED and not payload.get("expired")
    return {
        **payload,
        "status_url": absolute(status_path(job_id)),
        "pdf_url": absolute(pdf_path(job_id)) if completed else None,
    }


def pdf_presigned_url(job: PdfJob) -> str | None:
    """A short-lived URL of the PDF on the store itself (S3), which names it as a download;
    None when the store cannot sign URLs or PDF_DOWNLOAD_REDIRECT is off."""
    storage: Any = storages["reports"]  # S3Storage.url takes parameters and expire
    if not settings.PDF_DOWNLOAD_REDIRECT or not getattr(storage, "querystring_auth", False):
        return None
    parameters = {
        "ResponseContentType": "application/pdf",
        "ResponseContentDisposition": content_disposition_header(True, job.filename) or "",
    }
    return str(
        storage.url(job.pdf_file, parameters=parameters, expire=settings.PDF_PRESIGNED_URL_SECONDS)
    )
