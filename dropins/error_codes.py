"""The dropins app's error codes (the vendor-compatible routes), declared as rendering's are."""

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
