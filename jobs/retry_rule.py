"""Whether a failed job is worth retrying, and what to do about it otherwise: the job
page, the API, the mail and the retry service all ask here (core.error_registry says
which codes a retry can fix)."""

from __future__ import annotations

from core.error_registry import code_info, retry_helps
from jobs.models import JobStatus, PdfJob

_DEFAULT_ADVICE = (
    "Check the message above, fix the template, data or options it points to, and submit "
    "the report again; or retry the job from its page if nothing needs to change."
)


def failure_advice(code: str) -> str:
    """What to do about a failure with `code`, for a person to act on."""
    info = code_info(code)
    return _DEFAULT_ADVICE if info is None else info.advice


def job_retry_helps(job: PdfJob) -> bool:
    """A failed job whose failure a retry can fix: a permanent one (template, data, limits)
    would fail the same way, so it gets advice instead of a Retry button."""
    return job.status == JobStatus.FAILED and retry_helps(job.error_code)
