"""The error codes of rendering, of job failures and of the API itself, defined once: each
one's HTTP status, whether running the same job again can succeed, and what a person should
do about it. An app's own codes live in its `error_codes.py` (accounts, reports, jobs,
dropins, workspaces, schedules, runs) with the same CodeInfo; docs/reference/errors.md
lists them all (tests/rendering/test_error_codes.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    # The request as sent cannot be done: change it.
    INVALID_DATA = "invalid_data"
    INVALID_SCHEMA = "invalid_schema"
    UNKNOWN_TEMPLATE = "unknown_template"
    TEMPLATE_ARCHIVED = "template_archived"
    TEMPLATE_SYNTAX = "template_syntax"
    TEMPLATE_ERROR = "template_error"
    RENDER_ERROR = "render_error"
    LAYOUT_ERROR = "layout_error"
    LIMIT_EXCEEDED = "limit_exceeded"
    TOO_LARGE = "too_large"
    TOO_DEEP = "too_deep"
    TOO_MANY_ITEMS = "too_many_items"
    SCHEMA_TOO_SLOW = "schema_too_slow"
    # What the request points at.
    NOT_FOUND = "not_found"
    EXPIRED = "expired"
    CONFLICT = "conflict"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NOT_ACCEPTABLE = "not_acceptable"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    # Who is asking.
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    PERMISSION_DENIED = "permission_denied"
    # How much, how often.
    THROTTLED = "throttled"
    QUOTA_EXCEEDED = "quota_exceeded"
    TOO_MANY_STREAMS = "too_many_streams"
    # Our side: a later attempt can succeed.
    SERVER_ERROR = "server_error"
    TRANSIENT = "transient"
    TIMEOUT = "timeout"
    WORKER_LOST = "worker_lost"
    RETRIES_EXHAUSTED = "retries_exhausted"
    # Documents, workspaces and storage (issues 21, 20, 25).
    PROFILE_UNSUPPORTED = "profile_unsupported"
    UNKNOWN_PROFILE = "unknown_profile"
    E_INVOICE_INVALID = "e_invoice_invalid"
    E_INVOICE_TOO_LARGE = "e_invoice_too_large"
    MERGE_SOURCE_UNAVAILABLE = "merge_source_unavailable"
    INVALID_CERTIFICATE = "invalid_certificate"
    CERTIFICATE_EXPIRED = "certificate_expired"
    TIMESTAMP_FAILED = "timestamp_failed"
    COMPLIANCE_FAILED = "compliance_failed"
    STORAGE_UNAVAILABLE = "storage_unavailable"


@dataclass(frozen=True)
class CodeInfo:
    status: int | None  # the API's HTTP status with it; None: only ever a job's error_code
    retry_helps: bool  # the same job run again can succeed (so a Retry button makes sense)
    advice: str  # what to do, for a person: what to change, not what broke inside


_RESUBMIT = "then submit the report again."
CODES: dict[ErrorCode, CodeInfo] = {
    ErrorCode.INVALID_DATA: CodeInfo(
        400,
        False,
        "Correct the field or the data the message names (data must match the "
        f"template's schema), {_RESUBMIT}",
    ),
    ErrorCode.INVALID_SCHEMA: CodeInfo(
        400, False, "Fix the template's JSON Schema where the message says, then save again."
    ),
    ErrorCode.UNKNOWN_TEMPLATE: CodeInfo(
        400,
        False,
        "Use the slug of one of your templates or a built-in one "
        "(GET /api/v1/templates lists them).",
    ),
    ErrorCode.TEMPLATE_ARCHIVED: CodeInfo(
        400, False, "Restore the template (POST /api/v1/templates/{slug}/restore) or use another."
    ),
    ErrorCode.TEMPLATE_SYNTAX: CodeInfo(
        400, False, f"Fix the template where the message says (it names the line), {_RESUBMIT}"
    ),
    ErrorCode.TEMPLATE_ERROR: CodeInfo(
        400,
        False,
        "The template failed while filling in the data: fix the template or the "
        f"data where the message says, {_RESUBMIT}",
    ),
    ErrorCode.RENDER_ERROR: CodeInfo(
        400, False, f"Check the template, data or options the message points to, {_RESUBMIT}"
    ),
    ErrorCode.LAYOUT_ERROR: CodeInfo(
        400,
        False,
        "Let the element the message names break across pages (or make it "
        "smaller), or choose the weasyprint or chromium renderer, then submit again.",
    ),
    ErrorCode.LIMIT_EXCEEDED: CodeInfo(
        400,
        False,
        "The report went past the limit the message names: make it smaller "
        "(fewer pages, rows or charts) or split it into several reports.",
    ),
    ErrorCode.TOO_LARGE: CodeInfo(
        413, False, "The template or data is larger than allowed: make it smaller or split it."
    ),
    ErrorCode.TOO_DEEP: CodeInfo(
        400, False, f"The data is nested too deeply: flatten it, {_RESUBMIT}"
    ),
    ErrorCode.TOO_MANY_ITEMS: CodeInfo(
        400,
        False,
        "Send the batch in several requests of at most PDF_MAX_BATCH items (a run: at most "
        "RUN_MAX_RECORDS records).",
    ),
    ErrorCode.SCHEMA_TOO_SLOW: CodeInfo(
        400,
        False,
        "Simplify the template's schema (anyOf/oneOf, $ref recursion) so data is "
        "checked within PDF_SCHEMA_VALIDATION_MS.",
    ),
    ErrorCode.NOT_FOUND: CodeInfo(
        404, False, "Check the id or slug; another caller's jobs and templates are not visible."
    ),
    ErrorCode.EXPIRED: CodeInfo(
        410, False, "The PDF was deleted by retention: submit the report again."
    ),
    ErrorCode.CONFLICT: CodeInfo(
        409,
        False,
        "The thing is not in a state that allows this (the message says which): "
        "choose another slug, or wait for the job's state.",
    ),
    ErrorCode.METHOD_NOT_ALLOWED: CodeInfo(
        405, False, "Use the method the API reference gives for this path."
    ),
    ErrorCode.NOT_ACCEPTABLE: CodeInfo(
        406, False, "Ask for application/json (or leave the Accept header out)."
    ),
    ErrorCode.UNSUPPORTED_MEDIA_TYPE: CodeInfo(
        415, False, "Send the body as JSON with Content-Type: application/json."
    ),
    ErrorCode.NOT_AUTHENTICATED: CodeInfo(
        401, False, "Send your API key in the X-API-Key header (or sign in)."
    ),
    ErrorCode.AUTHENTICATION_FAILED: CodeInfo(
        401,
        False,
        "The API key is wrong or revoked: create one on the API keys page and "
        "send it in the X-API-Key header.",
    ),
    ErrorCode.PERMISSION_DENIED: CodeInfo(
        403, False, "Your account may not do this; ask an operator."
    ),
    ErrorCode.THROTTLED: CodeInfo(
        429, True, "Too many requests for the limit named in `limit`: wait Retry-After seconds."
    ),
    ErrorCode.QUOTA_EXCEEDED: CodeInfo(
        429,
        True,
        "Too many of your jobs are queued or running: wait for some to finish "
        "(Retry-After), then submit again.",
    ),
    ErrorCode.TOO_MANY_STREAMS: CodeInfo(
        429, True, "Close some of your open live streams, or wait Retry-After seconds."
    ),
    ErrorCode.SERVER_ERROR: CodeInfo(
        500, True, "The server failed; the error is logged. Try again later."
    ),
    ErrorCode.TRANSIENT: CodeInfo(
        None, True, "A passing problem (storage, network); the worker retries it by itself."
    ),
    ErrorCode.TIMEOUT: CodeInfo(
        None,
        True,
        "The render took longer than its time limit: retry once the workers are "
        "less busy; if it fails again, make the report smaller or split it.",
    ),
    ErrorCode.WORKER_LOST: CodeInfo(
        None,
        True,
        "The worker rendering this report stopped several times, which a very "
        "large or unusual report can cause: retry it; if it keeps failing, make the report "
        "smaller or tell the operators.",
    ),
    ErrorCode.RETRIES_EXHAUSTED: CodeInfo(
        None,
        True,
        "This was a problem on our side, not in your report. Retry the job from "
        "its page (or POST /api/v1/jobs/{id}/retry) in a little while; if it fails again, "
        "tell the operators and quote the reference in the message.",
    ),
    ErrorCode.PROFILE_UNSUPPORTED: CodeInfo(
        400,
        False,
        "Choose a renderer that can produce the profile (the message names them), or drop"
        " options.pdf.profile, then submit again.",
    ),
    ErrorCode.UNKNOWN_PROFILE: CodeInfo(
        400,
        False,
        "Use one of the profiles the message lists in options.pdf.profile, then submit again.",
    ),
    ErrorCode.E_INVOICE_INVALID: CodeInfo(
        422,
        False,
        "Fix the invoice XML where the schema's message says (Factur-X / ZUGFeRD CII for "
        "the profile named), then submit again.",
    ),
    ErrorCode.E_INVOICE_TOO_LARGE: CodeInfo(
        413, False, "Send a smaller invoice XML (the message gives the limit)."
    ),
    ErrorCode.MERGE_SOURCE_UNAVAILABLE: CodeInfo(
        400, False, "Merge only completed jobs of this workspace whose PDF has not expired."
    ),
    ErrorCode.INVALID_CERTIFICATE: CodeInfo(
        400, False, "Upload a PKCS#12 file (.p12/.pfx) with its right password."
    ),
    ErrorCode.CERTIFICATE_EXPIRED: CodeInfo(
        400, False, "Upload a certificate that is valid now, and sign with it."
    ),
    ErrorCode.TIMESTAMP_FAILED: CodeInfo(
        None,
        False,
        "Point the sign step's timestamp_url at an RFC 3161 timestamp authority (it must "
        "answer application/timestamp-reply), or drop it, then submit again.",
    ),
    ErrorCode.COMPLIANCE_FAILED: CodeInfo(
        None,
        False,
        "Change the template or options so the check the message names passes (e.g. no "
        "transparency or encryption in PDF/A), then submit again.",
    ),
    ErrorCode.STORAGE_UNAVAILABLE: CodeInfo(
        None,
        True,
        "The PDF store was unreachable; the worker retries for PDF_STORAGE_OUTAGE_SECONDS"
        " by itself, then retry the job.",
    ),
}


def code_info(code: str) -> CodeInfo | None:
    """What the registry says of a stored code; None for one it does not know (old rows)."""
    try:
        return CODES[ErrorCode(code)]
    except ValueError:
        return None


def retry_helps(code: str) -> bool:
    """Whether retrying a job that failed with `code` can succeed; an unknown code (a job
    stored before the registry) is given the benefit of the doubt."""
    info = code_info(code)
    return True if info is None else info.retry_helps
