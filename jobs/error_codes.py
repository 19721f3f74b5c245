"""The jobs app's error codes: submits, quotas, live streams, and failures a retry can fix."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class JobErrorCode(CodeEnum):
    IDEMPOTENCY_KEY_REUSED = (
        "idempotency_key_reused",
        422,
        False,
        "Use a new Idempotency-Key for a new request; resend the same body to get the earlier job.",
    )
    CALLBACK_NEEDS_API_KEY = (
        "callback_needs_api_key",
        400,
        False,
        "Submit with an X-API-Key (its webhook secret signs the callbacks), or "
        "leave callback_url out.",
    )
    QUOTA_EXCEEDED = (
        "quota_exceeded",
        429,
        True,
        "Too many of your jobs are queued or running: wait for some to finish "
        "(Retry-After), then submit again.",
    )
    TOO_MANY_STREAMS = (
        "too_many_streams",
        429,
        True,
        "Close some of your open live streams, or wait Retry-After seconds.",
    )
    TRANSIENT = (
        "transient",
        None,
        True,
        "A passing problem (storage, network); the worker retries it by itself.",
    )
    WORKER_LOST = (
        "worker_lost",
        None,
        True,
        "The worker rendering this report stopped several times, which a very "
        "large or unusual report can cause: retry it; if it keeps failing, make the report "
        "smaller or tell the operators.",
    )
    RETRIES_EXHAUSTED = (
        "retries_exhausted",
        None,
        True,
        "This was a problem on our side, not in your report. Retry the job from "
        "its page (or POST /api/v1/jobs/{id}/retry) in a little while; if it fails again, "
        "tell the operators and quote the reference in the message.",
    )
    STORAGE_UNAVAILABLE = (
        "storage_unavailable",
        None,
        True,
        "The PDF store was unreachable; the worker retries for PDF_STORAGE_OUTAGE_SECONDS"
        " by itself, then retry the job.",
    )
    MERGE_SOURCE_UNAVAILABLE = (
        "merge_source_unavailable",
        400,
        False,
        "Merge only completed jobs of this workspace whose PDF has not expired.",
    )
