"""The API's own error codes, those of any HTTP answer (not found, not signed in, throttled,
a server failure): each with its HTTP status and what a person should do about it, as
rendering.error_codes gives rendering's (docs/reference/errors.md). DRF's own exceptions
answer with these (core.exception_handler)."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class ApiErrorCode(CodeEnum):
    # What the request points at.
    NOT_FOUND = (
        "not_found",
        404,
        False,
        "Check the id or slug; another caller's jobs and templates are not visible.",
    )
    EXPIRED = ("expired", 410, False, "The PDF was deleted by retention: submit the report again.")
    CONFLICT = (
        "conflict",
        409,
        False,
        "The thing is not in a state that allows this (the message says which): "
        "choose another slug, or wait for the job's state.",
    )
    METHOD_NOT_ALLOWED = (
        "method_not_allowed",
        405,
        False,
        "Use the method the API reference gives for this path.",
    )
    NOT_ACCEPTABLE = (
        "not_acceptable",
        406,
        False,
        "Ask for application/json (or leave the Accept header out).",
    )
    UNSUPPORTED_MEDIA_TYPE = (
        "unsupported_media_type",
        415,
        False,
        "Send the body as JSON with Content-Type: application/json.",
    )
    # Who is asking.
    NOT_AUTHENTICATED = (
        "not_authenticated",
        401,
        False,
        "Send your API key in the X-API-Key header (or sign in).",
    )
    AUTHENTICATION_FAILED = (
        "authentication_failed",
        401,
        False,
        "The API key is wrong or revoked: create one on the API keys page and "
        "send it in the X-API-Key header.",
    )
    PERMISSION_DENIED = (
        "permission_denied",
        403,
        False,
        "Your account may not do this; ask an operator.",
    )
    # How often.
    THROTTLED = (
        "throttled",
        429,
        True,
        "Too many requests for the limit named in `limit`: wait Retry-After seconds.",
    )
    # Our side: a later attempt can succeed.
    SERVER_ERROR = (
        "server_error",
        500,
        True,
        "The server failed; the error is logged. Try again later.",
    )
