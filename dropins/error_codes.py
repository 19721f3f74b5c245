"""The dropins app's error codes (the vendor-compatible routes): each with its HTTP status
and what a person should do about it, as rendering.error_codes gives its own
(docs/reference/errors.md)."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class DropinErrorCode(CodeEnum):
    STILL_RENDERING = (
        "still_rendering",
        504,
        True,
        "The job goes on: fetch its PDF from GET /api/v1/jobs/{id} when it is done, or use "
        "the route's async mode.",
    )
