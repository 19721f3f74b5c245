"""Rendering's error codes, defined once: each one's HTTP status, whether running the same
job again can succeed, and what a person should do about it. Only what rendering itself
raises lives here; the API's codes are core's (core/error_codes.py) and every app has its
own `error_codes.py` with the same CodeInfo. core/error_registry.py looks a code up in all of
them, and docs/reference/errors.md lists them all (tests/core/test_error_codes.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    # The template, the data or the options cannot be rendered as sent: change them.
    INVALID_DATA = "invalid_data"
    TEMPLATE_SYNTAX = "template_syntax"
    TEMPLATE_ERROR = "template_error"
    RENDER_ERROR = "render_error"
    LAYOUT_ERROR = "layout_error"
    LIMIT_EXCEEDED = "limit_exceeded"
    TOO_LARGE = "too_large"
    # A render past its time limit: a later attempt can succeed.
    TIMEOUT = "timeout"
    # Document options: profiles, e-invoices, signatures (issue 21).
    PROFILE_UNSUPPORTED = "profile_unsupported"
    UNKNOWN_PROFILE = "unknown_profile"
    E_INVOICE_INVALID = "e_invoice_invalid"
    E_INVOICE_TOO_LARGE = "e_invoice_too_large"
    INVALID_CERTIFICATE = "invalid_certificate"
    CERTIFICATE_EXPIRED = "certificate_expired"
    TIMESTAMP_FAILED = "timestamp_failed"
    COMPLIANCE_FAILED = "compliance_failed"


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
    ErrorCode.TIMEOUT: CodeInfo(
        None,
        True,
        "The render took longer than its time limit: retry once the workers are "
        "less busy; if it fails again, make the report smaller or split it.",
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
}
