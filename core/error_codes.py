"""The API's own error codes, those of any HTTP answer (not found, not signed in, throttled,
a server failure): each with its HTTP status and what a person should do about it, as
rendering.error_codes gives rendering's (docs/reference/errors.md). DRF's own exceptions
answer with these (core.exception_handler)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class ApiErrorCode(StrEnum):
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
    # How often.
    THROTTLED = "throttled"
    # Our side: a later attempt can succeed.
    SERVER_ERROR = "server_error"


CODES: dict[ApiErrorCode, CodeInfo] = {
    ApiErrorCode.NOT_FOUND: CodeInfo(
        404, False, "Check the id or slug; another caller's jobs and templates are not visible."
    ),
    ApiErrorCode.EXPIRED: CodeInfo(
        410, False, "The PDF was deleted by retention: submit the report again."
    ),
    ApiErrorCode.CONFLICT: CodeInfo(
        409,
        False,
        "The thing is not in a state that allows this (the message says which): "
        "choose another slug, or wait for the job's state.",
    ),
    ApiErrorCode.METHOD_NOT_ALLOWED: CodeInfo(
        405, False, "Use the method the API reference gives for this path."
    ),
    ApiErrorCode.NOT_ACCEPTABLE: CodeInfo(
        406, False, "Ask for application/json (or leave the Accept header out)."
    ),
    ApiErrorCode.UNSUPPORTED_MEDIA_TYPE: CodeInfo(
        415, False, "Send the body as JSON with Content-Type: application/json."
    ),
    ApiErrorCode.NOT_AUTHENTICATED: CodeInfo(
        401, False, "Send your API key in the X-API-Key header (or sign in)."
    ),
    ApiErrorCode.AUTHENTICATION_FAILED: CodeInfo(
        401,
        False,
        "The API key is wrong or revoked: create one on the API keys page and "
        "send it in the X-API-Key header.",
    ),
    ApiErrorCode.PERMISSION_DENIED: CodeInfo(
        403, False, "Your account may not do this; ask an operator."
    ),
    ApiErrorCode.THROTTLED: CodeInfo(
        429, True, "Too many requests for the limit named in `limit`: wait Retry-After seconds."
    ),
    ApiErrorCode.SERVER_ERROR: CodeInfo(
        500, True, "The server failed; the error is logged. Try again later."
    ),
}
