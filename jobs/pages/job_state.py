"""What the pages hand their scripts: a job's public state, the same shape as live events."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from jobs.api.serializers import JobOutputSerializer
from jobs.models import PdfJob


def job_state(request: HttpRequest, job: PdfJob) -> dict[str, Any]:
    state = dict(
        JobOutputSerializer(
            job, context={"absolute": request.build_absolute_uri, "actor": request.user}
        ).data
    )
    state["page_url"] = reverse("job-page", kwargs={"job_id": job.job_id})
    state["template_name"] = state["template_name"] or inline_label(job)
    return state


def inline_label(job: PdfJob) -> str:
    """How a page lists an inline job: the name its PDF was given (options.filename, or its
    page's <title>), else "Inline" (the drawn report-<id>.pdf says no more than its id).
    static/js/common.js's jobLabel says the same for live rows and notices."""
    if job.filename == f"report-{job.job_id.hex[:8]}.pdf":
        return "Inline"
    return job.filename
