"""What the generated OpenAPI schema cannot see by itself: the Server-Sent Events streams
(plain Django views, not DRF ones) and the request examples, each one a request that
works as written (tests/jobs/api/test_examples.py sends every one)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter

from reports.samples import samples_dir

# The submit's and the conversion's header: a retried request gets the same job.
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    description="Repeat a submit safely: the same key and body return the same job.",
)

_EVENTS = {
    "description": (
        "A text/event-stream: first the current state, then one `data:` line of JSON (the "
        "job's state, as GET /api/v1/jobs/{job_id} answers it) per change, and a comment "
        "line every SSE_HEARTBEAT_SECONDS. Authenticate with X-API-Key (or the session)."
    ),
    "content": {"text/event-stream": {"schema": {"type": "string"}}},
}
_JOB_ID = {
    "name": "job_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string", "format": "uuid"},
}
SSE_PATHS: dict[str, dict[str, Any]] = {
    "/api/v1/jobs/{job_id}/events": {
        "get": {
            "operationId": "job_events",
            "summary": "Follow one job live (Server-Sent Events)",
            "description": "Ends after the job's final state. 401 without a caller, 404 for "
            "a job that is missing or someone else's, 429 too_many_streams past the limit.",
            "tags": ["api"],
            "parameters": [_JOB_ID],
            "responses": {"200": _EVENTS},
        }
    },
    "/api/v1/jobs/events": {
        "get": {
            "operationId": "job_events_all",
            "summary": "Follow all my jobs live (Server-Sent Events)",
            "description": "First the state of my 25 latest jobs, then every change of any "
            "of my jobs, new ones included; open until the client closes it.",
            "tags": ["api"],
            "responses": {"200": _EVENTS},
        }
    },
}


def sse_paths_postprocess(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular hook: the SSE streams in the schema, beside the REST operations."""
    result.setdefault("paths", {}).update(SSE_PATHS)
    return result


@cache
def _invoice_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((samples_dir() / "invoice.json").read_text("utf-8"))
    return data


def submit_examples() -> list[OpenApiExample]:
    """Each sends one of html_template or template, never both (that is a 400)."""
    return [
        OpenApiExample(
            "Inline template",
            value={
                "html_template": "<h1>Hello {{name}}</h1><p>Your report is ready.</p>",
                "data": {"name": "Ada"},
            },
            request_only=True,
        ),
        OpenApiExample(
            "Built-in template",
            value={"template": "invoice", "data": _invoice_data(), "renderer": "weasyprint"},
            request_only=True,
        ),
    ]


def batch_examples() -> list[OpenApiExample]:
    return [
        OpenApiExample(
            "Two inline reports",
            value={
                "items": [
                    {"html_template": "<h1>{{n}}</h1>", "data": {"n": 1}},
                    {"html_template": "<h1>{{n}}</h1>", "data": {"n": 2}},
                ]
            },
            request_only=True,
        )
    ]
