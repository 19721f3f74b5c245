"""The template library API: versions, archive, scoping to the caller, and the PNG preview."""

from __future__ import annotations

import io

import pytest
from PIL import Image
from rest_framework.test import APIClient

from accounts.services import api_key_create
from reports.samples import template_sync_samples
from tests.factories import ReportTemplateFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/v1/templates"
SCHEMA = {"type": "object", "required": ["who"], "properties": {"who": {"type": "string"}}}


def _create(api, **fields):
    body = {"slug": "hello", "name": "Hello", "html": "<h1>Hi {{who}}</h1>", "schema": SCHEMA}
    body["sample_data"] = {"who": "Ada"}
    return api.post(URL, body | fields, format="json")


def test_create_list_and_read_a_template(api):
    created = _create(api)
    assert created.status_code == 201, created.json()
    assert created.json()["version"] == 1
    assert created.json()["schema"] == SCHEMA
    slugs = [t["slug"] for t in api.get(URL).json()]
    assert "hello" in slugs
    assert api.get(f"{URL}/hello").json()["sample_data"] == {"who": "Ada"}


def test_update_makes_a_new_version_and_lists_versions(api):
    _create(api)
    response = api.patch(f"{URL}/hello", {"html": "<h2>Hello {{who}}</h2>"}, format="json")
    assert response.status_code == 200
    assert (response.json()["version"], response.json()["draft_version"]) == (1, 2)
    versions = api.get(f"{URL}/hello/versions").json()
    assert [v["number"] for v in versions] == [2, 1]


def test_invalid_template_is_a_400_with_the_line(api):
    response = _create(api, html="<p>\n\n{{#if x}}</p>")
    assert response.status_code == 400
    assert response.json()["code"] == "template_syntax"
    assert response.json()["line"] == 3


def test_sample_data_against_the_schema_and_bad_schema_are_400(api):
    refused = _create(api, sample_data={"who": 5}).json()
    assert "who: expected string" in refused["error"]
    assert refused["code"] == "invalid_data"
    assert _create(api, sample_data=[1]).json()["code"] == "invalid_data"
    assert _create(api, schema={"type": 12}).json()["code"] == "invalid_schema"


