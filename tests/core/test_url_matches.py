"""core.url_matches: a kept URL match is the one Django resolves, one copy per request."""

from __future__ import annotations

import pytest
from django.test import RequestFactory, override_settings
from django.urls import Resolver404, get_resolver, set_urlconf

from core import url_matches

_PATHS = [
    "/api/v1/generate-pdf-async",
    "/api/v1/jobs",
    "/api/v1/jobs/events",
    "/api/v1/jobs/0f0e3a7e-5a9e-4d0b-9d7e-1a2b3c4d5e6f",
]
_SAME = (
    "func",
    "args",
    "kwargs",
    "url_name",
    "route",
    "app_names",
    "app_name",
    "namespaces",
    "namespace",
    "view_name",
    "_func_path",
    "tried",
    "captured_kwargs",
    "extra_kwargs",
)


@pytest.mark.parametrize("path", _PATHS)
def test_a_kept_match_is_the_one_django_resolves(path):
    expected = get_resolver().resolve(path)
    for _ in range(2):  # resolved, then kept
        request = RequestFactory().get(path)
        match = url_matches.resolve_request(request)
        assert request.resolver_match is match
        assert {name: getattr(match, name) for name in _SAME} == {
            name: getattr(expected, name) for name in _SAME
        }


def test_the_second_request_of_a_path_is_not_resolved_again():
    path = "/api/v1/jobs/5f0e3a7e-5a9e-4d0b-9d7e-1a2b3c4d5e6f"
    url_matches.resolve_request(RequestFactory().get(path))
    hits = url_matches._match.cache_info().hits
    url_matches.resolve_request(RequestFactory().get(path))
    assert url_matches._match.cache_info().hits == hits + 1


def test_each_request_gets_a_match_of_its_own():
    path = "/api/v1/jobs/6f0e3a7e-5a9e-4d0b-9d7e-1a2b3c4d5e6f"
    first = url_matches.resolve_request(RequestFactory().get(path))
    first.kwargs["job_id"] = "changed by a middleware"
    first.app_names.append("changed")
    second = url_matches.resolve_request(RequestFactory().get(path))
    assert second is not first
    assert second.kwargs == {"job_id": "6f0e3a7e-5a9e-4d0b-9d7e-1a2b3c4d5e6f"}
    assert "changed" not in second.app_names


def test_a_path_that_matches_nothing_is_a_404_every_time():
    for _ in range(2):
        with pytest.raises(Resolver404):
            url_matches.resolve_request(RequestFactory().get("/no/such/path"))


def test_another_urlconf_resolves_with_its_own_patterns():
    """The same path, resolved under the settings' urlconf, another one set by
    override_settings (Django clears its resolvers) and a request's own urlconf."""
    path = "/sync/word"
    with pytest.raises(Resolver404):
        url_matches.resolve_request(RequestFactory().get(path))
    with override_settings(ROOT_URLCONF="tests.core.asgi_handler_urls"):
        match = url_matches.resolve_request(RequestFactory().get(path))
        assert (match.url_name, match.kwargs) == ("sync-view", {"word": "word"})
    with pytest.raises(Resolver404):
        url_matches.resolve_request(RequestFactory().get(path))
    request = RequestFactory().get(path)
    request.urlconf = "tests.core.asgi_handler_urls"
    try:
        assert url_matches.resolve_request(request).url_name == "sync-view"
    finally:
        set_urlconf(None)  # as the request's end does (request_finished)
    with pytest.raises(Resolver404):
        url_matches.resolve_request(RequestFactory().get(path))
