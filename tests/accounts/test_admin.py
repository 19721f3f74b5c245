"""API keys in the admin: their webhook signing secrets are never shown nor editable."""

from __future__ import annotations

import pytest

from accounts.models import ApiKey
from accounts.services import api_key_create, webhook_secret_rotate

pytestmark = pytest.mark.django_db


def test_the_key_change_page_shows_no_webhook_secret(admin_client, user):
    key, _ = api_key_create(user=user, name="billing")
    webhook_secret_rotate(key=key, grace_seconds=3600)  # a previous secret too
    key.refresh_from_db()
    page = admin_client.get(f"/admin/accounts/apikey/{key.pk}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "billing" in html
    assert "a secret is set (not shown" in html
    for secret in (key.webhook_secret, key.webhook_secret_previous):
        assert secret
        assert secret not in html
        assert secret.removeprefix("whsec_") not in html
    assert 'name="webhook_secret"' not in html
    # A posted secret is ignored: the field is not in the form.
    form = {"user": user.pk, "name": "renamed", "webhook_secret": "whsec_forged"}
    admin_client.post(f"/admin/accounts/apikey/{key.pk}/change/", form)
    assert ApiKey.objects.get(pk=key.pk).webhook_secret == key.webhook_secret
