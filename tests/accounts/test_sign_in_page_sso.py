"""The sign-in page offers single sign-on only when a provider is configured."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_no_sso_button_and_no_sso_views_without_a_provider(client, settings):
    settings.OIDC_ISSUER_URL = ""
    assert "Sign in with" not in client.get("/login/").content.decode()
    assert client.get("/login/sso/").status_code == 404
    assert client.get("/login/sso/callback/?code=x&state=y").status_code == 404


def test_the_button_names_the_provider_and_keeps_next(client, settings):
    settings.OIDC_ISSUER_URL = "https://sso.example.com/realms/acme"
    settings.OIDC_RP_CLIENT_ID = "pdf-reports"
    settings.OIDC_PROVIDER_NAME = "Acme SSO"
    page = client.get("/login/?next=/usage/").content.decode()
    assert "Sign in with Acme SSO" in page
    assert 'href="/login/sso/?next=/usage/"' in page


def test_a_password_sign_in_never_asks_the_provider(client, settings, django_user_model):
    # The provider's address answers nothing; a password sign-in must not notice.
    settings.OIDC_ISSUER_URL = "http://127.0.0.1:9"
    settings.OIDC_RP_CLIENT_ID = "pdf-reports"
    django_user_model.objects.create_user("pat", password="a-long-password-1")
    response = client.post("/login/", {"username": "pat", "password": "a-long-password-1"})
    assert response.status_code == 302
    assert client.session["_auth_user_id"]
