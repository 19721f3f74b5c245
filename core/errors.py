"""The API's errors beside rendering's: what a request points at is missing, gone or in the
wrong state, or a per-workspace limit was reached. All are the one ApplicationError, with
the API's codes (core.error_codes)."""

from __future__ import annotations

from enum import StrEnum

from core.error_codes import ApiErrorCode
from rendering.errors import ApplicationError


class NotFound(ApplicationError):
    code = ApiErrorCode.NOT_FOUND
    http_status = 404


class Gone(ApplicationError):
    """It existed and was deleted on purpose (an expired PDF)."""

    code = ApiErrorCode.EXPIRED
    http_status = 410


class Conflict(ApplicationError):
    code = ApiErrorCode.CONFLICT
    http_status = 409


class LimitReached(ApplicationError):
    """429: a per-workspace limit set by a setting was reached; the body names the
    setting (`limit`)."""

    http_status = 429
    code: StrEnum = ApiErrorCode.THROTTLED
    limit = ""  # the setting's name

    def __init__(self, message: str) -> None:
        super().__init__(message, details={"limit": self.limit})
