"""The reports app's error codes (templates and their previews): each with its HTTP status
and what a person should do about it, as rendering.error_codes gives its own
(docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class TemplateErrorCode(StrEnum):
    READ_ONLY = "read_only"
    PREVIEW_TIMEOUT = "preview_timeout"
    PREVIEWS_BUSY = "previews_busy"


CODES: dict[TemplateErrorCode, CodeInfo] = {
    TemplateErrorCode.READ_ONLY: CodeInfo(
        403, False, "Built-in templates cannot be changed: create your own copy."
    ),
    TemplateErrorCode.PREVIEW_TIMEOUT: CodeInfo(
        503, True, "The preview workers are busy or the template is slow: try again shortly."
    ),
    TemplateErrorCode.PREVIEWS_BUSY: CodeInfo(
        429, True, "Your previews are already queued: wait Retry-After seconds, then ask again."
    ),
}
