"""The vendor bases: each route keeps its vendor's credentials and its rate (a submit is
throttled as a submit, a status or download read as a read)."""

from __future__ import annotations

import pytest
from django.urls import resolve, reverse

from accounts.authentication import DocRaptorKeyAuthentication, DropInKeyAuthentication
from accounts.throttles import StatusReadThrottle, SubmitThrottle

ID = "00000000-0000-0000-0000-000000000000"
ROUTES = [
    ("gotenberg:html", {}, DropInKeyAuthentication, SubmitThrottle),
    ("gotenberg:url", {}, DropInKeyAuthentication, SubmitThrottle),
    ("gotenberg:markdown", {}, DropInKeyAuthentication, SubmitThrottle),
    ("jsreport:report", {}, DropInKeyAuthentication, SubmitThrottle),
    ("jsreport:status", {"report_id": ID}, DropInKeyAuthentication, StatusReadThrottle),
    ("jsreport:content", {"report_id": ID}, DropInKeyAuthentication, StatusReadThrottle),
    ("docraptor:docs", {}, DocRaptorKeyAuthentication, SubmitThrottle),
    ("docraptor:async-docs", {}, DocRaptorKeyAuthentication, SubmitThrottle),
    ("docraptor:status", {"status_id": ID}, DocRaptorKeyAuthentication, StatusReadThrottle),
    ("docraptor:download", {"download_id": ID}, DocRaptorKeyAuthentication, StatusReadThrottle),
]


@pytest.mark.parametrize(("name", "kwargs", "authentication", "throttle"), ROUTES)
def test_each_route_keeps_its_vendors_key_and_its_rate(name, kwargs, authentication, throttle):
    view = resolve(reverse(name, kwargs=kwargs)).func.view_class
    assert view.authentication_classes == [authentication]
    assert view.throttle_classes == [throttle]


def test_the_paths_stay_where_the_vendors_clients_look():
    assert (
        reverse("jsreport:content", kwargs={"report_id": ID}) == f"/jsreport/reports/{ID}/content"
    )
    assert reverse("docraptor:download", kwargs={"download_id": ID}) == f"/docraptor/download/{ID}"
    assert reverse("gotenberg:html") == "/gotenberg/forms/chromium/convert/html"
