"""My API keys page: a new key is shown once; revoking works only on my own keys."""

from __future__ import annotations

import pytest

from accounts.models import ApiKey
from accounts.services import api_key_authenticate, api_key_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_creating_a_key_shows_the_secret_once(browser, user):
    response = browser.post("/keys/", {"name": "billing"})
    raw = response.context["created"]["raw"]
    assert raw in response.content.decode()
    assert api_key_authenticate(raw) == user
    assert "no-store" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    again = browser.get("/keys/").content.decode()
    assert raw not in again
    assert "billing" in again


def test_revoking_my_key_stops_it_working(browser, user):
    key, raw = api_key_create(user=user, name="old")
    response = browser.post(f"/keys/{key.pk}/revoke", follow=True)
    assert "is revoked" in response.content.decode()
    assert api_key_authenticate(raw) is None


def test_someone_elses_key_cannot_be_revoked(browser):
    theirs, raw = api_key_create(user=UserFactory(username="other"))
    assert browser.post(f"/keys/{theirs.pk}/revoke").status_code == 404
    assert ApiKey.objects.get(pk=theirs.pk).revoked_at is None
    assert api_key_authenticate(raw) is not None


def test_a_key_can_be_created_with_an_expiry_and_shows_it(browser, user):
    from accounts.models import ApiKey

    response = browser.post("/keys/", {"name": "quarterly", "expires": "90"})
    assert response.status_code == 200
    key = ApiKey.objects.get(user=user, name="quarterly")
    assert 89 <= (key.expires_at - key.created_at).days <= 90
    page = browser.get("/keys/").content.decode()
    assert key.expires_at.strftime("%Y-%m-%d") in page


def test_the_key_past_the_tenant_cap_is_a_409_with_a_message(browser, user, settings):
    settings.API_KEYS_MAX_PER_TENANT = 1
    assert browser.post("/keys/", {"name": "first"}).status_code == 200
    refused = browser.post("/keys/", {"name": "second"})
    assert refused.status_code == 409
    assert "API_KEYS_MAX_PER_TENANT" in refused.content.decode()
    assert refused.context["created"] is None
    assert ApiKey.objects.filter(user=user).count() == 1
