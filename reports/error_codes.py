"""The reports app's error codes (templates, their schemas and data checks, their previews):
each with its HTTP status and what a person should do about it, as rendering.error_codes
gives its own (docs/reference/errors.md)."""

from __future__ import annotations

from enum import StrEnum

from rendering.error_codes import CodeInfo


class TemplateErrorCode(StrEnum):
    READ_ONLY = "read_only"
    PREVIEW_TIMEOUT = "preview_timeout"
    PREVIEWS_BUSY = "previews_busy"
    INVALID_SCHEMA = "invalid_schema"
    UNKNOWN_TEMPLATE = "unknown_template"
    TEMPLATE_ARCHIVED = "template_archived"
    TOO_DEEP = "too_deep"
    SCHEMA_TOO_SLOW = "schema_too_slow"


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
    TemplateErrorCode.INVALID_SCHEMA: CodeInfo(
        400, False, "Fix the template's JSON Schema where the message says, then save again."
    ),
    TemplateErrorCode.UNKNOWN_TEMPLATE: CodeInfo(
        400,
        False,
        "Use the slug of one of your templates or a built-in one "
        "(GET /api/v1/templates lists them).",
    ),
    TemplateErrorCode.TEMPLATE_ARCHIVED: CodeInfo(
        400, False, "Restore the template (POST /api/v1/templates/{slug}/restore) or use another."
    ),
    TemplateErrorCode.TOO_DEEP: CodeInfo(
        400, False, "The data is nested too deeply: flatten it, then submit the report again."
    ),
    TemplateErrorCode.SCHEMA_TOO_SLOW: CodeInfo(
        400,
        False,
        "Simplify the template's schema (anyOf/oneOf, $ref recursion) so data is "
        "checked within PDF_SCHEMA_VALIDATION_MS.",
    ),
}
