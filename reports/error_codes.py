"""The reports app's error codes: templates, their schemas and data checks, their previews."""

from __future__ import annotations

from rendering.error_codes import CodeEnum


class TemplateErrorCode(CodeEnum):
    READ_ONLY = (
        "read_only",
        403,
        False,
        "Built-in templates cannot be changed: create your own copy.",
    )
    PREVIEW_TIMEOUT = (
        "preview_timeout",
        503,
        True,
        "The preview workers are busy or the template is slow: try again shortly.",
    )
    PREVIEWS_BUSY = (
        "previews_busy",
        429,
        True,
        "Your previews are already queued: wait Retry-After seconds, then ask again.",
    )
    INVALID_SCHEMA = (
        "invalid_schema",
        400,
        False,
        "Fix the template's JSON Schema where the message says, then save again.",
    )
    UNKNOWN_TEMPLATE = (
        "unknown_template",
        400,
        False,
        "Use the slug of one of your templates or a built-in one "
        "(GET /api/v1/templates lists them).",
    )
    TEMPLATE_ARCHIVED = (
        "template_archived",
        400,
        False,
        "Restore the template (POST /api/v1/templates/{slug}/restore) or use another.",
    )
    TOO_DEEP = (
        "too_deep",
        400,
        False,
        "The data is nested too deeply: flatten it, then submit the report again.",
    )
    SCHEMA_TOO_SLOW = (
        "schema_too_slow",
        400,
        False,
        "Simplify the template's schema (anyOf/oneOf, $ref recursion) so data is "
        "checked within PDF_SCHEMA_VALIDATION_MS.",
    )
