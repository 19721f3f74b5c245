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