def test_a_template_with_a_schema_needs_no_sample_data(api):
    body = {"slug": "bare", "name": "Bare", "html": "<h1>Hi {{who}}</h1>", "schema": SCHEMA}
    created = api.post(URL, body, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["sample_data"] == {}
    submit = api.post(
        "/api/v1/generate-pdf-async", {"template": "bare", "data": {"who": "Ada"}}, format="json"
    )
    assert submit.status_code == 202


def test_preview_without_any_data_asks_for_data(api):
    api.post(URL, {"slug": "bare", "name": "Bare", "html": "<h1>{{who}}</h1>"}, format="json")
    response = api.post(f"{URL}/bare/preview", {}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_data"
    assert "no sample data" in response.json()["error"]
    assert '"data"' in response.json()["error"]
    given = api.post(f"{URL}/bare/preview", {"data": {"who": "Ada"}}, format="json")
    assert given.status_code == 200
    assert given["Content-Type"] == "image/png"


def test_every_validation_failure_is_invalid_data(api):
    missing_field = api.post(URL, {"slug": "x", "name": "X"}, format="json")
    assert missing_field.status_code == 400
    assert missing_field.json()["code"] == "invalid_data"
    not_an_object = api.post(
        "/api/v1/generate-pdf-async", {"html_template": "<p>x</p>", "data": [1]}, format="json"
    )
    assert not_an_object.json()["code"] == "invalid_data"
    _create(api)
    bad_preview = api.post(f"{URL}/hello/preview", {"data": [1]}, format="json")
    assert bad_preview.status_code == 400
    assert bad_preview.json()["code"] == "invalid_data"


def test_archive_hides_the_template_and_refuses_jobs_until_restored(api):
    _create(api)
    assert api.delete(f"{URL}/hello").json()["archived"] is True
    assert "hello" not in [t["slug"] for t in api.get(URL).json()]
    assert "hello" in [t["slug"] for t in api.get(URL, {"archived": "true"}).json()]
    submit = api.post(
        "/api/v1/generate-pdf-async", {"template": "hello", "data": {"who": "x"}}, format="json"
    )
    assert submit.status_code == 400
    assert submit.json()["code"] == "template_archived"
    assert api.post(f"{URL}/hello/restore").json()["archived"] is False


def test_submit_with_data_failing_the_schema_names_the_path(api):
    _create(api)
    response = api.post(
        "/api/v1/generate-pdf-async", {"template": "hello", "data": {"who": 3}}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"error": "who: expected string", "code": "invalid_data"}


def test_another_callers_template_is_invisible_and_builtins_are_read_only(api):
    ReportTemplateFactory(owner=UserFactory(), slug="theirs")
    assert api.get(f"{URL}/theirs").status_code == 404
    assert api.patch(f"{URL}/theirs", {"name": "x"}, format="json").status_code == 404
    template_sync_samples()
    response = api.patch(f"{URL}/invoice", {"name": "mine now"}, format="json")
    assert response.status_code == 403


def test_a_built_in_slug_cannot_be_taken_so_the_built_in_stays_reachable(api):
    template_sync_samples()
    refused = _create(api, slug="invoice", name="My invoice")
    assert refused.status_code == 409
    assert refused.json()["code"] == "conflict"
    assert "'invoice' is the slug of a built-in template" in refused.json()["error"]
    gallery = [t for t in api.get(URL).json() if t["slug"] == "invoice"]
    assert [t["builtin"] for t in gallery] == [True]


def test_a_slug_already_yours_is_a_409_conflict(api):
    assert _create(api).status_code == 201
    again = _create(api)
    assert again.status_code == 409
    assert again.json() == {
        "error": "You already have a template with slug 'hello'; choose another.",
        "code": "conflict",
    }


def test_patch_of_a_read_only_or_unknown_field_is_a_400_naming_it(api):
    _create(api)
    renamed = api.patch(f"{URL}/hello", {"slug": "other", "name": "X"}, format="json")
    assert renamed.status_code == 400
    assert renamed.json()["code"] == "invalid_data"
    assert "slug: This field is read-only" in renamed.json()["error"]
    unknown = api.patch(f"{URL}/hello", {"colour": "red", "builtin": True}, format="json")
    assert unknown.status_code == 400
    assert set(unknown.json()["fields"]) == {"colour", "builtin"}
    assert "Unknown field" in unknown.json()["fields"]["colour"][0]
    template = api.get(f"{URL}/hello").json()
    assert (template["slug"], template["name"], template["version"]) == ("hello", "Hello", 1)


def test_preview_returns_the_first_page_as_png(api):
    _create(api)
    response = api.post(f"{URL}/hello/preview", {"width": 300}, format="json")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    assert image.width == 300
    assert image.height > 400  # A4 portrait


def test_preview_with_given_data_is_checked_against_the_schema(api):
    _create(api)
    response = api.post(f"{URL}/hello/preview", {"data": {"who": 1}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": "who: expected string", "code": "invalid_data"}


def test_preview_is_held_to_its_own_time_limit(api, settings):
    settings.PDF_PREVIEW_MAX_SECONDS = 1
    rows = "".join(f"<tr><td>{i}</td><td>{'cell ' * 20}</td></tr>" for i in range(3000))
    _create(api, slug="slow", html=f"<table>{rows}</table>", schema={}, sample_data={})
    response = api.post(f"{URL}/slow/preview", {"data": {}}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "limit_exceeded"


def test_templates_need_authentication():
    assert APIClient().get(URL).status_code in (401, 403)
    user = UserFactory()
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=api_key_create(user=user, name="k")[1])
    assert client.get(URL).status_code == 200


def test_openapi_schema_documents_the_template_endpoints(api):
    response = api.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    paths = response.json()["paths"]
    assert {"/api/v1/templates", "/api/v1/templates/{slug}/preview"} <= set(paths)
    assert "200" in paths["/api/v1/templates/{slug}/preview"]["post"]["responses"]
    components = response.json()["components"]["schemas"]
    assert {
        "TemplateCreateRequest",
        "PatchedTemplateUpdateRequest",
        "TemplatePreviewRequest",
    } <= set(components)


@pytest.mark.parametrize("field", ["schema", "sample_data"])
@pytest.mark.parametrize("value", [False, [], 0, ""])
def test_a_falsy_non_object_schema_or_sample_data_is_refused(api, field, value):
    body = {"slug": "falsy", "name": "Falsy", "html": "<p>x</p>", field: value}
    response = api.post(URL, body, format="json")
    assert response.status_code == 400
    assert "must be a JSON object" in response.json()["error"]


def test_templates_say_which_renderers_they_are_made_for(api):
    template_sync_samples()
    sales = api.get(f"{URL}/sales-report").json()
    assert sales["renderers"] == ["xhtml2pdf"]
    made = _create(api, renderers=["weasyprint", "chromium"])
    assert made.status_code == 201, made.json()
    assert made.json()["renderers"] == ["weasyprint", "chromium"]
    refused = _create(api, slug="other", renderers=["prince"])
    assert refused.status_code == 400
    assert refused.json()["code"] == "invalid_data"


def test_preview_and_save_include_the_workspaces_own_templates_by_slug(api):
    block = '<div style="background-color: #000000; height: 300px; width: 100%">&nbsp;</div>'
    assert _create(api, slug="bar", html=block, schema={}, sample_data={}).status_code == 201
    assert _create(api, html="<h1>Hi {{who}}</h1>{{> bar}}").status_code == 201
    response = api.post(f"{URL}/hello/preview", {"width": 300}, format="json")
    assert response.status_code == 200
    image = Image.open(io.BytesIO(response.content)).convert("L")
    dark = sum(1 for pixel in image.get_flattened_data() if pixel < 64)
    assert dark > 300 * 50  # the partial's black block is drawn
    unsaved = api.post(f"{URL}/hello/preview", {"html": "{{> nope}}"}, format="json")
    assert unsaved.status_code == 400
    assert "no template 'nope' to include" in unsaved.json()["error"]
    saved = _create(api, slug="other", html="{{> nope}}")
    assert saved.status_code == 400
    assert saved.json()["code"] == "template_syntax"
    assert "'nope'" in saved.json()["error"]
