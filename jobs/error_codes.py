"""The jobs app's error codes (submits): each with its HTTP status and what a person
should do about it, as rendering.error_codes gives its own (docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class JobErrorCode(StrEnum):
    IDEMPOTENCY_KEY_REUSED = "idempotency_key_reused"
    CALLBACK_NEEDS_API_KEY = "callback_needs_api_key"


CODES: dict[JobErrorCode, CodeInfo] = {
    JobErrorCode.IDEMPOTENCY_KEY_REUSED: CodeInfo(
        422,
        False,
        "Use a new Idempotency-Key for a new request; resend the same body to get the earlier job.",
    ),
    JobErrorCode.CALLBACK_NEEDS_API_KEY: CodeInfo(
        400,
        False,
        "Submit with an X-API-Key (its webhook secret signs the callbacks), or "
        "leave callback_url out.",
    ),
}
