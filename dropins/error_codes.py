"""The dropins app's error codes (the vendor-compatible routes): each with its HTTP status
and what a person should do about it, as rendering.error_codes gives its own
(docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class DropinErrorCode(StrEnum):
    STILL_RENDERING = "still_rendering"


CODES: dict[DropinErrorCode, CodeInfo] = {
    DropinErrorCode.STILL_RENDERING: CodeInfo(
        504,
        True,
        "The job goes on: fetch its PDF from GET /api/v1/jobs/{id} when it is done, or use "
        "the route's async mode.",
    ),
}
