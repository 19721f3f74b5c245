"""Request examples of the template API in its OpenAPI schema, each one a request that
works as written, in this order (tests/jobs/api/test_examples.py sends every one)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

EXAMPLE_SLUG = "letter"  # the template the create example makes; the later ones use it


def template_create_examples() -> list[OpenApiExample]:
    return [
        OpenApiExample(
            "A letter with a schema",
            value={
                "slug": EXAMPLE_SLUG,
                "name": "Letter",
                "html": "<h1>Dear {{who}}</h1><p>{{body}}</p>",
                "schema": {
                    "type": "object",
                    "required": ["who"],
                    "properties": {"who": {"type": "string"}, "body": {"type": "string"}},
                },
                "sample_data": {"who": "Ada", "body": "Thank you for your order."},
            },
            request_only=True,
        )
    ]


def template_update_examples() -> list[OpenApiExample]:
    return [
        OpenApiExample(
            "New HTML",
            value={"html": "<h1>Dear {{who}},</h1><p>{{body}}</p>"},
            request_only=True,
        )
    ]


def template_preview_examples() -> list[OpenApiExample]:
    return [
        OpenApiExample(
            "Preview with other data",
            value={"data": {"who": "Grace"}, "width": 400},
            request_only=True,
        )
    ]
