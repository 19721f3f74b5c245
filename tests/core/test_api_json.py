"""Every answer under /api/ is JSON, DEBUG on or off: unknown paths, 405s, 500s."""

from __future__ import annotations

import pytest
from django.test import Client

DEBUG_ON_AND_OFF = pytest.mark.parametrize("debug", [True, False], ids=["debug", "no-debug"])


def _json_error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    body = response.json()
    assert set(body) >= {"error", "code"}
    return body


@DEBUG_ON_AND_OFF
@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/api/nothing", "/api/v1/no-such-thing", "/api/v1/templates/a/b/c", "/api/v2/jobs"]
)
def test_unknown_api_path_is_json_404(settings, debug, path):
    settings.DEBUG = debug
    response = Client().get(path)
    assert response.status_code == 404
    body = _json_error(response)
    assert body == {"error": f"There is no API endpoint at {path}.", "code": "not_found"}


@DEBUG_ON_AND_OFF
@pytest.mark.django_db
def test_unknown_page_outside_the_api_stays_html(settings, debug):
    settings.DEBUG = debug
    response = Client().get("/no-such-page")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


@DEBUG_ON_AND_OFF
@pytest.mark.django_db
def test_wrong_method_on_a_stream_is_json_405_naming_the_allowed_one(settings, debug, api_key):
    settings.DEBUG = debug
    response = Client().post("/api/v1/jobs/events", HTTP_X_API_KEY=api_key)
    assert response.status_code == 405
    body = _json_error(response)
    assert body["code"] == "method_not_allowed"
    assert body["error"] == "POST is not allowed on /api/v1/jobs/events; use GET."
    assert response["Allow"] == "GET"


@DEBUG_ON_AND_OFF
@pytest.mark.django_db
def test_wrong_method_on_a_drf_view_is_json_405(settings, debug, api):
    settings.DEBUG = debug
    response = api.delete("/api/v1/generate-pdf-async")
    assert response.status_code == 405
    assert _json_error(response)["code"] == "method_not_allowed"


@DEBUG_ON_AND_OFF
@pytest.mark.django_db
@pytest.mark.urls("tests.core.raising_urls")
@pytest.mark.parametrize("path", ["/api/v1/test-django-boom", "/api/v1/test-drf-boom"])
def test_a_bug_is_json_500_without_the_traceback(settings, debug, path, caplog):
    settings.DEBUG = debug
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code == 500
    body = _json_error(response)
    assert body["code"] == "server_error"
    assert "Traceback" not in response.content.decode()
    assert "a bug in" not in response.content.decode()
    # Django still logs it, traceback included, as with any 500.
    logged = [r for r in caplog.records if r.name == "django.request" and r.levelname == "ERROR"]
    assert logged
    assert logged[0].exc_info is not None


@pytest.mark.django_db
def test_api_successes_and_json_errors_pass_through_untouched(api):
    response = api.get("/api/v1/jobs/00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert response.json()["error"].startswith("No job")  # the view's own message, kept
    schema = api.get("/api/v1/schema")
    assert schema.status_code == 200
    assert "openapi" in schema.content.decode()[:200]
