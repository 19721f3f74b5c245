"""The OpenID provider's endpoints, read from its discovery document and cached.

mozilla-django-oidc wants each endpoint as a setting; a deployment names only the issuer
(OIDC_ISSUER_URL) and this module answers those settings from
`{issuer}/.well-known/openid-configuration`, fetched when a sign-in needs it, never at
start-up (a provider that is down must not stop the service, or password sign-in).
"""

from __future__ import annotations

from typing import Any

import requests
from django.conf import settings
from django.core.cache import cache
from mozilla_django_oidc.utils import import_from_settings

# mozilla-django-oidc's setting -> the discovery document's field.
ENDPOINT_FIELDS = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
_CACHE_SECONDS = 3600


class ProviderUnavailable(Exception):
    """The provider could not be reached, or answered something that is not its discovery
    document; the message says which, for the sign-in error page."""


def sso_enabled() -> bool:
    return bool(settings.OIDC_ISSUER_URL and settings.OIDC_RP_CLIENT_ID)


def discovery_url() -> str:
    return f"{settings.OIDC_ISSUER_URL}/.well-known/openid-configuration"


def provider_metadata() -> dict[str, Any]:
    """The discovery document (cached an hour); ProviderUnavailable if it cannot be had."""
    key = f"oidc-discovery:{settings.OIDC_ISSUER_URL}"
    found = cache.get(key)
    if found is not None:
        return dict(found)
    try:
        response = requests.get(discovery_url(), timeout=settings.OIDC_TIMEOUT)
        response.raise_for_status()
        document = response.json()
    except (requests.RequestException, ValueError) as exc:
        raise ProviderUnavailable(
            f"The sign-in provider at {settings.OIDC_ISSUER_URL} did not answer "
            f"({type(exc).__name__})."
        ) from exc
    missing = [field for field in ENDPOINT_FIELDS.values() if not document.get(field)]
    # OpenID Connect Discovery 1.0, section 4.3: the issuer in the document must be the
    # one configured, or an attacker's document could point at another provider.
    if document.get("issuer", "").rstrip("/") != settings.OIDC_ISSUER_URL or missing:
        raise ProviderUnavailable(
            f"{discovery_url()} is not the discovery document of {settings.OIDC_ISSUER_URL}"
            + (f" (it lacks {', '.join(missing)})." if missing else " (another issuer).")
        )
    cache.set(key, document, _CACHE_SECONDS)
    return dict(document)


def oidc_setting(name: str, *default: Any) -> Any:
    """mozilla-django-oidc's `get_settings`: endpoints from discovery, the rest from
    Django's settings."""
    if name in ENDPOINT_FIELDS:
        return provider_metadata()[ENDPOINT_FIELDS[name]]
    return import_from_settings(name, *default)
