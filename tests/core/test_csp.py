"""core.csp.CSPMiddleware: the same headers as django-csp's own middleware, with the plain
policies built once for the current settings."""

from __future__ import annotations

from typing import Any

import pytest
from csp.middleware import CSPMiddleware as DjangoCSPMiddleware
from django.http import HttpResponse, JsonResponse
from django.test import RequestFactory, override_settings

from core.csp import CSPMiddleware, plain_policies


def _respond(middleware_class: type, path: str, response: Any, *, nonce: bool = False) -> Any:
    middleware = middleware_class(lambda request: response)
    request = RequestFactory().get(path)
    middleware.process_request(request)
    if nonce:
        str(request.csp_nonce)  # a template asked for it
    answer = middleware.process_response(request, response)
    return request, answer


def _responses() -> list[tuple[str, Any]]:
    exempt = HttpResponse("x")
    exempt._csp_exempt = True  # type: ignore[attr-defined]
    updated = HttpResponse("docs")
    updated._csp_update = {"style-src": ["'unsafe-inline'"]}  # type: ignore[attr-defined]
    replaced = HttpResponse("docs")
    replaced._csp_replace = {"img-src": ["https://example.com"]}  # type: ignore[attr-defined]
    set_already = HttpResponse("x")
    set_already["Content-Security-Policy"] = "default-src 'none'"
    return [
        ("api", JsonResponse({"job_id": "x"}, status=202)),
        ("page", HttpResponse("<p>hi</p>")),
        ("not found", HttpResponse("gone", status=404)),
        ("exempt", exempt),
        ("updated", updated),
        ("replaced", replaced),
        ("set already", set_already),
    ]


HEADERS = ("Content-Security-Policy", "Content-Security-Policy-Report-Only")


@pytest.mark.parametrize("index", range(7))
@pytest.mark.parametrize("nonce", [False, True])
def test_the_same_headers_as_django_csps_middleware(index, nonce):
    (_, ours), (_, theirs) = _responses()[index], _responses()[index]
    _, ours = _respond(CSPMiddleware, "/api/v1/generate-pdf-async", ours, nonce=nonce)
    _, theirs = _respond(DjangoCSPMiddleware, "/api/v1/generate-pdf-async", theirs, nonce=nonce)
    for header in HEADERS:
        assert ours.get(header) == theirs.get(header)


def test_the_nonce_is_refused_after_the_header_as_django_csp_does():
    from csp.exceptions import CSPNonceError

    request, _ = _respond(CSPMiddleware, "/", HttpResponse("x"))
    with pytest.raises(CSPNonceError):
        str(request.csp_nonce)


def test_changed_settings_build_the_policies_again():
    before = plain_policies()
    policy = {"DIRECTIVES": {"default-src": ["'none'"]}, "EXCLUDE_URL_PREFIXES": ["/skip/"]}
    report = {"DIRECTIVES": {"default-src": ["'self'"], "report-uri": "/csp-report"}}
    with override_settings(
        CONTENT_SECURITY_POLICY=policy, CONTENT_SECURITY_POLICY_REPORT_ONLY=report
    ):
        assert plain_policies() != before
        for path in ("/page", "/skip/page"):
            _, ours = _respond(CSPMiddleware, path, HttpResponse("x"))
            _, theirs = _respond(DjangoCSPMiddleware, path, HttpResponse("x"))
            for header in HEADERS:
                assert ours.get(header) == theirs.get(header)
        _, skipped = _respond(CSPMiddleware, "/skip/page", HttpResponse("x"))
        assert "Content-Security-Policy" not in skipped
        assert "Content-Security-Policy-Report-Only" in skipped
    assert plain_policies() == before


def test_the_settings_use_this_middleware_in_django_csps_place():
    from django.conf import settings

    assert "core.csp.CSPMiddleware" in settings.MIDDLEWARE
    assert "csp.middleware.CSPMiddleware" not in settings.MIDDLEWARE
