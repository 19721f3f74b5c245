"""How operations are described in the generated OpenAPI schema: the error answer every
operation may give, and the one shape of an action on one thing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema

F = TypeVar("F", bound=Callable[..., Any])

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


def action_schema(operation_id: str, summary: str, responses: Any) -> Callable[[F], F]:
    """An action on one thing named in the path (retry, cancel, archive, publish, run now):
    it takes no request body and answers with `responses`."""
    decorate: Callable[[F], F] = extend_schema(
        operation_id=operation_id, summary=summary, request=None, responses=responses
    )
    return decorate
