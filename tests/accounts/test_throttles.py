"""Request-rate limits per tenant (all its keys), counted in Redis, 429 with Retry-After."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_key_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
BODY = {"html_template": "<p>{{n}}</p>", "data": {"n": 1}}


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=key)
    return client


def test_submits_past_the_key_rate_are_429_with_retry_after(user, settings):
    settings.API_RATE_SUBMIT = "3/min"
    client = _client(api_key_create(user=user, name="a")[1])
    codes = [
        client.post("/api/v1/generate-pdf-async", BODY, format="json").status_code for _ in range(4)
    ]
    assert codes == [202, 202, 202, 429]
    refused = client.post("/api/v1/generate-pdf-async", BODY, format="json")
    assert 0 < int(refused["Retry-After"]) <= 60
    assert (refused.json()["code"], refused.json()["limit"]) == ("throttled", "API_RATE_SUBMIT")
    # Status reads have a budget of their own.
    assert client.get("/api/v1/jobs").status_code == 200


def test_a_new_key_of_the_same_tenant_shares_the_spent_budget(user, settings):
    """Minting keys buys no rate: the budget is the tenant's, whichever key spends it."""
    settings.API_RATE_SUBMIT = "2/min"
    first = _client(api_key_create(user=user, name="a")[1])
    assert [
        first.post("/api/v1/generate-pdf-async", BODY, format="json").status_code for _ in range(2)
    ] == [202, 202]
    fresh = _client(api_key_create(user=user, name="fresh")[1])
    refused = fresh.post("/api/v1/generate-pdf-async", BODY, format="json")
    assert (refused.status_code, refused.json()["limit"]) == (429, "API_RATE_SUBMIT")
    # Another tenant's budget is untouched.
    stranger = _client(api_key_create(user=UserFactory(), name="s")[1])
    assert stranger.post("/api/v1/generate-pdf-async", BODY, format="json").status_code == 202


def test_template_writes_are_limited_but_reads_are_not(user, settings):
    settings.API_RATE_TEMPLATE_WRITE = "1/min"
    client = _client(api_key_create(user=user, name="t")[1])
    template = {"slug": "one", "name": "One", "html": "<p>1</p>"}
    assert client.post("/api/v1/templates/", template, format="json").status_code == 201
    again = client.post("/api/v1/templates/", {**template, "slug": "two"}, format="json")
    assert (again.status_code, again.json()["limit"]) == (429, "API_RATE_TEMPLATE_WRITE")
    assert client.get("/api/v1/templates/one").status_code == 200


def test_status_reads_are_limited(user, settings):
    settings.API_RATE_STATUS_READ = "2/min"
    client = _client(api_key_create(user=user, name="r")[1])
    assert [client.get("/api/v1/jobs").status_code for _ in range(3)] == [200, 200, 429]


def test_concurrent_requests_never_take_more_than_the_rate(settings):
    """One atomic count in Redis: 40 requests of one key at once, on 8 threads, get exactly
    the 10 the rate allows (a read-then-write count let several take the last slot)."""
    import uuid
    from concurrent.futures import ThreadPoolExecutor
    from types import SimpleNamespace

    from accounts.throttles import SubmitThrottle

    settings.API_RATE_SUBMIT = "10/min"
    person = SimpleNamespace(pk=1, is_authenticated=True)
    # The tenant is the workspace the request acts in (workspace_current caches it here).
    tenant = SimpleNamespace(pk=uuid.uuid4().int % 10**12)
    request = SimpleNamespace(auth=None, user=person, _workspace=tenant)
    with ThreadPoolExecutor(8) as pool:
        allowed = list(pool.map(lambda _: SubmitThrottle().allow_request(request, None), range(40)))
    assert allowed.count(True) == 10


@pytest.mark.parametrize("path", ["/api/v1/runs", "/api/v1/schedules"])
def test_list_create_views_read_from_the_status_budget_and_create_from_the_submit_one(
    user, settings, path
):
    """Runs and schedules (ReadOrSubmitThrottledApi): listing spends API_RATE_STATUS_READ,
    creating spends API_RATE_SUBMIT."""
    settings.API_RATE_STATUS_READ = "1/min"
    settings.API_RATE_SUBMIT = "1/min"
    client = _client(api_key_create(user=user, name="l")[1])
    assert client.get(path).status_code == 200
    listed = client.get(path)
    assert (listed.status_code, listed.json()["limit"]) == (429, "API_RATE_STATUS_READ")
    # The first create passes the throttle (and is then refused or accepted for its body).
    assert client.post(path, {}, format="json").status_code != 429
    created = client.post(path, {}, format="json")
    assert (created.status_code, created.json()["limit"]) == (429, "API_RATE_SUBMIT")
