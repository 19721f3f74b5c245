"""Error codes, each declared once with what it means: its HTTP status, whether running the
same job again can succeed, and what a person should do about it. Only what rendering itself
raises lives here; the API's codes are core's (core/error_codes.py) and every app has its
own `error_codes.py`, a CodeEnum like this one. core/error_registry.py looks a code up in all
of them, and docs/reference/errors.md lists them all (tests/core/test_error_codes.py)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Self


@dataclass(frozen=True)
class CodeInfo:
    status: int | None  # the API's HTTP status with it; None: only ever a job's error_code
    retry_helps: bool  # the same job run again can succeed (so a Retry button makes sense)
    advice: str  # what to do, for a person: what to change, not what broke inside


class CodeEnum(StrEnum):
    """Error codes whose members carry their CodeInfo, declared in one place:
    `NAME = "name", status, retry_helps, "advice"`; the member's value is the name string."""

    _value_: str
    info: CodeInfo

    def __new__(cls, value: str, status: int | None, retry_helps: bool, advice: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.info = CodeInfo(status, retry_helps, advice)
        return member


_RESUBMIT = "then submit the report again."


class ErrorCode(CodeEnum):
    # The template, the data or the options cannot be rendered as sent: change them.
    INVALID_DATA = (
        "invalid_data",
        400,
        False,
        "Correct the field or the data the message names (data must match the "
        f"template's schema), {_RESUBMIT}",
    )
    TEMPLATE_SYNTAX = (
        "template_syntax",
        400,
        False,
        f"Fix the template where the message says (it names the line), {_RESUBMIT}",
    )
    TEMPLATE_ERROR = (
        "template_error",
        400,
        False,
        "The template failed while filling in the data: fix the template or the "
        f"data where the message says, {_RESUBMIT}",
    )
    RENDER_ERROR = (
        "render_error",
        400,
        False,
        f"Check the template, data or options the message points to, {_RESUBMIT}",
    )
    LAYOUT_ERROR = (
        "layout_error",
        400,
        False,
        "Let the element the message names break across pages (or make it "
        "smaller), or choose the weasyprint or chromium renderer, then submit again.",
    )
    LIMIT_EXCEEDED = (
        "limit_exceeded",
        400,
        False,
        "The report went past the limit the message names: make it smaller "
        "(fewer pages, rows or charts) or split it into several reports.",
    )
    TOO_LARGE = (
        "too_large",
        413,
        False,
        "The template or data is larger than allowed: make it smaller or split it.",
    )
    # A render past its time limit: a later attempt can succeed.
    TIMEOUT = (
        "timeout",
        None,
        True,
        "The render took longer than its time limit: retry once the workers are "
        "less busy; if it fails again, make the report smaller or split it.",
    )
    # Document options: profiles, e-invoices, signatures (issue 21).
    PROFILE_UNSUPPORTED = (
        "profile_unsupported",
        400,
        False,
        "Choose a renderer that can produce the profile (the message names them), or drop"
        " options.pdf.profile, then submit again.",
    )
    UNKNOWN_PROFILE = (
        "unknown_profile",
        400,
        False,
        "Use one of the profiles the message lists in options.pdf.profile, then submit again.",
    )
    E_INVOICE_INVALID = (
        "e_invoice_invalid",
        422,
        False,
        "Fix the invoice XML where the schema's message says (Factur-X / ZUGFeRD CII for "
        "the profile named), then submit again.",
    )
    E_INVOICE_TOO_LARGE = (
        "e_invoice_too_large",
        413,
        False,
        "Send a smaller invoice XML (the message gives the limit).",
    )
    INVALID_CERTIFICATE = (
        "invalid_certificate",
        400,
        False,
        "Upload a PKCS#12 file (.p12/.pfx) with its right password.",
    )
    CERTIFICATE_EXPIRED = (
        "certificate_expired",
        400,
        False,
        "Upload a certificate that is valid now, and sign with it.",
    )
    TIMESTAMP_FAILED = (
        "timestamp_failed",
        None,
        False,
        "Point the sign step's timestamp_url at an RFC 3161 timestamp authority (it must "
        "answer application/timestamp-reply), or drop it, then submit again.",
    )
    COMPLIANCE_FAILED = (
        "compliance_failed",
        None,
        False,
        "Change the template or options so the check the message names passes (e.g. no "
        "transparency or encryption in PDF/A), then submit again.",
    )
