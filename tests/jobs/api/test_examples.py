"""The API reference holds: every operation has a summary and a readable id, the SSE
streams are in it, the renderer enum says what each renderer is, and every documented
request example, sent as written, gets the status the reference gives it."""

from __future__ import annotations

import re

import pytest

from jobs.models import PdfJob
from reports.api.examples import EXAMPLE_SLUG
from reports.samples import template_sync_samples

pytestmark = pytest.mark.django_db
METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def schema(api) -> dict:
    response = api.get("/api/v1/schema", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_every_operation_has_a_summary_and_a_readable_id(schema):
    ids = []
    for path, method, operation in _operations(schema):
        assert operation.get("summary"), (method, path)
        ids.append(operation["operationId"])
        # Named for the thing and the verb, not drf-spectacular's path-derived ids
        # (`jobs_retrieve_2`, `templates_partial_update`).
        assert re.fullmatch(
            r"(job|template|signing_certificate|usage|schedule|run|audit|workspace|gotenberg|jsreport|docraptor)_[a-z_]+",
            operation["operationId"],
        ), path
        assert not re.search(r"retrieve|partial_update|destroy|_\d", operation["operationId"])
    assert len(ids) == len(set(ids))


def test_the_sse_streams_are_documented(schema):
    for path in ("/api/v1/jobs/{job_id}/events", "/api/v1/jobs/events"):
        responses = schema["paths"][path]["get"]["responses"]
        assert "text/event-stream" in responses["200"]["content"], path


def test_the_renderer_enum_says_what_each_renderer_is(schema):
    renderer = schema["components"]["schemas"]["RendererEnum"]
    assert renderer["enum"] == ["xhtml2pdf", "weasyprint", "chromium"]
    for name in renderer["enum"]:
        assert re.search(rf"`{name}` - \w+", renderer["description"]), name
    assert "pdf:" in renderer["description"]  # says which one reads xhtml2pdf's tags


def _request_examples(schema: dict):
    """(method, path, example name, body, documented success status), in schema order but
    the template's creation first: the later template examples use it."""
    found = []
    for path, method, operation in _operations(schema):
        content = operation.get("requestBody", {}).get("content", {})
        examples = content.get("application/json", {}).get("examples", {})
        status = min(int(code) for code in operation["responses"] if code.startswith("2"))
        url = path.replace("{slug}", EXAMPLE_SLUG)
        found += [(method, url, name, ex["value"], status) for name, ex in examples.items()]
    return sorted(found, key=lambda item: item[0:2] != ("post", "/api/v1/templates"))


def test_every_documented_request_example_works_as_written(api, schema):
    template_sync_samples()  # the built-in template one example names
    examples = _request_examples(schema)
    assert {path for _, path, *_ in examples} >= {
        "/api/v1/generate-pdf-async",
        "/api/v1/generate-pdf-batch",
        "/api/v1/templates",
        f"/api/v1/templates/{EXAMPLE_SLUG}",
        f"/api/v1/templates/{EXAMPLE_SLUG}/preview",
    }
    for method, path, name, body, status in examples:
        response = getattr(api, method)(path, body, format="json")
        assert response.status_code == status, (name, response.content[:300])
    assert PdfJob.objects.count() == 4  # two single submits, one batch of two


def test_the_submit_examples_send_one_source_each(schema):
    operation = schema["paths"]["/api/v1/generate-pdf-async"]["post"]
    examples = operation["requestBody"]["content"]["application/json"]["examples"]
    assert len(examples) >= 2
    for example in examples.values():
        sources = {"html_template", "template"} & set(example["value"])
        assert len(sources) == 1, example
