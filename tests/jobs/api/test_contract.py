"""What the OpenAPI contract promises beyond the happy path: typed JSON input, validated
query filters, a JSON error (never an HTML page) for every API answer, documented errors."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from reports.samples import template_sync_samples

SUBMIT = "/api/v1/generate-pdf-async"


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/v1/jobs?status=bogus", "status"),
        ("/api/v1/templates/?archived=maybe", "archived"),
        ("/api/v1/templates/?archived=", "archived"),
    ],
)
def test_a_bad_query_filter_is_a_400_naming_it(api, url, field):
    response = api.get(url)
    assert response.status_code == 400
    assert response.json()["error"].startswith(f"{field}: ")


def test_valid_filters_still_filter(api):
    assert api.get("/api/v1/jobs?status=failed").json()["count"] == 0
    assert api.get("/api/v1/templates/?archived=true").status_code == 200


@pytest.mark.parametrize(
    ("url", "body", "message"),
    [
        (SUBMIT, {"template": 7}, "template: Must be a string."),
        (SUBMIT, {"html_template": ["<p/>"]}, "html_template: Must be a string."),
        ("/api/v1/templates/", {"slug": 0, "name": "n", "html": "x"}, "slug: Must be a string."),
        ("/api/v1/templates/invoice/preview", {"width": "300"}, "width: Must be an integer."),
        ("/api/v1/templates/invoice/preview", {"width": True}, "width: Must be an integer."),
    ],
)
def test_json_input_must_have_the_documented_type(api, url, body, message):
    template_sync_samples()
    response = api.post(url, body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message


def test_a_body_that_is_not_an_object_has_no_per_field_messages(api):
    response = api.post(SUBMIT, [1, 2], format="json")
    assert response.status_code == 400
    assert response.json() == {
        "error": "The request body must be a JSON object.",
        "code": "invalid_data",
    }


def test_an_unknown_api_path_answers_json_404(api):
    response = api.get("/api/v1/templates/%C2%97w/preview")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "not_found"
    page = APIClient().get("/no-such-page/")
    assert page.status_code == 404
    assert page["Content-Type"].startswith("text/html")


def test_every_operation_documents_the_error_answer(api):
    schema = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["components"]["schemas"]["Error"]["required"] == ["error", "code"]
    for operations in schema["paths"].values():
        for operation in operations.values():
            error = operation["responses"]["default"]["content"]["application/json"]["schema"]
            assert error == {"$ref": "#/components/schemas/Error"}
    page = schema["components"]["schemas"]["PaginatedJobList"]
    assert page["properties"]["results"]["items"] == {"$ref": "#/components/schemas/JobOutput"}
    options = schema["components"]["schemas"]["JobCreateRequest"]["properties"]["options"]
    assert options["additionalProperties"] is False
    assert "page_size" in options["properties"]


@pytest.mark.parametrize(
    ("url", "body", "message"),
    [
        (SUBMIT, '{"html_template": "<p/>", "data": {"a\\u0000": 1}}', "data contains a NUL"),
        (SUBMIT, '{"html_template": "<p/>", "data": {"a": ["\\ud800"]}}', "unpaired UTF-16"),
        (
            "/api/v1/templates/",
            '{"slug": "s", "name": "n", "html": "x", "sample_data": {"k": "v\\u0000"}}',
            "sample_data contains a NUL",
        ),
    ],
)
def test_json_postgresql_cannot_store_is_a_400_not_a_500(api, url, body, message):
    """Found by the contract fuzz run: jsonb refuses \\u0000, UTF-8 a lone surrogate."""
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400
    assert message in response.json()["error"]
