"""The Gotenberg way of sending a result (jobs.models.ResultWebhook): the PDF itself to the
job's callback_url, or its failure as JSON to the error URL, with the caller's method and
extra headers. Delivered by jobs.callbacks like every webhook (leases, retries, attempts)."""

from __future__ import annotations

import json
from typing import Any

from django.core.files.storage import storages

from accounts.signing_certificates import secret_seal, secret_unseal
from core.error_registry import code_info
from jobs.models import JobStatus, PdfJob, ResultWebhook


def result_webhook_of(job: PdfJob) -> ResultWebhook | None:
    return ResultWebhook.objects.filter(job=job).first()


def headers_seal(headers: dict[str, str]) -> str:
    return secret_seal(json.dumps(headers)) if headers else ""


def result_webhook_target(job: PdfJob, result: ResultWebhook) -> tuple[str, str]:
    """(url, payload to keep on the delivery): the PDF's receiver on success (the payload
    names the stored PDF, sent as bytes), else the error URL and the JSON sent there."""
    if job.status == JobStatus.COMPLETED:
        return job.callback_url, json.dumps({"pdf": job.pdf_file, "filename": job.filename})
    info = code_info(job.error_code) if job.error_code else None
    status = info.status if info is not None and info.status else 500
    message = job.error or f"The job was {job.status}."
    return result.error_url, json.dumps({"status": status, "message": message})


def result_webhook_request(
    job: PdfJob, result: ResultWebhook, payload: str
) -> tuple[str, bytes, dict[str, Any]]:
    """(method, body, headers) of one delivery attempt."""
    extra: dict[str, str] = (
        json.loads(secret_unseal(result.sealed_headers)) if result.sealed_headers else {}
    )
    trace = {"Gotenberg-Trace": result.trace or str(job.job_id)}
    if job.status != JobStatus.COMPLETED:
        headers = {**extra, **trace, "Content-Type": "application/json"}
        return result.error_method, payload.encode(), headers
    with storages["reports"].open(job.pdf_file, "rb") as handle:
        content = bytes(handle.read())
    headers = {
        **extra,
        **trace,
        "Content-Type": "application/pdf",
        "Content-Disposition": f'attachment; filename="{job.filename}"',
    }
    return result.method, content, headers
