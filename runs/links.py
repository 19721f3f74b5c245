"""Public URLs of a run: its status URL and its one download (its ZIP or combined PDF),
signed and expiring like a job's PDF link (jobs.links)."""

from __future__ import annotations

from uuid import UUID

from django.urls import reverse

from jobs.links import pdf_download_token, pdf_download_token_valid

_RUN_SALT = "jobs.run-download"  # a run's token never opens a job's PDF, nor the reverse


def run_download_path(run_id: UUID | str) -> str:
    base = reverse("api:run-download", kwargs={"run_id": str(run_id)})
    return f"{base}?token={pdf_download_token(run_id, salt=_RUN_SALT)}"


def run_download_token_valid(token: str, run_id: UUID | str) -> bool:
    return pdf_download_token_valid(token, run_id, salt=_RUN_SALT)


def run_status_path(run_id: UUID | str) -> str:
    return reverse("api:run-detail", kwargs={"run_id": str(run_id)})
