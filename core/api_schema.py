"""The error answer every operation may give, added to the generated OpenAPI schema."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "error": {"type": "string", "description": "What went wrong, for a person to read."},
        "code": {"type": "string", "description": "A stable machine-readable code."},
        "line": {"type": "integer", "description": "Template line of a syntax error."},
        "fields": {"type": "object", "description": "Per-field messages of invalid input."},
    },
    "required": ["error", "code"],
}


def error_responses_postprocess(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: every operation may answer an error with `{error, code}`."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    error = {
        "description": "An error a caller can act on: bad input (4xx) with its message.",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            operation.get("responses", {}).setdefault("default", error)
    return result
